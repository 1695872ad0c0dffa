/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a request asks, checked once for both interfaces: netlink.c and
 * proc.c parse into the same values and call the same checks (see request.c).
 */

#ifndef _CAUSALPROF_REQUEST_H
#define _CAUSALPROF_REQUEST_H

#include <linux/types.h>

struct cp_range;
struct netlink_ext_ack;
struct nlattr;

/*
 * The attributes a netlink request gave each value in, for the extack to
 * point at; all NULL for a /proc request.
 */
struct cp_range_attrs {
	const struct nlattr *pid, *end;
};

struct cp_progress_attrs {
	const struct nlattr *point, *kind, *end, *end_visit;
};

int cp_request_range(u32 pid, u64 start, u64 end, struct cp_range *r,
		     const struct cp_range_attrs *at, struct netlink_ext_ack *extack);
int cp_request_nr_ranges(unsigned int nr, const struct nlattr *at,
			 struct netlink_ext_ack *extack);
int cp_request_speedup(u32 speedup, const struct nlattr *at, struct netlink_ext_ack *extack);
int cp_request_progress(u32 kind, bool has_end, bool has_end_visit,
			const struct cp_progress_attrs *at, struct netlink_ext_ack *extack);

#endif /* _CAUSALPROF_REQUEST_H */
