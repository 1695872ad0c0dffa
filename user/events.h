/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_EVENTS_H
#define CPROF_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

/* Longest spelling accepted: "branch-instructions", or "r" + 16 hex digits. */
#define CP_EVENT_NAME_MAX	32

struct cp_event {
	char name[CP_EVENT_NAME_MAX];	/* the user's spelling */
	uint32_t type;			/* perf_event_attr.type */
	uint64_t config;		/* perf_event_attr.config */
	uint64_t period;		/* sample every period events, or */
	uint32_t freq;			/* freq samples per second per CPU */
};

/* The events of a session; an event's index is the number its samples carry. */
struct cp_events {
	unsigned int nr;
	struct cp_event ev[CAUSALPROF_MAX_EVENTS];
};

/*
 * Appends the events of a comma-separated list to @evs. On failure returns
 * -EINVAL, leaves @evs as it was and puts the reason, naming the offending
 * event, in @err.
 */
int cp_events_parse(struct cp_events *evs, const char *list, char *err, size_t errlen);

/* "hardware", "software", "hw-cache", "raw", or "type N" in @buf. */
const char *cp_event_type_name(uint32_t type, char *buf, size_t size);

#endif /* CPROF_EVENTS_H */
