/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_NL_H
#define CPROF_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/causalprof.h>

#include "events.h"
#include "golabels.h"

struct nl_sock;
struct cp_nl;

/*
 * Receives the stream records of one CAUSALPROF_CMD_RECORDS message: @len
 * bytes at @recs, as the kernel framed them (not checked yet).
 */
typedef void cp_nl_records_fn(struct cp_nl *nl, uint64_t session_id, const void *recs,
			      size_t len, void *arg);

/*
 * A generic netlink connection to the causalprof module. Requests on it are
 * synchronous: each waits for the kernel's reply and acknowledgement.
 */
struct cp_nl {
	struct nl_sock *sock;
	int family;			/* id of the "causalprof" family */
	char err_msg[256];		/* detail of the last failure, or "" */

	/* Set by cp_nl_stream_init(); records may come during any request. */
	cp_nl_records_fn *on_records;
	void *records_arg;
	uint64_t bad_msgs;		/* RECORDS messages without their attributes */
};

/* A SESSION_START request. */
struct cp_nl_start {
	uint32_t flags;			/* CAUSALPROF_F_* */
	uint32_t target_pid;		/* unless CAUSALPROF_F_SYSTEM_WIDE */
	const struct cp_events *events;
	uint32_t agg_entries;		/* CAUSALPROF_A_AGG_ENTRIES; 0: the default */
	const struct cp_go_layout *go;	/* CAUSALPROF_A_GO_LABELS; NULL: none */
	uint32_t drain_ms;		/* CAUSALPROF_A_DRAIN_MS; 0: the module's period */
};

/* The reply to CAUSALPROF_CMD_GET_STATUS. */
struct cp_status {
	char version[32];
	uint32_t state;			/* enum causalprof_state */
	uint64_t session_id;
	uint32_t owner;			/* enum causalprof_owner, while running */
	bool has_target;		/* false for a system-wide session */
	uint32_t target_pid;
	uint32_t flags;			/* CAUSALPROF_F_* of the running session */
	uint64_t stats[CAUSALPROF_STAT_MAX + 1];	/* by CAUSALPROF_STAT_* */
};

/*
 * Functions return 0 or -errno. cp_nl_open() returns -ENOENT when the family
 * does not exist, i.e. the module is not loaded; after it fails there is
 * nothing to close.
 */
int cp_nl_open(struct cp_nl *nl);
void cp_nl_close(struct cp_nl *nl);
int cp_nl_get_status(struct cp_nl *nl, struct cp_status *st);

/*
 * Makes @nl a session owner's socket: CAUSALPROF_CMD_RECORDS messages, which
 * come unasked with sequence number 0, go to @fn from now on, also while a
 * request waits for its answer. The socket becomes non-blocking and gets a
 * receive buffer of @rcvbuf bytes (SO_RCVBUFFORCE, else SO_RCVBUF capped by
 * net.core.rmem_max); *@got is what the kernel granted.
 */
int cp_nl_stream_init(struct cp_nl *nl, cp_nl_records_fn *fn, void *arg, int rcvbuf,
		      int *got);
/* The socket's file descriptor, to poll for POLLIN. */
int cp_nl_fd(const struct cp_nl *nl);
/* Handles the messages waiting on a stream socket; 0 when there are none left. */
int cp_nl_receive(struct cp_nl *nl);
int cp_nl_session_start(struct cp_nl *nl, const struct cp_nl_start *req, uint64_t *id);
int cp_nl_session_stop(struct cp_nl *nl);
/*
 * FLUSH: the session's records so far, handed to the stream's function
 * before it returns (-ENOBUFS: not all of them, the rest follows).
 */
int cp_nl_flush(struct cp_nl *nl);
/* EXPERIMENT_START: @speedup per mille, @nr ranges (pad ignored). */
int cp_nl_experiment_start(struct cp_nl *nl, uint32_t speedup,
			   const struct causalprof_exp_range *ranges, unsigned int nr);
int cp_nl_experiment_stop(struct cp_nl *nl);
/* PROGRESS_ADD; @end_offset for CAUSALPROF_PP_LATENCY only. */
int cp_nl_progress_add(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
		       uint64_t offset, uint64_t end_offset);
/* The same with what a visit of each probe costs (0: none said). */
int cp_nl_progress_add_cost(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			    uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			    uint32_t end_visit_ns);

/*
 * The same for probes of several sites each (@nr_end 0 for a throughput
 * point); bit i of @checks (@end_checks) set when site i is a Go stack
 * check's jbe (CAUSALPROF_PP_A_STACK_CHECKS).
 */
int cp_nl_progress_add_sites(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			     const uint64_t *offsets, unsigned int nr, uint64_t checks,
			     const uint64_t *end_offsets, unsigned int nr_end, uint64_t end_checks,
			     uint32_t visit_ns, uint32_t end_visit_ns);

/*
 * GO_HOOKS: @nr hooks of the Go program @path, @kinds[i] at @offsets[i],
 * a trap costing @visit_ns[i] (NULL: not counted), with CAUSALPROF_GOHOOK_F_*
 * @flags[i] (NULL: none).
 */
int cp_nl_go_hooks(struct cp_nl *nl, const char *path, const uint32_t *kinds,
		   const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		   unsigned int nr);

/* Print why cp_nl_open() failed. */
void cp_nl_open_perror(int err);
/* Print "cprof: <what>: <error>", with the kernel's explanation if any. */
void cp_nl_perror(const struct cp_nl *nl, const char *what, int err);

#endif /* CPROF_NL_H */
