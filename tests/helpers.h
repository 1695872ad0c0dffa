/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the causalprof selftests, the one header the tests
 * include; each section names its file in tests/helpers/: the module
 * (module.c), /proc/causalprof (procfs.c), the kernel's own counters
 * (kernel.c), processes (process.c), target programs (target.c), the raw
 * generic netlink client (genl.c), its commands (session.c: their
 * attributes built by cprof's own user/request.c) and the stream
 * of records (stream.c). The report tests, whose cprof headers use some of
 * its names, include helpers/path.h alone.
 *
 * Helpers return 0 (or a count) on success and -errno on failure, so a test
 * asserts the exact error: ASSERT_EQ(-EBUSY, cp_control("start pid=1")).
 * This file must not include kselftest_harness.h: the harness defines
 * globals and may only be included by the test itself.
 */
#ifndef CP_HELPERS_H
#define CP_HELPERS_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/causalprof.h>
#include <linux/perf_event.h>
#include <causalprof/tables.h>

#include "helpers/path.h"
#include "request.h"

#define CP_MODULE	"causalprof"
/* What the module, /proc and cprof report: the one version string. */
#define CP_VERSION	CAUSALPROF_VERSION
#define CP_PROC_DIR	"/proc/causalprof"
#define CP_STATUS	CP_PROC_DIR "/status"
#define CP_CONTROL	CP_PROC_DIR "/control"
#define CP_DEBUGFS	"/sys/kernel/debug/causalprof"
#define CP_SYSFS	"/sys/module/" CP_MODULE

/* Bounded wait for asynchronous state changes; never an assertion by itself. */
#define CP_WAIT_MS	5000

/*
 * ASSERT_ERRNO(err, expr): expr is a libc-style call (returns -1 and sets
 * errno on failure) that must fail with errno == err. Like the helper in
 * tools/testing/selftests/proc/proc-pidns.c, built on the harness' __EXPECT.
 */
#define cp_errno_of(expr) ({ long __r = (long)(expr); __r == -1 ? (long)errno : 0L; })
#define ASSERT_ERRNO(err, expr) \
	__EXPECT((long)(err), #err, cp_errno_of(expr), #expr, ==, 1)
#define EXPECT_ERRNO(err, expr) \
	__EXPECT((long)(err), #err, cp_errno_of(expr), #expr, ==, 0)

/* The module: $CAUSALPROF_KO, loaded with finit_module(2) (module.c) */
const char *cp_ko_path(void);
int cp_module_load(const char *ko);
int cp_module_load_params(const char *ko, const char *params);
int cp_module_reload(const char *params);
int cp_module_param_get(const char *name, uint64_t *val);
int cp_module_param_set(const char *name, uint64_t val);
int cp_module_unload(void);
bool cp_module_loaded(void);
int cp_module_ensure_loaded(void);

/* /proc/causalprof (procfs.c; cp_parse_u64() in util.c) */
int cp_status_read(char *buf, size_t size);
int cp_status_get(const char *key, char *val, size_t size);
int cp_status_u64(const char *key, uint64_t *val);
int cp_control_write(const void *buf, size_t len);
int cp_control(const char *cmd);
int cp_wait_state(const char *state, int timeout_ms);
/* Until the counter key of the status is at least min, bounded: -ETIMEDOUT. */
int cp_status_wait_u64(const char *key, uint64_t min, int timeout_ms);
int cp_session_reset(void);
int cp_parse_u64(const char *s, uint64_t *val);

/* debugfs counters: cp_debugfs_u64("cpu0/lost", &val) (module.c) */
int cp_debugfs_u64(const char *name, uint64_t *val);
/* A small file's contents, NUL-terminated; a string written in one write (util.c) */
int cp_read_str(const char *path, char *buf, size_t size);
int cp_write_str(const char *path, const char *s);
/* A CPU's samples, lost and overflows since the module loaded (module.c) */
int cp_cpu_counts(long cpu, uint64_t *samples, uint64_t *lost, uint64_t *overflows);

/*
 * Local timer interrupts so far, per CPU (/proc/interrupts LOC; kernel.c):
 * count[0..max) filled, the number of CPUs returned (at most max), or -errno.
 */
int cp_timer_irqs(uint64_t *count, int max);

/* /proc/sys/kernel/tainted: W (a warning) and D (an oops) */
#define CP_TAINT_DIE	(1ULL << 7)
#define CP_TAINT_WARN	(1ULL << 9)
int cp_kernel_taint(uint64_t *mask);

/*
 * Become uid (and gid uid, no supplementary groups), keeping only the
 * capabilities in caps (bits 1ULL << CAP_*), effective and permitted; 0 or
 * -errno. Changing uid makes the process non-dumpable, as the kernel does
 * for any change of credentials; dumpable asks for it back (prctl), so that
 * the process and what it forks may be ptraced by their uid.
 */
int cp_become(uid_t uid, uint64_t caps, bool dumpable);

/*
 * Run stmt (a call, or { statements }) in a forked child that dies with the
 * test, the harness' checks in force there: a failed check, an assertion
 * or a crash in the child fails the test, with who (a string) in the log.
 * A failed ASSERT runs the fixture's teardown in the child: a teardown that
 * must not returns when getpid() is not the test's. For test files only
 * (the harness' macros).
 */
#define CP_IN_CHILD(who, stmt) do {						\
	int __cp_status;							\
	pid_t __cp_pid;								\
										\
	fflush(NULL);								\
	__cp_pid = fork();							\
	ASSERT_LE(0, __cp_pid);							\
	if (!__cp_pid) {							\
		prctl(PR_SET_PDEATHSIG, SIGKILL);				\
		stmt;								\
		_exit(_metadata->passed ? 0 : 1);				\
	}									\
	ASSERT_EQ(__cp_pid, waitpid(__cp_pid, &__cp_status, 0));		\
	ASSERT_TRUE(WIFEXITED(__cp_status)) TH_LOG(who " crashed or asserted");	\
	ASSERT_EQ(0, WEXITSTATUS(__cp_status)) TH_LOG(who " failed a check");	\
} while (0)

/* Target processes (process.c) */
pid_t cp_spawn_sleeper(void);
void cp_kill(pid_t pid);
pid_t cp_dead_pid(void);

/*
 * Programs from tests/targets/, built next to the test programs in
 * build/tests/targets/ (target.c). A held target is forked at once but execs only when
 * released, so a session can be started on its pid first, as cprof record
 * does; its stdout is a pipe the test reads. Both die with the test.
 */
struct cp_target {
	pid_t pid;
	int go;		/* the child execs when a byte comes, exits at EOF */
	int out;	/* the target's stdout */
	int status;	/* from waitpid(), once reaped */
	bool reaped;
};

/* What build/tests/targets/spin reports of each thread, the main one first. */
struct cp_spin_thread {
	pid_t tid;
	uint64_t cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID at its end */
	uint64_t loops;		/* work done; 0 for the main thread */
};

int cp_spin_parse(char *out, struct cp_spin_thread *th, int max);

/* spin -t THREADS -s 0 (busy until killed), once it has said so. */
int cp_spin_spawn(struct cp_target *t, const char *threads);

/*
 * build/tests/targets/causal MODE SECONDS (path), up to its line
 * "ready PID ATID BTID START END [RET]": thread A runs the selected code,
 * [start, end), and B other code; RET only in callee mode. Returns the
 * number of fields (5 or 6) or -errno.
 */
struct cp_causal {
	pid_t pid, a, b;
	unsigned long long start, end;
	unsigned long long ret;		/* 0 without */
};

int cp_causal_spawn(struct cp_target *t, const char *path, const char *mode,
		    const char *seconds, struct cp_causal *c);

/* build/tests/targets/NAME, checked executable; cp_build_path() in helpers/path.h. */
int cp_target_path(const char *name, char *path, size_t size);
int cp_target_spawn(struct cp_target *t, char *const argv[], bool held);
int cp_target_release(struct cp_target *t);
int cp_target_read(struct cp_target *t, char *buf, size_t size, const char *until,
		   int timeout_ms);
int cp_target_wait(struct cp_target *t, int timeout_ms);
void cp_target_kill(struct cp_target *t);

/*
 * The records of a session as its owner receives them (CAUSALPROF_CMD_RECORDS),
 * validated and copied in arrival order (stream.c). Records are 8-byte aligned in buf,
 * so the cp_rec_*() accessors return pointers to the uapi structures.
 */
struct cp_stream {
	uint64_t session_id;	/* 0 until the START reply tells it */
	uint64_t first_id;	/* the id the first batch carried */
	char *buf;
	size_t len, cap;
	size_t messages, records;
	size_t samples;		/* SAMPLE records, plus the samples of COUNT records */
	size_t counted;		/* the samples of COUNT records */
	size_t bad;		/* malformed messages and records: protocol errors */
	size_t foreign;		/* batches of another session */
	size_t after_end;	/* records that came after END */
	size_t overruns;	/* ENOBUFS: the socket dropped messages */
	uint64_t lost;		/* sum of the LOST records of samples */
	uint64_t sideband_lost;	/* sum of the LOST records of sideband records */
	size_t waits;		/* OFF_CPU records, plus the waits of OFF_CPU_COUNT records */
	uint64_t off_cpu_lost;	/* sum of the LOST records of off-CPU waits */
	bool ended;
	struct causalprof_end end;
	size_t experiments;	/* EXPERIMENT records */
	bool count_samples_only;	/* SAMPLE records counted, not kept (long runs) */
};

void cp_stream_free(struct cp_stream *s);
int cp_stream_feed(struct cp_stream *s, uint64_t session_id, const void *recs, size_t len);
const struct causalprof_record_hdr *cp_stream_next(const struct cp_stream *s, size_t *off);
const char *cp_stream_problem(const struct cp_stream *s);

#define cp_stream_for_each(s, h, off) \
	for ((off) = 0; ((h) = cp_stream_next((s), &(off))); )

/* A record of type t, or NULL: cp_stream_feed() checked its size. */
#define CP_REC(h, t, st) \
	((h)->type == (t) ? (const st *)(h) : (const st *)NULL)
#define cp_rec_sample(h)	CP_REC(h, CAUSALPROF_REC_SAMPLE, struct causalprof_sample)
#define cp_rec_mmap(h)		CP_REC(h, CAUSALPROF_REC_MMAP, struct causalprof_mmap)
#define cp_rec_comm(h)		CP_REC(h, CAUSALPROF_REC_COMM, struct causalprof_comm)
#define cp_rec_fork(h)		CP_REC(h, CAUSALPROF_REC_FORK, struct causalprof_task)
#define cp_rec_exit(h)		CP_REC(h, CAUSALPROF_REC_EXIT, struct causalprof_task)
#define cp_rec_lost(h)		CP_REC(h, CAUSALPROF_REC_LOST, struct causalprof_lost)
#define cp_rec_exp(h)		CP_REC(h, CAUSALPROF_REC_EXPERIMENT, struct causalprof_experiment)
#define cp_rec_stack(h)		CP_REC(h, CAUSALPROF_REC_STACK, struct causalprof_stack)
#define cp_rec_count(h)		CP_REC(h, CAUSALPROF_REC_COUNT, struct causalprof_count)
#define cp_rec_off_cpu(h)	CP_REC(h, CAUSALPROF_REC_OFF_CPU, struct causalprof_off_cpu)
#define cp_rec_off_cpu_count(h)	\
	CP_REC(h, CAUSALPROF_REC_OFF_CPU_COUNT, struct causalprof_off_cpu_count)

/* The ranges and progress points of an EXPERIMENT record. */
static inline const struct causalprof_exp_range *
cp_exp_ranges(const struct causalprof_experiment *e)
{
	return (const struct causalprof_exp_range *)(e + 1);
}

static inline const struct causalprof_exp_point *
cp_exp_points(const struct causalprof_experiment *e)
{
	return (const struct causalprof_exp_point *)(cp_exp_ranges(e) + e->nr_ranges);
}

/* Its points' spans (CAUSALPROF_EXP_F_SPANS), or NULL. */
static inline const struct causalprof_exp_span *
cp_exp_spans(const struct causalprof_experiment *e)
{
	if (!(e->hdr.flags & CAUSALPROF_EXP_F_SPANS))
		return NULL;
	return (const struct causalprof_exp_span *)(cp_exp_points(e) + e->nr_points);
}

/* Its accounting (CAUSALPROF_EXP_F_ACCT), or NULL. */
static inline const struct causalprof_exp_acct *
cp_exp_acct(const struct causalprof_experiment *e)
{
	const void *after = cp_exp_points(e) + e->nr_points;

	if (!(e->hdr.flags & CAUSALPROF_EXP_F_ACCT))
		return NULL;
	if (e->hdr.flags & CAUSALPROF_EXP_F_SPANS)
		after = (const struct causalprof_exp_span *)after + e->nr_points;
	return after;
}

/* Its visits counted as pauses (CAUSALPROF_EXP_F_VISITS, after the accounting), or NULL. */
static inline const struct causalprof_exp_visits *
cp_exp_visits(const struct causalprof_experiment *e)
{
	const struct causalprof_exp_acct *ac = cp_exp_acct(e);

	if (!ac || !(e->hdr.flags & CAUSALPROF_EXP_F_VISITS))
		return NULL;
	return (const struct causalprof_exp_visits *)(ac + 1);
}

/* The user frames of a sample: the interrupted user IP, then return addresses. */
static inline const __u64 *cp_sample_user(const struct causalprof_sample *s)
{
	return s->ips + s->nr_kernel;
}

/* Kernel addresses are in the upper half on x86-64. */
#define CP_KERNEL_ADDR(ip)	((ip) >= 0xffff800000000000ULL)

/*
 * Generic netlink, raw sockets (no library between the test and the wire):
 * the client in genl.c, the commands in session.c.
 */
struct cp_nl {
	int fd;
	uint32_t portid;
	uint16_t family;	/* id of "causalprof" */
	uint32_t family_version;
	uint32_t seq;
	char extack[256];	/* extack message of the last request, or "" */
	void *rbuf;		/* receive buffer, CP_NL_RECV_SIZE */
	struct cp_stream *stream;	/* where CAUSALPROF_CMD_RECORDS go; NULL: dropped */
};

/* Large enough for any message: record batches are up to about 64 KiB. */
#define CP_NL_RECV_SIZE	(256 << 10)

/*
 * Requests are built by cprof's own builders (user/request.h): an event is a
 * struct cp_req_event (period 0, freq 0 and a NULL name leave their
 * attribute out), an experiment's range a struct causalprof_exp_range.
 */
#define CP_EV_CPU_CLOCK(hz) \
	((struct cp_req_event){ .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, \
			       .freq = (hz), .name = "cpu-clock" })
#define CP_EV_CYCLES(hz) \
	((struct cp_req_event){ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES, \
			       .freq = (hz), .name = "cycles" })

/* Both stack flags: what cprof record asks for by default. */
#define CP_F_STACKS	(CAUSALPROF_F_USER_STACK | CAUSALPROF_F_KERNEL_STACK)

struct cp_nl_status {
	uint32_t attrs;		/* bit (1 << CAUSALPROF_A_x) per attribute present */
	uint32_t stat_attrs;	/* bit (1 << CAUSALPROF_STAT_x) per counter present */
	char version[32];
	uint32_t state;
	uint64_t session_id;
	uint32_t owner_portid;
	uint32_t owner;		/* enum causalprof_owner */
	uint32_t target_pid;
	uint32_t flags;
	uint64_t stats[CAUSALPROF_STAT_MAX + 1];
};

#define CP_HAS(st, a)		(!!((st)->attrs & (1U << (a))))
#define CP_HAS_STAT(st, s)	(!!((st)->stat_attrs & (1U << (s))))

int cp_genl_lookup(const char *name, uint16_t *id, uint32_t *version);
size_t cp_nla_put(void *buf, size_t off, uint16_t type, const void *data, size_t len);
int cp_nl_open(struct cp_nl *nl);
int cp_nl_request(struct cp_nl *nl, uint8_t cmd, const void *attrs, size_t len,
		  void *reply, size_t size);
void cp_nl_close(struct cp_nl *nl);
int cp_nl_get_status(struct cp_nl *nl, struct cp_nl_status *st);
int cp_nl_start(struct cp_nl *nl, uint32_t pid, uint32_t flags, uint64_t *id);
int cp_nl_start_events(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		       const struct cp_req_event *evs, unsigned int nr, uint64_t *id);
/* The same with CAUSALPROF_A_AGG_ENTRIES (0 leaves it out). */
int cp_nl_start_agg(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		    const struct cp_req_event *evs, unsigned int nr, uint32_t entries,
		    uint64_t *id);
/* And with CAUSALPROF_A_DRAIN_MS (0 leaves it out). */
int cp_nl_start_drain(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		      const struct cp_req_event *evs, unsigned int nr, uint32_t entries,
		      uint32_t drain_ms, uint64_t *id);
int cp_nl_stop(struct cp_nl *nl);
int cp_nl_wait_state(struct cp_nl *nl, uint32_t state, int timeout_ms);
int cp_nl_set_rcvbuf(struct cp_nl *nl, int bytes);
int cp_nl_pump(struct cp_nl *nl, int timeout_ms);
int cp_nl_pump_until_exit(struct cp_nl *nl, struct cp_target *t, int timeout_ms);
int cp_nl_finish(struct cp_nl *nl, int timeout_ms);
/*
 * A session owner in a forked child that dies with the test: a session with
 * both stacks on pid, cpu-clock at freq Hz. It writes the start's result
 * (int) to fd, then its port id (uint32_t), and receives its records
 * (reads) or lets them pile up until killed. Its pid, or -errno.
 */
pid_t cp_owner_spawn(pid_t pid, unsigned int freq, bool reads, int fd);
int cp_record(struct cp_nl *nl, struct cp_target *t, char *const argv[], uint32_t flags,
	      const struct cp_req_event *evs, unsigned int nr, int timeout_ms);

/*
 * /proc/causalprof/experiment (procfs.c), read whole into text (size at least a few
 * KiB) with a '\n' in front, so that every key is found as "\nKEY: ".
 */
#define CP_EXPERIMENT	CP_PROC_DIR "/experiment"
int cp_exp_read(char *text, size_t size);
/* The same of any file (/proc/causalprof/progress), read whole. */
int cp_read_text(const char *path, char *text, size_t size);
int cp_exp_i64(const char *text, const char *key, int64_t *val);
/* The line "task: TID LOCAL PAID PAYMENTS" of tid; -ENOENT without one. */
int cp_exp_task(const char *text, pid_t tid, int64_t *local, int64_t *paid, int *payments);

/* Another process's memory, through /proc/PID/mem (process.c). */
int cp_peek(pid_t pid, uint64_t addr, void *buf, size_t len);
int cp_peek_u64(pid_t pid, uint64_t addr, uint64_t *val);

/* CLOCK_MONOTONIC in milliseconds and in nanoseconds, and a sleep of ms (util.c). */
int64_t cp_now_ms(void);
uint64_t cp_now_ns(void);
void cp_sleep_ms(int ms);

/* The median of n values; sorts them (util.c). */
double cp_median(double *v, int n);

/* Nested attributes, for tests that build requests by hand (genl.c) */
size_t cp_nla_nest_start(void *buf, size_t off, uint16_t type, size_t *start);
void cp_nla_nest_end(void *buf, size_t start, size_t off);

/* Experiments and progress points over netlink, the session owner's socket (session.c) */
/* Ranges' pids are in the caller's pid namespace. */
int cp_nl_experiment_start(struct cp_nl *nl, uint32_t speedup, const struct causalprof_exp_range *r,
			   unsigned int nr);
int cp_nl_experiment_stop(struct cp_nl *nl);
/* end_offset 0 leaves CAUSALPROF_PP_A_END_OFFSET out */
int cp_nl_progress_add(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
		       uint64_t offset, uint64_t end_offset);
/* ... with CAUSALPROF_PP_A_VISIT_NS / _END_VISIT_NS (0: left out) */
int cp_nl_progress_add_cost(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			    uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			    uint32_t end_visit_ns);
/* Probes of several sites each (CAUSALPROF_PP_A_SITES, _END_SITES); nr_end 0: no end. */
int cp_nl_progress_add_sites(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			     const uint64_t *offsets, unsigned int nr,
			     const uint64_t *end_offsets, unsigned int nr_end);
/* The same, bit i of checks (end_checks) set for a site at a Go stack check's jbe. */
int cp_nl_progress_add_checks(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			      const uint64_t *offsets, unsigned int nr, uint64_t checks,
			      const uint64_t *end_offsets, unsigned int nr_end, uint64_t end_checks);
int cp_nl_progress_del(struct cp_nl *nl, uint32_t id);
/* GO_HOOKS: nr hooks, kinds[i] at offsets[i] of path, CAUSALPROF_GOHOOK_F_* flags[i]. */
int cp_nl_go_hooks(struct cp_nl *nl, const char *path, const uint32_t *kinds,
		   const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		   unsigned int nr);

/* The n-th (from 0) EXPERIMENT record of the stream, or NULL. */
const struct causalprof_experiment *cp_stream_experiment(const struct cp_stream *s,
							 size_t n);
/* Receive records until the stream holds n EXPERIMENT records, bounded: -ETIMEDOUT. */
int cp_nl_wait_experiments(struct cp_nl *nl, size_t n, int timeout_ms);

/*
 * build/tests/targets/progress (progress points), driven through a command
 * pipe (target.c): "call N THREADS" and more, one line each, answered in one line.
 */
struct cp_prog {
	struct cp_target t;
	int cmd;				/* its command pipe; -1: none */
	pid_t pid;
	uint64_t tp, begin, end;		/* addresses in the process */
	uint64_t off_tp, off_begin, off_end;	/* offsets in the file */
	uint64_t check, off_check;		/* gocheck_jbe (x86-64; else 0) */
	char path[PATH_MAX];
};

void cp_prog_init(struct cp_prog *p);
int cp_prog_spawn(struct cp_prog *p);
/*
 * The progress program at path (a copy of it), held: its pid known, it
 * runs once cp_target_release(&p->t), then says "ready ..." on p->t.out.
 * Addresses and offsets are left 0.
 */
int cp_prog_spawn_held(struct cp_prog *p, const char *path);
void cp_prog_kill(struct cp_prog *p);
int cp_prog_cmd(struct cp_prog *p, const char *cmd, char *reply, size_t size);
/* n calls of tp() by @threads threads: exactly n hits of a point there. */
int cp_prog_call(struct cp_prog *p, long n, int threads);

/* The file offset that addr of process pid maps, from /proc/PID/maps (process.c). */
int cp_file_offset(pid_t pid, uint64_t addr, uint64_t *off);
/* The executable mapping of pid whose path ends in suffix, as a range (process.c). */
int cp_code_range(pid_t pid, const char *suffix, struct causalprof_exp_range *r);
/* The byte at off in file (or a negative errno). */
int cp_byte_at(const char *file, uint64_t off);
/* The byte at addr in process pid's memory, as it executes it. */
int cp_mem_byte(pid_t pid, uint64_t addr);

/* utime + stime of a thread, clock ticks; -1 if it cannot be read. */
long long cp_thread_ticks(pid_t pid, pid_t tid);
/* The thread uses the CPU again within 2 s: it is not left asleep. */
bool cp_thread_runs(pid_t pid, pid_t tid);
/*
 * The module's reference count drops to 0 within 1 s: no causal payment is
 * queued or running (only those hold the module). 0, -EBUSY or -errno.
 */
int cp_module_refs_settle(void);

#endif /* CP_HELPERS_H */
