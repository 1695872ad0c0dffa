/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events a session may sample: validation, text names and
 * perf_event_attr (see events.c).
 */

#ifndef _CAUSALPROF_EVENTS_H
#define _CAUSALPROF_EVENTS_H

#include <linux/types.h>

struct cp_config;
struct cp_event;
struct netlink_ext_ack;
struct perf_event_attr;

int cp_event_validate(const struct cp_event *ev, struct netlink_ext_ack *extack);
int cp_events_validate(const struct cp_event *evs, unsigned int nr,
		       struct netlink_ext_ack *extack);
int cp_event_parse(const char *name, struct cp_event *ev);
int cp_events_probe(const struct cp_config *cfg, struct netlink_ext_ack *extack);
void cp_event_attr(const struct cp_event *ev, struct perf_event_attr *attr);
void cp_event_error(const struct cp_event *ev, unsigned int index, int err,
		    struct netlink_ext_ack *extack);
void cp_events_uninit(void);

#endif /* _CAUSALPROF_EVENTS_H */
