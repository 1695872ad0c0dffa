/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_REQUEST_H
#define CPROF_REQUEST_H

/*
 * The attributes of the requests that change the module's state, built
 * once: for cprof's connection (nl.c) and for the test suite's own raw
 * client (tests/helpers/session.c), which sends the same bytes.
 *
 * Each builder puts exactly what it is given, and leaves out an attribute
 * whose value is 0 (a NULL name): the kernel reads a missing attribute as
 * that value, and the tests send requests cprof never would (a latency
 * point without its end, a throughput point with one) to see them refused.
 * Builders append to @msg (a generic netlink request, or a bare nl_msg
 * whose payload the caller sends) and return 0 or -EMSGSIZE.
 */

#include <stdint.h>
#include <linux/causalprof.h>

struct nl_msg;

/* One event of SESSION_START's CAUSALPROF_A_EVENTS. */
struct cp_req_event {
	uint32_t type;
	uint64_t config;
	uint64_t period;
	uint32_t freq;
	const char *name;
};

/*
 * SESSION_START: @target_pid 0 for none (system-wide); @agg_entries 0 for
 * the module's default; @nr events.
 */
int cp_req_session_start(struct nl_msg *msg, uint32_t flags, uint32_t target_pid,
			 uint32_t agg_entries, const struct cp_req_event *evs, unsigned int nr);
/* SESSION_START's CAUSALPROF_A_DRAIN_MS, the session's drain period; 0: left out. */
int cp_req_drain_ms(struct nl_msg *msg, uint32_t ms);
/* SESSION_START's CAUSALPROF_A_GO_LABELS: where a Go target keeps its labels. */
int cp_req_go_labels(struct nl_msg *msg, uint32_t format, int32_t tls_g, uint32_t g_m,
		     uint32_t m_curg, uint32_t g_labels);
/* EXPERIMENT_START: @speedup per mille, @nr ranges (their pad unsent). */
int cp_req_experiment_start(struct nl_msg *msg, uint32_t speedup,
			    const struct causalprof_exp_range *ranges, unsigned int nr);
/*
 * PROGRESS_ADD: @end_offset and @end_visit_ns for CAUSALPROF_PP_LATENCY;
 * a visit cost of 0 is left out.
 */
int cp_req_progress_add(struct nl_msg *msg, uint32_t id, uint32_t kind, const char *path,
			uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			uint32_t end_visit_ns);
/*
 * The sites of one probe: the first goes in _OFFSET (_END_OFFSET), the
 * others in the nest _SITES (_END_SITES); no sites, no attribute.
 */
struct cp_req_sites {
	const uint64_t *off;
	unsigned int nr;
	uint64_t checks;	/* bit i: off[i] is a Go stack check's jbe */
};
/* PROGRESS_ADD of a point whose probes may have several sites. */
int cp_req_progress_add_sites(struct nl_msg *msg, uint32_t id, uint32_t kind, const char *path,
			      const struct cp_req_sites *begin, const struct cp_req_sites *end,
			      uint32_t visit_ns, uint32_t end_visit_ns);
/* PROGRESS_DEL. */
int cp_req_progress_del(struct nl_msg *msg, uint32_t id);
/*
 * GO_HOOKS: nr hooks, kinds[i] (enum causalprof_go_hook) at offsets[i] of
 * path, whose traps cost visit_ns[i] (visit_ns NULL, or an entry 0: not said),
 * with CAUSALPROF_GOHOOK_F_* flags[i] (NULL, or 0: none).
 */
int cp_req_go_hooks(struct nl_msg *msg, const char *path, const uint32_t *kinds,
		    const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		    unsigned int nr);

#endif /* CPROF_REQUEST_H */
