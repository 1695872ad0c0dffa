// SPDX-License-Identifier: GPL-2.0
/*
 * What a request asks, checked once for both interfaces: a netlink request
 * and a write to /proc/causalprof/control get the same errors and messages.
 */

#include "causal.h"
#include "request.h"

#include <linux/causalprof.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/threads.h>

/*
 * One range of an experiment: pid in the caller's pid namespace, turned
 * into its thread group id in the initial one, as struct cp_range has it.
 */
int cp_request_range(u32 pid, u64 start, u64 end, struct cp_range *r,
		     const struct cp_range_attrs *at, struct netlink_ext_ack *extack)
{
	struct task_struct *task;

	r->start = start;
	r->end = end;
	if (start >= end) {
		NL_SET_ERR_MSG_ATTR(extack, at->end,
				    "CAUSALPROF_RANGE_A_END is not above CAUSALPROF_RANGE_A_START");
		return -EINVAL;
	}
	if (!pid || pid > PID_MAX_LIMIT) {
		NL_SET_ERR_MSG_ATTR(extack, at->pid, "CAUSALPROF_RANGE_A_PID is not a process id");
		return -EINVAL;
	}
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	r->tgid = task ? task->tgid : 0;
	rcu_read_unlock();
	if (!r->tgid) {
		NL_SET_ERR_MSG_ATTR(extack, at->pid, "CAUSALPROF_RANGE_A_PID: no such process");
		return -ESRCH;
	}
	return 0;
}

/* Whether one more range, after nr, fits in an experiment. */
int cp_request_nr_ranges(unsigned int nr, const struct nlattr *at,
			 struct netlink_ext_ack *extack)
{
	BUILD_BUG_ON(CP_MAX_RANGES != 16);
	if (nr < CP_MAX_RANGES)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, at,
			    "more than 16 CAUSALPROF_EXP_A_RANGE (CAUSALPROF_MAX_RANGES)");
	return -EINVAL;
}

int cp_request_speedup(u32 speedup, const struct nlattr *at, struct netlink_ext_ack *extack)
{
	if (speedup <= 1000)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, at, "CAUSALPROF_EXP_A_SPEEDUP is above 1000 per mille");
	return -EINVAL;
}

/*
 * A progress point's kind, and an end offset (and an end probe's visit
 * cost) for latency points only, the offset required there.
 */
int cp_request_progress(u32 kind, bool has_end, bool has_end_visit,
			const struct cp_progress_attrs *at, struct netlink_ext_ack *extack)
{
	if (kind != CAUSALPROF_PP_THROUGHPUT && kind != CAUSALPROF_PP_LATENCY) {
		NL_SET_ERR_MSG_ATTR(extack, at->kind,
				    "CAUSALPROF_PP_A_KIND is not an enum causalprof_pp_kind");
		return -EINVAL;
	}
	if (kind == CAUSALPROF_PP_LATENCY && !has_end) {
		NL_SET_ERR_MSG_ATTR(extack, at->point,
				    "a latency point needs CAUSALPROF_PP_A_END_OFFSET");
		return -EINVAL;
	}
	if (kind == CAUSALPROF_PP_THROUGHPUT && has_end) {
		NL_SET_ERR_MSG_ATTR(extack, at->end,
				    "CAUSALPROF_PP_A_END_OFFSET is for latency points only");
		return -EINVAL;
	}
	if (kind == CAUSALPROF_PP_THROUGHPUT && has_end_visit) {
		NL_SET_ERR_MSG_ATTR(extack, at->end_visit,
				    "CAUSALPROF_PP_A_END_VISIT_NS is for latency points only");
		return -EINVAL;
	}
	return 0;
}
