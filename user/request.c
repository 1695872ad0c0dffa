// SPDX-License-Identifier: GPL-2.0
/*
 * The attributes of SESSION_START, EXPERIMENT_START and PROGRESS_ADD/DEL,
 * for cprof and for the tests' client alike (request.h).
 */

#include <errno.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "request.h"

static int put_u32(struct nl_msg *msg, int type, uint32_t v)
{
	return v && nla_put_u32(msg, type, v) ? -EMSGSIZE : 0;
}

static int put_u64(struct nl_msg *msg, int type, uint64_t v)
{
	return v && nla_put_u64(msg, type, v) ? -EMSGSIZE : 0;
}

static int put_event(struct nl_msg *msg, const struct cp_req_event *ev)
{
	struct nlattr *nest = nla_nest_start(msg, CAUSALPROF_EVENTS_A_EVENT);

	if (!nest ||
	    nla_put_u32(msg, CAUSALPROF_EV_A_TYPE, ev->type) ||
	    nla_put_u64(msg, CAUSALPROF_EV_A_CONFIG, ev->config) ||
	    put_u64(msg, CAUSALPROF_EV_A_PERIOD, ev->period) ||
	    put_u32(msg, CAUSALPROF_EV_A_FREQ, ev->freq) ||
	    (ev->name && nla_put_string(msg, CAUSALPROF_EV_A_NAME, ev->name)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int cp_req_session_start(struct nl_msg *msg, uint32_t flags, uint32_t target_pid,
			 uint32_t agg_entries, const struct cp_req_event *evs, unsigned int nr)
{
	struct nlattr *events;
	unsigned int i;

	if (put_u32(msg, CAUSALPROF_A_FLAGS, flags) ||
	    put_u32(msg, CAUSALPROF_A_TARGET_PID, target_pid) ||
	    put_u32(msg, CAUSALPROF_A_AGG_ENTRIES, agg_entries))
		return -EMSGSIZE;
	if (!nr)
		return 0;
	events = nla_nest_start(msg, CAUSALPROF_A_EVENTS);
	if (!events)
		return -EMSGSIZE;
	for (i = 0; i < nr; i++)
		if (put_event(msg, &evs[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, events);
	return 0;
}

int cp_req_drain_ms(struct nl_msg *msg, uint32_t ms)
{
	return put_u32(msg, CAUSALPROF_A_DRAIN_MS, ms);
}

int cp_req_go_labels(struct nl_msg *msg, uint32_t format, int32_t tls_g, uint32_t g_m,
		     uint32_t m_curg, uint32_t g_labels)
{
	struct nlattr *go = nla_nest_start(msg, CAUSALPROF_A_GO_LABELS);

	if (!go ||
	    nla_put_u32(msg, CAUSALPROF_GO_A_FORMAT, format) ||
	    nla_put_s32(msg, CAUSALPROF_GO_A_TLS_G, tls_g) ||
	    nla_put_u32(msg, CAUSALPROF_GO_A_G_M, g_m) ||
	    nla_put_u32(msg, CAUSALPROF_GO_A_M_CURG, m_curg) ||
	    nla_put_u32(msg, CAUSALPROF_GO_A_G_LABELS, g_labels))
		return -EMSGSIZE;
	nla_nest_end(msg, go);
	return 0;
}

int cp_req_experiment_start(struct nl_msg *msg, uint32_t speedup,
			    const struct causalprof_exp_range *ranges, unsigned int nr)
{
	struct nlattr *exp, *range;
	unsigned int i;

	exp = nla_nest_start(msg, CAUSALPROF_A_EXPERIMENT);
	if (!exp || nla_put_u32(msg, CAUSALPROF_EXP_A_SPEEDUP, speedup))
		return -EMSGSIZE;
	for (i = 0; i < nr; i++) {
		range = nla_nest_start(msg, CAUSALPROF_EXP_A_RANGE);
		if (!range ||
		    nla_put_u32(msg, CAUSALPROF_RANGE_A_PID, ranges[i].pid) ||
		    nla_put_u64(msg, CAUSALPROF_RANGE_A_START, ranges[i].start) ||
		    nla_put_u64(msg, CAUSALPROF_RANGE_A_END, ranges[i].end))
			return -EMSGSIZE;
		nla_nest_end(msg, range);
	}
	nla_nest_end(msg, exp);
	return 0;
}

/* A probe's sites: the first in @first, the others in a nest @more. */
static int put_sites(struct nl_msg *msg, int first, int more, const struct cp_req_sites *s)
{
	struct nlattr *nest;
	unsigned int i;

	if (!s->nr)
		return 0;
	if (nla_put_u64(msg, first, s->off[0]))
		return -EMSGSIZE;
	if (s->nr == 1)
		return 0;
	nest = nla_nest_start(msg, more);
	if (!nest)
		return -EMSGSIZE;
	for (i = 1; i < s->nr; i++)
		if (nla_put_u64(msg, CAUSALPROF_SITES_A_OFFSET, s->off[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int cp_req_progress_add_sites(struct nl_msg *msg, uint32_t id, uint32_t kind, const char *path,
			      const struct cp_req_sites *begin, const struct cp_req_sites *end,
			      uint32_t visit_ns, uint32_t end_visit_ns)
{
	struct nlattr *pp = nla_nest_start(msg, CAUSALPROF_A_PROGRESS);

	if (!pp || nla_put_u32(msg, CAUSALPROF_PP_A_ID, id) ||
	    nla_put_u32(msg, CAUSALPROF_PP_A_KIND, kind) ||
	    nla_put_string(msg, CAUSALPROF_PP_A_PATH, path) ||
	    put_sites(msg, CAUSALPROF_PP_A_OFFSET, CAUSALPROF_PP_A_SITES, begin) ||
	    put_sites(msg, CAUSALPROF_PP_A_END_OFFSET, CAUSALPROF_PP_A_END_SITES, end) ||
	    (begin->checks && nla_put_u64(msg, CAUSALPROF_PP_A_STACK_CHECKS, begin->checks)) ||
	    (end->checks && nla_put_u64(msg, CAUSALPROF_PP_A_END_STACK_CHECKS, end->checks)) ||
	    (visit_ns && nla_put_u32(msg, CAUSALPROF_PP_A_VISIT_NS, visit_ns)) ||
	    (end_visit_ns && nla_put_u32(msg, CAUSALPROF_PP_A_END_VISIT_NS, end_visit_ns)))
		return -EMSGSIZE;
	nla_nest_end(msg, pp);
	return 0;
}

int cp_req_progress_add(struct nl_msg *msg, uint32_t id, uint32_t kind, const char *path,
			uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			uint32_t end_visit_ns)
{
	const struct cp_req_sites begin = { &offset, 1, 0 };
	const struct cp_req_sites end = { &end_offset, end_offset != 0, 0 };

	return cp_req_progress_add_sites(msg, id, kind, path, &begin, &end, visit_ns,
					 end_visit_ns);
}

int cp_req_progress_del(struct nl_msg *msg, uint32_t id)
{
	struct nlattr *pp = nla_nest_start(msg, CAUSALPROF_A_PROGRESS);

	if (!pp || nla_put_u32(msg, CAUSALPROF_PP_A_ID, id))
		return -EMSGSIZE;
	nla_nest_end(msg, pp);
	return 0;
}

int cp_req_go_hooks(struct nl_msg *msg, const char *path, const uint32_t *kinds,
		    const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		    unsigned int nr)
{
	struct nlattr *go = nla_nest_start(msg, CAUSALPROF_A_GO_HOOKS), *hook;
	unsigned int i;

	if (!go || nla_put_string(msg, CAUSALPROF_GOHOOKS_A_PATH, path))
		return -EMSGSIZE;
	for (i = 0; i < nr; i++) {
		hook = nla_nest_start(msg, CAUSALPROF_GOHOOKS_A_HOOK);
		if (!hook || nla_put_u32(msg, CAUSALPROF_GOHOOK_A_KIND, kinds[i]) ||
		    nla_put_u64(msg, CAUSALPROF_GOHOOK_A_OFFSET, offsets[i]) ||
		    (visit_ns && visit_ns[i] &&
		     nla_put_u32(msg, CAUSALPROF_GOHOOK_A_VISIT_NS, visit_ns[i])) ||
		    (flags && flags[i] && nla_put_u32(msg, CAUSALPROF_GOHOOK_A_FLAGS, flags[i])))
			return -EMSGSIZE;
		nla_nest_end(msg, hook);
	}
	nla_nest_end(msg, go);
	return 0;
}
