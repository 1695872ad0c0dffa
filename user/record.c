// SPDX-License-Identifier: GPL-2.0
/*
 * cprof record: start a session on a program, a process or the whole system,
 * write the stream to a recording file as it arrives, stop on a signal or
 * when the target exits, and finish the file with what report needs.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <search.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "array.h"
#include "cprof.h"
#include "events.h"
#include "every.h"
#include "gohooks.h"
#include "ksyms.h"
#include "experiments.h"
#include "nl.h"
#include "options.h"
#include "perfmap.h"
#include "points.h"
#include "visitcost.h"
#include "recording.h"
#include "reporter.h"
#include "symbolize.h"

#define DEFAULT_OUTPUT		"cprof.data"
#define RCVBUF			(32 << 20)
#define MAX_SAMPLE_RATE		"/proc/sys/kernel/perf_event_max_sample_rate"
#define TICK_MS			250	/* status line refresh, target checks */
#define END_WAIT_MS		5000	/* for the END record after SESSION_STOP */
#define MAX_SCOPES		64	/* --source-scope, --binary-scope each */
#define XP_MIN_MS		100	/* an experiment's length: at first, at least */
#define XP_MAX_MS		3200	/* and at most */
#define XP_TARGET_VISITS	5	/* per experiment and progress point */
#define DENIED_SHOWN		8	/* DENIED records told one by one at the end */
#define E2E_RUNS		20	/* --end-to-end without --runs */
#define CAUSAL_NICE		10	/* cprof's own, in causal mode */
#define EVERY_FREQ		99	/* --every's default -F, as perf users know it */
#define EVERY_KEEP		360	/* --every's default --keep: an hour of 10 s profiles */
#define EVERY_SYM_CACHE		256	/* --every's default --symbol-cache, MiB */
/*
 * --every: the module drains the session's rings this seldom (and at each
 * cut, asked, and whenever one is half full): cprof sleeps in between.
 */
#define EVERY_DRAIN_MS		10000
/*
 * --every's aggregation tables: room for 99 Hz and more (a table half full
 * is drained at once), and a set of 8 x 128 stacks sent per CPU, which
 * every interval carries; stacks beyond it are sent again when counted.
 */
#define EVERY_AGG_ENTRIES	128
/* --every: room for the first interval's recording to start with, bytes */
#define EVERY_FIRST_LEN		(256 << 10)
#define STR(x)			#x
#define XSTR(x)			STR(x)

enum record_opt {
	OPT_EVENT = 'e', OPT_COUNT = 'c', OPT_FREQ = 'F', OPT_PID = 'p', OPT_ALL_CPUS = 'a',
	OPT_OUTPUT = 'o',
	OPT_NO_CALLCHAIN = CP_OPT_LONG, OPT_NO_INHERIT, OPT_CAUSAL, OPT_PROGRESS, OPT_LATENCY,
	OPT_SOURCE_SCOPE, OPT_BINARY_SCOPE, OPT_FIXED_LINE, OPT_FIXED_SPEEDUP,
	OPT_END_TO_END, OPT_RUNS, OPT_NO_GO, OPT_EVERY, OPT_KEEP, OPT_RAW, OPT_NO_SYMBOLIZE, OPT_SYM_CACHE,
	OPT_OFF_CPU,
};

static const struct cp_opt opts[] = {
	CP_OPT(OPT_EVENT, "event", "EV[,EV...]",
	       "events to sample (repeatable, at most 8); default\n"
	       "cycles, or cpu-clock if the machine has no PMU;\n"
	       "off-cpu: the off-CPU waits (alone: nothing sampled)"),
	CP_OPT(OPT_OFF_CPU, "off-cpu", NULL,
	       "also record where threads wait: each time one blocks\n"
	       "or sleeps, its stacks and how long it was off its CPU\n"
	       "(waiting, then waiting for a CPU), and why (io,\n"
	       "futex, sleep, other); see Documentation/off-cpu.rst"),
	CP_OPT(OPT_COUNT, "count", "N", "one sample every N events"),
	CP_OPT(OPT_FREQ, "freq", "HZ",
	       "samples per second per CPU (default " XSTR(CAUSALPROF_DEFAULT_FREQ) ", at most\n"
	       "kernel.perf_event_max_sample_rate)"),
	CP_OPT(OPT_NO_CALLCHAIN, "no-callchain", NULL,
	       "sample the interrupted address only, no stacks"),
	CP_OPT(OPT_NO_INHERIT, "no-inherit", NULL,
	       "do not follow the target's new child processes"),
	CP_OPT(OPT_RAW, "raw", NULL,
	       "one record per sample, with its time (default: samples\n"
	       "counted in the kernel by thread and stack, each stack\n"
	       "sent once; --causal always records them raw)"),
	CP_OPT(OPT_PID, "pid", "PID", "sample the running process PID"),
	CP_OPT(OPT_ALL_CPUS, "all-cpus", NULL,
	       "sample the whole system (with CMD: while it runs)"),
	CP_OPT(OPT_OUTPUT, "output", "FILE", "write to FILE (default " DEFAULT_OUTPUT ")"),
	CP_OPT_HELP,
	CP_OPT_TEXT("\nAlways-on profiling:"),
	CP_OPT(OPT_EVERY, "every", "INTERVAL",
	       "cut the session into intervals (10s, 1m, 500ms, 2h;\n"
	       "100 ms to a day) and write each as a gzipped pprof,\n"
	       "DIR/cprof-YYYYMMDDTHHMMSSZ.pb.gz named by its start\n"
	       "(UTC; with milliseconds for a sub-second INTERVAL);\n"
	       "-o names the directory (made if missing); one event;\n"
	       "-F defaults to " XSTR(EVERY_FREQ) " Hz. SIGINT or SIGTERM writes the\n"
	       "interval under way and ends"),
	CP_OPT(OPT_KEEP, "keep", "N",
	       "with --every: keep the newest N profiles in DIR, remove\n"
	       "older ones (default " XSTR(EVERY_KEEP) "; 0 keeps them all)"),
	CP_OPT(OPT_NO_SYMBOLIZE, "no-symbolize", NULL,
	       "with --every: profiles with addresses, mappings and\n"
	       "build ids only, for a store or go tool pprof to name\n"
	       "from the binaries (nothing is opened or read to name)"),
	CP_OPT(OPT_SYM_CACHE, "symbol-cache", "MIB",
	       "with --every: what is kept from interval to interval\n"
	       "to name functions (the files' symbols, lines and\n"
	       "names) is held to about MIB MiB, the least recently\n"
	       "used files dropped first (default " XSTR(EVERY_SYM_CACHE) "; 0: no bound)"),
	CP_OPT_TEXT("\nCausal profiling (see 'cprof report --causal' and Documentation/causal.rst):"),
	CP_OPT(OPT_CAUSAL, "causal", NULL,
	       "run experiments until the program exits: each speeds\n"
	       "up one source line virtually (0-100 %) by delaying the\n"
	       "other threads, and measures the progress points"),
	CP_OPT(OPT_PROGRESS, "progress", "SPEC",
	       "a throughput point (repeatable): FUNC (its calls),\n"
	       "FUNC%return (its returns: every exit, no uretprobe),\n"
	       "LIB:FUNC, FILE:LINE or sdt:PROVIDER:NAME (a USDT probe)"),
	CP_OPT(OPT_LATENCY, "latency", "NAME=BEGIN,END",
	       "a latency point from two SPECs (repeatable), e.g.\n"
	       "NAME=FUNC,FUNC%return: the time spent in FUNC\n"
	       "Without either: the program's cprof.h points\n"
	       "(CPROF_PROGRESS, CPROF_BEGIN/END) and coz.h counters"),
	CP_OPT(OPT_SOURCE_SCOPE, "source-scope", "GLOB",
	       "lines of matching source files only (repeatable;\n"
	       "default: every source file)"),
	CP_OPT(OPT_BINARY_SCOPE, "binary-scope", "GLOB",
	       "code of matching files only (repeatable; default:\n"
	       "the programs' executables, not their libraries)"),
	CP_OPT(OPT_FIXED_LINE, "fixed-line", "FILE:LINE",
	       "experiment on this line only (FILE: a path suffix)"),
	CP_OPT(OPT_FIXED_SPEEDUP, "fixed-speedup", "PCT",
	       "every experiment at this speedup (0-100)"),
	CP_OPT(OPT_END_TO_END, "end-to-end", NULL,
	       "run CMD again and again, one experiment per run, the\n"
	       "run's end its progress point (no --progress needed)"),
	CP_OPT(OPT_RUNS, "runs", "N",
	       "with --end-to-end: N runs (default " XSTR(E2E_RUNS) ")"),
	CP_OPT(OPT_NO_GO, "no-go", NULL,
	       "in a Go program, follow threads only, not goroutines\n"
	       "(no hooks in its runtime; see Documentation/go.rst)"),
	CP_OPT_TEXT("In causal mode the event is cpu-clock (the delays are time)."),
	CP_OPT_END
};

static const struct cp_usage usage = {
	.name = "cprof record",
	.usage =
	"usage: cprof record [-e EV[,EV...]] [-c N | -F HZ] [--off-cpu] [--no-callchain]\n"
	"                    [--no-inherit] [--raw] [-p PID | -a] [-o FILE] [[--] CMD [ARGS...]]\n"
	"       cprof record --every INTERVAL [--keep N] [--no-symbolize]\n"
	"                    [--symbol-cache MIB] [-e EV] [-c N | -F HZ] [--no-callchain]\n"
	"                    [--no-inherit] [--raw] -o DIR {-p PID | -a | [--] CMD [ARGS...]}\n"
	"       cprof record --causal [--progress SPEC]... [--latency NAME=SPEC,SPEC]...\n"
	"                    [--source-scope GLOB]... [--binary-scope GLOB]...\n"
	"                    [--fixed-line FILE:LINE] [--fixed-speedup PCT] [--no-go]\n"
	"                    [-F HZ] [-o FILE] {-p PID | [--] CMD [ARGS...]}\n"
	"       cprof record --causal --end-to-end [--runs N] [causal options]\n"
	"                    [-F HZ] [-o FILE] [--] CMD [ARGS...]\n",
	.about =
	"Sample a command (started by cprof and followed into its children), a\n"
	"running process (-p) or the whole system (-a), until the command or the\n"
	"process exits or cprof gets SIGINT or SIGTERM, and write the samples, call\n"
	"stacks and what is needed to name their functions to FILE (with the\n"
	"/tmp/perf-PID.map of every process that ran JIT code).\n",
	.opts = opts,
	.notes =
	"Events: cycles, instructions, cache-references, cache-misses, branches\n"
	"(branch-instructions), branch-misses, cpu-clock, rNNNN (raw: hex umask and\n"
	"event select as perf spells them, e.g. r01c2), and the pprof++ names\n"
	"cacheReferences, cacheMisses, branchMisses; and off-cpu, which is not\n"
	"sampled: every wait is recorded (the module's max_off_cpu_rate caps them).\n"
	"\n"
	"Exit status: the command's (128+N if signal N killed it; with --end-to-end\n"
	"the last failing run's); with -p or -a without a command, 0; 1 on failure\n"
	"or when no causal experiment completed, 2 on a usage error.\n",
	.in_order = true,
};

/* A process with anonymous executable memory, whose JIT may name it. */
struct jit_proc {
	uint32_t pid;
	uid_t uid;		/* its owner, when first seen */
};

/* Records of a session whose id the START reply has not told yet. */
struct early_batch {
	uint64_t session_id;
	size_t len;
	void *recs;
};

struct record {
	const char *prog;

	/* What to do */
	struct cp_events events;
	bool default_event;
	uint64_t period;
	uint32_t freq;
	uint32_t flags;
	pid_t pid;
	const char *output;
	char **cmd;

	/* --every: the session in intervals, each a pprof in the output directory */
	bool every_on;
	struct cp_every every;
	bool no_symbolize;
	uint64_t sym_cache;	/* bytes */
	struct cp_reporter *reporter;
	struct cp_reporter_stats rst;
	size_t interval_len;	/* the last interval's recording, bytes */
	int flush_err;		/* the first FLUSH that failed, said */
	int64_t real0;		/* the session's start: real time, ns since the epoch */
	uint64_t mono0;		/* and on the monotonic clock */
	uint64_t cut_mono, next_cut;
	unsigned int failed_intervals, late_cuts;

	/* Causal profiling */
	bool causal;
	const char *progress[CP_MAX_UPROBE_POINTS];
	unsigned int nr_progress;
	const char *latency[CP_MAX_UPROBE_POINTS];
	unsigned int nr_latency;
	struct cp_xp_opts xo;
	const char *source_scope[MAX_SCOPES];
	const char *binary_scope[MAX_SCOPES];
	char exe[PATH_MAX];	/* the main executable */
	struct cp_points points;
	struct cp_visit_cost visit_cost;	/* what a uprobe point's visit costs here */
	struct cp_xp *xp;
	bool no_go;
	struct cp_go_hooks go;	/* a Go program's (go.nr 0: none) */

	/* --end-to-end: a child of cprof runs the command once per byte on go_fd */
	bool e2e;
	unsigned int runs;	/* to do */
	unsigned int runs_begun, runs_ended, runs_bare;	/* bare: no experiment */
	int done_fd;		/* each run's wait status, from the runner */
	bool run_active;
	int run_status;		/* the last run's that failed, or the last run's */

	/* The session */
	struct cp_nl nl;
	uint64_t session_id;
	struct cp_rec_writer w;
	bool writing;		/* the file has its META: records go to it */
	struct early_batch *early;
	size_t nr_early;
	int early_err;
	uint64_t *aligned;	/* a batch, copied: netlink aligns it to 4 bytes only */
	size_t aligned_size;
	void *paths;		/* tsearch tree: paths whose build id was recorded */
	const void *vdso;	/* cprof's own vDSO, once looked up */
	size_t vdso_len;
	bool vdso_looked;
	struct jit_proc *jits;	/* processes with anonymous code */
	size_t nr_jits, cap_jits;
	uint64_t t_start, t_end;	/* CLOCK_MONOTONIC ns */

	/* What came */
	bool end_seen;
	uint64_t samples, lost, sideband;
	uint64_t waits, waits_lost;	/* off-CPU: recorded, not (LOST records) */
	uint64_t end_waits, end_waits_lost, end_capped;
	struct causalprof_denied denied[DENIED_SHOWN];	/* the first DENIED */
	uint64_t nr_denied;
	uint64_t end_samples, end_lost;
	uint64_t bad_batches, foreign;

	/* The target */
	pid_t child;
	int go_fd;		/* the held child execs when a byte comes */
	int pidfd;
	bool gone;		/* the command or the -p process exited */
	bool reaped;
	int status;		/* the child's, from waitpid() */
	bool tty;
};

static volatile sig_atomic_t signals;
static sigset_t run_mask;	/* the mask ppoll() waits with: signals let in */

static void on_signal(int sig)
{
	(void)sig;
	signals++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool parse_u64(const char *s, uint64_t *val)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*val = strtoull(s, &end, 10);
	return !errno && !*end;
}

static void event_list(const struct cp_events *evs, char *buf, size_t size)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < evs->nr && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s", i ? "," : "", evs->ev[i].name);
}

/* -F above what the kernel (or the module) samples at: say so, and use that. */
static void clamp_freq(struct record *r)
{
	uint64_t max = CAUSALPROF_MAX_FREQ, sysctl;
	const char *why = "the module's maximum";
	char buf[32];
	FILE *f;

	f = fopen(MAX_SAMPLE_RATE, "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			if (parse_u64(buf, &sysctl) && sysctl && sysctl <= max) {
				max = sysctl;
				why = "kernel.perf_event_max_sample_rate";
			}
		}
		fclose(f);
	}
	if (r->freq <= max)
		return;
	fprintf(stderr, "%s: -F %" PRIu32 " is above %s (%" PRIu64 "); sampling at %" PRIu64 " Hz\n",
		r->prog, r->freq, why, max, max);
	r->freq = max;
}

#define OFF_CPU_EVENT	"off-cpu"

/*
 * -e's list: off-cpu asks for the off-CPU waits, which are not a perf event
 * (CAUSALPROF_F_OFF_CPU); the others go to cp_events_parse(). -EINVAL with
 * the reason in @err.
 */
static int parse_events(struct record *r, const char *list, char *err, size_t errlen)
{
	char rest[1024];
	size_t off = 0, len;
	const char *p, *end;

	if (!*list || strlen(list) >= sizeof(rest))
		return cp_events_parse(&r->events, list, err, errlen);
	for (p = list; ; p = end + 1) {
		end = strchrnul(p, ',');
		len = end - p;
		if (!len) {
			snprintf(err, errlen, "empty event name in '%s'", list);
			return -EINVAL;
		}
		if (len == strlen(OFF_CPU_EVENT) && !memcmp(p, OFF_CPU_EVENT, len)) {
			r->flags |= CAUSALPROF_F_OFF_CPU;
		} else {
			off += snprintf(rest + off, sizeof(rest) - off, "%s%.*s", off ? "," : "",
					(int)len, p);
		}
		if (!*end)
			break;
	}
	return off ? cp_events_parse(&r->events, rest, err, errlen) : 0;
}

/* The options into @r: 0, 2 (a usage error) or -1 (--help printed: done). */
static int parse_args(struct record *r, int argc, char *argv[])
{
	struct cp_getopt g = { .u = &usage };
	bool freq_given = false, count_given = false, output_given = false, keep_given = false;
	bool raw = false, events_given = false, off_cpu;
	uint64_t interval = 0, keep = EVERY_KEEP, cache = EVERY_SYM_CACHE;
	bool cache_given = false;
	char err[512];
	uint64_t val;
	unsigned int i;
	int c;

	r->flags = CAUSALPROF_F_USER_STACK | CAUSALPROF_F_KERNEL_STACK;
	r->output = DEFAULT_OUTPUT;
	r->freq = CAUSALPROF_DEFAULT_FREQ;
	r->xo = (struct cp_xp_opts){
		.source_scope = r->source_scope,
		.binary_scope = r->binary_scope,
		.fixed_speedup = -1,
		.min_ns = XP_MIN_MS * 1000000ULL,
		.max_ns = XP_MAX_MS * 1000000ULL,
		.target_visits = XP_TARGET_VISITS,
	};
	/* in order: the command's own options are its own */
	while ((c = cp_getopt(&g, argc, argv)) > 0) {
		switch ((enum record_opt)c) {
		case OPT_EVENT:
			if (parse_events(r, optarg, err, sizeof(err)))
				return cp_usage_error(&usage, "-e: %s", err);
			events_given = true;
			break;
		case OPT_OFF_CPU:
			r->flags |= CAUSALPROF_F_OFF_CPU;
			break;
		case OPT_COUNT:
			if (!parse_u64(optarg, &val) || !val)
				return cp_usage_error(&usage, "-c takes a positive count, not '%s'",
						   optarg);
			r->period = val;
			count_given = true;
			break;
		case OPT_FREQ:
			if (!parse_u64(optarg, &val) || !val || val > UINT32_MAX)
				return cp_usage_error(&usage, "-F takes a positive frequency in Hz, not '%s'",
						   optarg);
			r->freq = val;
			freq_given = true;
			break;
		case OPT_RAW:
			raw = true;
			break;
		case OPT_NO_CALLCHAIN:
			r->flags &= ~(CAUSALPROF_F_USER_STACK | CAUSALPROF_F_KERNEL_STACK);
			break;
		case OPT_NO_INHERIT:
			r->flags |= CAUSALPROF_F_NO_INHERIT;
			break;
		case OPT_PID:
			if (!parse_u64(optarg, &val) || !val || val > INT_MAX)
				return cp_usage_error(&usage, "-p takes a process id, not '%s'", optarg);
			r->pid = val;
			break;
		case OPT_ALL_CPUS:
			r->flags |= CAUSALPROF_F_SYSTEM_WIDE;
			break;
		case OPT_OUTPUT:
			if (!*optarg)
				return cp_usage_error(&usage, "-o takes a file name");
			r->output = optarg;
			output_given = true;
			break;
		case OPT_CAUSAL:
			r->causal = true;
			break;
		case OPT_PROGRESS:
			if (r->nr_progress == ARRAY_SIZE(r->progress))
				return cp_usage_error(&usage, "more than 16 --progress (at %s)", optarg);
			r->progress[r->nr_progress++] = optarg;
			break;
		case OPT_LATENCY:
			if (r->nr_latency == ARRAY_SIZE(r->latency))
				return cp_usage_error(&usage, "more than 16 --latency (at %s)", optarg);
			r->latency[r->nr_latency++] = optarg;
			break;
		case OPT_SOURCE_SCOPE:
			if (r->xo.nr_source_scope == MAX_SCOPES)
				return cp_usage_error(&usage, "more than 64 --source-scope (at %s)", optarg);
			r->source_scope[r->xo.nr_source_scope++] = optarg;
			break;
		case OPT_BINARY_SCOPE:
			if (r->xo.nr_binary_scope == MAX_SCOPES)
				return cp_usage_error(&usage, "more than 64 --binary-scope (at %s)", optarg);
			r->binary_scope[r->xo.nr_binary_scope++] = optarg;
			break;
		case OPT_FIXED_LINE:
			r->xo.fixed_line = optarg;
			break;
		case OPT_FIXED_SPEEDUP:
			if (!parse_u64(optarg, &val) || val > 100)
				return cp_usage_error(&usage, "--fixed-speedup takes a percentage from 0 to 100, not '%s'",
						   optarg);
			r->xo.fixed_speedup = val;
			break;
		case OPT_NO_GO:
			r->no_go = true;
			break;
		case OPT_END_TO_END:
			r->e2e = true;
			break;
		case OPT_RUNS:
			if (!parse_u64(optarg, &val) || !val || val > 1000000)
				return cp_usage_error(&usage, "--runs takes a number of runs from 1 to 1000000, not '%s'",
						   optarg);
			r->runs = val;
			break;
		case OPT_EVERY:
			if (cp_every_parse_interval(optarg, &interval))
				return cp_usage_error(&usage, "--every takes an interval from 100ms to 24h (such as 10s, 1m, 500ms), not '%s'",
						   optarg);
			r->every_on = true;
			break;
		case OPT_KEEP:
			if (!parse_u64(optarg, &keep) || keep > 1000000)
				return cp_usage_error(&usage, "--keep takes a number of profiles from 0 to 1000000, not '%s'",
						   optarg);
			keep_given = true;
			break;
		case OPT_NO_SYMBOLIZE:
			r->no_symbolize = true;
			break;
		case OPT_SYM_CACHE:
			if (!parse_u64(optarg, &cache) || cache > 1048576)
				return cp_usage_error(&usage, "--symbol-cache takes a size in MiB from 0 to 1048576, not '%s'",
						   optarg);
			cache_given = true;
			break;
		}
	}
	if (c < 0)
		return g.status ? g.status : -1;
	if (optind < argc)
		r->cmd = argv + optind;

	if (count_given && freq_given)
		return cp_usage_error(&usage, "-c and -F exclude each other");
	if (r->pid && (r->flags & CAUSALPROF_F_SYSTEM_WIDE))
		return cp_usage_error(&usage, "-p and -a exclude each other");
	if (r->pid && r->cmd)
		return cp_usage_error(&usage, "-p takes no command (got '%s')", r->cmd[0]);
	if (!r->pid && !(r->flags & CAUSALPROF_F_SYSTEM_WIDE) && !r->cmd)
		return cp_usage_error(&usage, "nothing to sample: give a command, -p PID or -a");
	if (!r->causal && (r->nr_progress || r->nr_latency || r->xo.nr_source_scope ||
			   r->xo.nr_binary_scope || r->xo.fixed_line || r->xo.fixed_speedup >= 0))
		return cp_usage_error(&usage, "causal options without --causal: progress points, scopes and fixed experiments go with --causal");
	if (r->e2e && !r->causal)
		return cp_usage_error(&usage, "--end-to-end goes with --causal");
	if (r->no_go && !r->causal)
		return cp_usage_error(&usage, "--no-go goes with --causal");
	if (r->runs && !r->e2e)
		return cp_usage_error(&usage, "--runs goes with --end-to-end");
	if (r->e2e && !r->cmd)
		return cp_usage_error(&usage, "--end-to-end runs a command: give one, not -p");
	if (r->e2e && !r->runs)
		r->runs = E2E_RUNS;
	r->xo.end_to_end = r->e2e;
	off_cpu = r->flags & CAUSALPROF_F_OFF_CPU;
	if (off_cpu && r->causal)
		return cp_usage_error(&usage, "--off-cpu and --causal exclude each other: experiments do not speed waits up (yet)");
	if (off_cpu && r->every_on)
		return cp_usage_error(&usage, "--off-cpu and --every exclude each other");
	if (off_cpu && events_given && !r->events.nr && (count_given || freq_given))
		return cp_usage_error(&usage, "-e off-cpu alone samples nothing: %s goes with a sampled event (-e cpu-clock,off-cpu)",
				      count_given ? "-c" : "-F");
	if (r->causal && (r->flags & CAUSALPROF_F_SYSTEM_WIDE))
		return cp_usage_error(&usage, "--causal profiles a command or a process (-p), not -a");
	if (r->causal && r->events.nr &&
	    (r->events.nr != 1 || r->events.ev[0].type != PERF_TYPE_SOFTWARE ||
	     r->events.ev[0].config != PERF_COUNT_SW_CPU_CLOCK))
		return cp_usage_error(&usage, "--causal samples cpu-clock only (the delays are time), not -e %s",
				   r->events.ev[0].name);
	if (r->causal && count_given)
		return cp_usage_error(&usage, "--causal samples by frequency (-F), not -c");
	if (r->causal && !r->events.nr)
		cp_events_parse(&r->events, "cpu-clock", err, sizeof(err));
	if (keep_given && !r->every_on)
		return cp_usage_error(&usage, "--keep goes with --every");
	if (r->no_symbolize && !r->every_on)
		return cp_usage_error(&usage, "--no-symbolize goes with --every ('cprof report' names what 'cprof record' recorded)");
	if (cache_given && !r->every_on)
		return cp_usage_error(&usage, "--symbol-cache goes with --every");
	if (cache_given && r->no_symbolize)
		return cp_usage_error(&usage, "--symbol-cache and --no-symbolize exclude each other");
	r->sym_cache = cache << 20;
	if (r->every_on && r->causal)
		return cp_usage_error(&usage, "--every and --causal exclude each other");
	if (r->every_on && !output_given)
		return cp_usage_error(&usage, "--every writes into a directory: give it with -o DIR");
	if (r->every_on && r->events.nr > 1)
		return cp_usage_error(&usage, "--every writes one profile per interval: give one event, not -e %s",
				   r->events.ev[1].name);
	/* Causal mode draws its lines from recent samples: it needs them raw. */
	if (!raw && !r->causal)
		r->flags |= CAUSALPROF_F_AGGREGATE;
	if (r->every_on) {
		cp_every_init(&r->every, r->prog, r->output, interval, keep);
		if (!freq_given)
			r->freq = EVERY_FREQ;
	}

	/* -e off-cpu alone: nothing is sampled. */
	if (!r->events.nr && !(off_cpu && events_given)) {
		cp_events_parse(&r->events, "cycles", err, sizeof(err));
		r->default_event = true;
	}
	if (count_given)
		r->freq = 0;
	else
		clamp_freq(r);
	for (i = 0; i < r->events.nr; i++) {
		r->events.ev[i].period = r->period;
		r->events.ev[i].freq = r->freq;
	}
	return 0;
}

/* The file execvp() would run for @cmd, as an absolute path, into @out. */
static int find_command(const char *cmd, char *out)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	size_t len;

	if (strchr(cmd, '/'))
		return realpath(cmd, out) ? 0 : -errno;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		len = end - p;
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "", cmd) <
		    (int)sizeof(buf) && !access(buf, X_OK) && realpath(buf, out))
			return 0;
		if (!*end)
			return -ENOENT;
	}
}

/*
 * Causal mode, before anything starts: the main executable and, in a Go
 * program, its runtime's hooks (a Go the hooks do not know is refused),
 * the progress points (a spec that resolves nowhere is a usage error), the
 * experiment loop. Returns 0, 1 (failure) or 2 (usage error).
 */
static int setup_causal(struct record *r)
{
	char link[64], err[1024];
	unsigned int i;
	int ret;

	if (r->cmd) {
		ret = find_command(r->cmd[0], r->exe);
		if (ret) {
			fprintf(stderr, "%s: cannot run '%s': %s\n", r->prog, r->cmd[0],
				strerror(-ret));
			return 1;
		}
	} else {
		snprintf(link, sizeof(link), "/proc/%d/exe", r->pid);
		if (!realpath(link, r->exe)) {
			fprintf(stderr, "%s: cannot find the executable of process %d: %s\n",
				r->prog, r->pid, strerror(errno));
			return 1;
		}
	}
	if (!r->no_go) {
		ret = cp_go_hooks_find(r->exe, &r->go, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", r->prog, err);
			return 1;
		}
	}
	cp_points_init(&r->points);
	for (i = 0; i < r->nr_progress; i++) {
		ret = cp_points_add_progress(&r->points, r->progress[i], r->exe, err, sizeof(err));
		if (ret)
			goto bad;
	}
	for (i = 0; i < r->nr_latency; i++) {
		ret = cp_points_add_latency(&r->points, r->latency[i], r->exe, err, sizeof(err));
		if (ret)
			goto bad;
	}
	if (r->e2e) {
		if (cp_points_add_runs(&r->points)) {
			fprintf(stderr, "%s: out of memory\n", r->prog);
			return 1;
		}
	} else if (!r->nr_progress && !r->nr_latency) {
		ret = cp_points_discover(&r->points, r->exe, r->cmd, err, sizeof(err));
		if (ret)
			goto bad;
	}
	ret = cp_xp_new(&r->xp, &r->xo, r->exe, &r->nl, &r->w, &r->points, err, sizeof(err));
	if (ret)
		goto bad;
	return 0;
bad:	/* a spec or a line that resolves nowhere is a usage error */
	if (ret != -ENOMEM)
		return cp_usage_error(&usage, "%s", err);
	fprintf(stderr, "%s: %s\n", r->prog, err);
	return 1;
}

static volatile pid_t run_pid;

static void runner_on_signal(int sig)
{
	if (run_pid > 0)
		kill(run_pid, sig);
	_exit(128 + sig);
}

/*
 * --end-to-end, in the child cprof forked (the session's target): run the
 * command once per byte that comes on @go, each time in a new process (the
 * session follows it as a child of its target), and write each run's wait
 * status to @done. SIGTERM or SIGHUP end the run and the runner; SIGINT
 * (^C reaches the whole process group) is the run's business, and its end
 * is reported as any.
 */
static void runner(struct record *r, int go, int done)
{
	struct sigaction sa = { .sa_handler = runner_on_signal };
	sigset_t empty;
	int status;
	pid_t pid;
	char c;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);
	while (read(go, &c, 1) == 1) {
		pid = fork();
		if (pid < 0)
			_exit(127);
		if (!pid) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			execvp(r->cmd[0], r->cmd);
			fprintf(stderr, "%s: cannot run '%s': %s\n", r->prog, r->cmd[0],
				strerror(errno));
			_exit(127);
		}
		run_pid = pid;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		run_pid = 0;
		if (write(done, &status, sizeof(status)) != sizeof(status))
			_exit(1);
	}
	_exit(0);
}

/*
 * The command, forked now and held on a pipe: it execs only once the session
 * follows it, so it is sampled from its first instruction. With
 * --end-to-end, the runner instead, which runs it when told to.
 */
static int spawn_held(struct record *r)
{
	sigset_t empty;
	int fds[2], done[2] = { -1, -1 };
	char go;

	if (pipe2(fds, O_CLOEXEC) || (r->e2e && pipe2(done, O_CLOEXEC))) {
		fprintf(stderr, "%s: cannot make a pipe: %s\n", r->prog, strerror(errno));
		return -1;
	}
	fflush(NULL);
	r->child = fork();
	if (r->child < 0) {
		fprintf(stderr, "%s: cannot fork: %s\n", r->prog, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		if (r->e2e) {
			close(done[0]);
			close(done[1]);
		}
		return -1;
	}
	if (!r->child) {
		close(fds[1]);
		if (r->e2e) {
			close(done[0]);
			runner(r, fds[0], done[1]);
		}
		if (read(fds[0], &go, 1) != 1)
			_exit(127);	/* cprof gave up: the session did not start */
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		if (r->causal && cp_points_child_env(&r->points))
			_exit(127);
		execvp(r->cmd[0], r->cmd);
		fprintf(stderr, "%s: cannot run '%s': %s\n", r->prog, r->cmd[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	r->go_fd = fds[1];
	if (r->e2e) {
		close(done[1]);
		r->done_fd = done[0];
	}
	return 0;
}

/* The command's exit status as a shell gives it. */
static int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/*
 * --end-to-end: the next run, once the last one's experiment is complete;
 * after the last run, closing the pipe ends the runner (the target).
 */
static void next_run(struct record *r)
{
	char go = 'g';

	if (r->run_active || r->go_fd < 0 || !cp_xp_ready(r->xp))
		return;
	if (r->runs_begun == r->runs) {
		close(r->go_fd);
		r->go_fd = -1;
		return;
	}
	if (write(r->go_fd, &go, 1) != 1) {
		fprintf(stderr, "%s: cannot start run %u: %s\n", r->prog, r->runs_begun + 1,
			strerror(errno));
		close(r->go_fd);
		r->go_fd = -1;
		return;
	}
	r->runs_begun++;
	r->run_active = true;
	cp_xp_run_begin(r->xp);
}

/* --end-to-end: a run ended, its wait status on done_fd. */
static void run_ended(struct record *r)
{
	int status;
	ssize_t n = read(r->done_fd, &status, sizeof(status));

	if (n != sizeof(status)) {
		/* The runner is gone: its exit ends the recording. */
		close(r->done_fd);
		r->done_fd = -1;
		return;
	}
	r->run_active = false;
	r->runs_ended++;
	if (child_exit_code(status)) {
		if (!child_exit_code(r->run_status))
			fprintf(stderr, "%s%s: run %u of '%s' exited with status %d\n",
				r->tty ? "\r\033[K" : "", r->prog, r->runs_ended, r->cmd[0],
				child_exit_code(status));
		r->run_status = status;
	}
	cp_points_run_ended(&r->points);
	if (!cp_xp_run_end(r->xp, now_ns()))
		r->runs_bare++;
}

static void release_child(struct record *r)
{
	char go = 'g';

	if (r->e2e) {
		next_run(r);
		return;
	}
	if (r->go_fd < 0)
		return;
	if (write(r->go_fd, &go, 1) != 1)
		fprintf(stderr, "%s: cannot start '%s': %s\n", r->prog, r->cmd[0], strerror(errno));
	close(r->go_fd);
	r->go_fd = -1;
}

static bool reap_child(struct record *r, bool block)
{
	pid_t got;

	if (r->child <= 0 || r->reaped)
		return r->reaped;
	do
		got = waitpid(r->child, &r->status, block ? 0 : WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == r->child)
		r->reaped = true;
	return r->reaped;
}

/* Has the command or the -p process exited? For when there is no pidfd. */
static bool target_exited(struct record *r)
{
	if (r->child > 0)
		return reap_child(r, false);
	if (r->pid)
		return kill(r->pid, 0) && errno == ESRCH;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* --every: a BUILDID record goes into every interval from now on. */
static void carry_buildid(struct record *r, const void *head, size_t id_len, const char *path)
{
	size_t len = sizeof(struct causalprof_record_hdr) + 8 + id_len + strlen(path) + 1;
	struct causalprof_record_hdr *h;
	size_t size = (len + 7) & ~(size_t)7;

	h = calloc(1, size);
	if (!h) {
		r->w.err = -ENOMEM;
		return;
	}
	h->type = CP_REC_BUILDID;
	h->size = size;
	memcpy(h + 1, head, 8 + id_len);
	memcpy((char *)(h + 1) + 8 + id_len, path, strlen(path) + 1);
	if (cp_every_note(&r->every, h))
		r->w.err = -ENOMEM;
	free(h);
}

/* The build id of a mapped file, the first time the stream names it. */
static void write_buildid(struct record *r, const char *path)
{
	struct {
		uint32_t id_size;
		uint32_t pad;
		uint8_t id[CP_BUILD_ID_MAX];
	} head = { 0 };
	struct iovec iov[3];
	char *copy;
	int len;

	if (tfind(path, &r->paths, cmp_str))
		return;
	copy = strdup(path);
	if (!copy || !tsearch(copy, &r->paths, cmp_str)) {
		free(copy);
		return;
	}
	len = cp_elf_build_id(path, head.id, sizeof(head.id));
	if (len <= 0)
		return;
	head.id_size = len;
	iov[0] = (struct iovec){ .iov_base = &head, .iov_len = 8 };
	iov[1] = (struct iovec){ .iov_base = head.id, .iov_len = len };
	iov[2] = (struct iovec){ .iov_base = (void *)path, .iov_len = strlen(path) + 1 };
	cp_rec_putv(&r->w, CP_REC_BUILDID, 0, iov, 3);
	if (r->every_on)
		carry_buildid(r, &head, len, path);
}

/*
 * A process with anonymous code: its perf map is copied at the end. Its
 * owner is taken now, while it runs, to check the map's.
 */
static void note_jit(struct record *r, uint32_t pid)
{
	char path[32];
	struct stat st;
	size_t i;

	for (i = 0; i < r->nr_jits; i++)
		if (r->jits[i].pid == pid)
			return;
	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &st))
		st.st_uid = getuid();
	if (CP_RESERVE(r->jits, r->cap_jits, r->nr_jits, 1))
		return;
	r->jits[r->nr_jits++] = (struct jit_proc){ .pid = pid, .uid = st.st_uid };
}

/* The perf maps of the processes with anonymous code, as they are now. */
static void write_perfmaps(struct record *r)
{
	char err[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < r->nr_jits; i++)
		if (cp_perfmap_copy(&r->w, r->jits[i].pid, r->jits[i].uid, err, sizeof(err)) < 0)
			fprintf(stderr, "%s: warning: %s: its JIT code will not be named\n",
				r->prog, err);
}

/* A batch of our session's records: count them, and write them. */
/*
 * Writes a batch's records as they came, in runs as long as possible: one
 * write for a whole batch unless an MMAP's BUILDID record goes in between.
 */
static void take_batch(struct record *r, const unsigned char *p, size_t len)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_off_cpu_count *w;
	const struct causalprof_denied *d;
	const struct causalprof_count *c;
	const struct causalprof_mmap *m;
	const struct causalprof_lost *l;
	const struct causalprof_end *e;
	const unsigned char *run = p;
	uint32_t size;

	while (len) {
		if (cp_rec_check(p, len, &size) || r->end_seen) {
			/* Malformed, or after the END of the session. */
			r->bad_batches++;
			break;
		}
		h = (const void *)p;
		p += size;
		len -= size;
		if (r->xp && h->type == CAUSALPROF_REC_EXPERIMENT) {
			/* Its CAUSAL record follows it in the file. */
			cp_rec_put_raw(&r->w, run, p - run);
			run = p;
		}
		if (r->xp)
			cp_xp_record(r->xp, h);
		if (r->every_on && ((h->type >= CAUSALPROF_REC_MMAP && h->type <= CAUSALPROF_REC_EXIT) ||
				    h->type == CAUSALPROF_REC_STACK) &&
		    cp_every_note(&r->every, h))
			r->w.err = -ENOMEM;
		switch (h->type) {
		case CAUSALPROF_REC_SAMPLE:
			r->samples++;
			break;
		case CAUSALPROF_REC_COUNT:
			c = cp_rec_count(h);
			if (c)
				r->samples += c->count;
			break;
		case CAUSALPROF_REC_OFF_CPU:
			r->waits++;
			break;
		case CAUSALPROF_REC_OFF_CPU_COUNT:
			w = cp_rec_off_cpu_count(h);
			if (w)
				r->waits += w->count;
			break;
		case CAUSALPROF_REC_LOST:
			l = cp_rec_lost(h);
			if (l && (h->flags & CAUSALPROF_LOST_F_SIDEBAND))
				r->sideband += l->lost;
			else if (l && (h->flags & CAUSALPROF_LOST_F_OFF_CPU))
				r->waits_lost += l->lost;
			else if (l)
				r->lost += l->lost;
			break;
		case CAUSALPROF_REC_MMAP:
			m = cp_rec_mmap(h);
			if (m && m->path[0] == '/' && m->path[1] != '/' &&
			    strncmp(m->path, "/memfd:", 7)) {
				cp_rec_put_raw(&r->w, run, p - run);
				run = p;
				write_buildid(r, m->path);
			} else if (m && (!strcmp(m->path, CAUSALPROF_MMAP_ANON) ||
					 !strncmp(m->path, "/memfd:", 7))) {
				note_jit(r, m->pid);
			}
			break;
		case CAUSALPROF_REC_DENIED:
			d = cp_rec_denied(h);
			if (d && r->nr_denied < DENIED_SHOWN)
				r->denied[r->nr_denied] = *d;
			if (d)
				r->nr_denied++;
			break;
		case CAUSALPROF_REC_END:
			e = cp_rec_end(h);
			r->end_seen = true;
			r->t_end = now_ns();
			if (e) {
				r->end_samples = e->samples;
				r->end_lost = e->lost;
				cp_rec_end_off_cpu(e, &r->end_waits, &r->end_waits_lost,
						   &r->end_capped);
			}
			break;
		}
	}
	if (p > run)
		cp_rec_put_raw(&r->w, run, p - run);
}

static void on_records(struct cp_nl *nl, uint64_t session_id, const void *recs, size_t len,
		       void *arg)
{
	struct record *r = arg;
	struct early_batch *early;

	(void)nl;
	if (r->writing) {
		if (session_id != r->session_id) {
			r->foreign++;
			return;
		}
		/* The module aligns the records to 8 (in a buffer malloc() aligned). */
		if (!((uintptr_t)recs & 7)) {
			take_batch(r, recs, len);
			return;
		}
		if (len > r->aligned_size) {
			free(r->aligned);
			r->aligned = malloc(len);
			r->aligned_size = r->aligned ? len : 0;
			if (!r->aligned) {
				r->w.err = -ENOMEM;
				return;
			}
		}
		memcpy(r->aligned, recs, len);
		take_batch(r, (const unsigned char *)r->aligned, len);
		return;
	}
	/* Before the START reply: keep them until we know our session's id. */
	early = realloc(r->early, (r->nr_early + 1) * sizeof(*early));
	if (!early) {
		r->early_err = -ENOMEM;
		return;
	}
	r->early = early;
	early = &r->early[r->nr_early];
	early->recs = malloc(len ? len : 1);	/* malloc aligns to 8 and more */
	if (!early->recs) {
		r->early_err = -ENOMEM;
		return;
	}
	memcpy(early->recs, recs, len);
	early->len = len;
	early->session_id = session_id;
	r->nr_early++;
}

static void drop_early(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nr_early; i++)
		free(r->early[i].recs);
	free(r->early);
	r->early = NULL;
	r->nr_early = 0;
}

/* Appends "key=value\n", the value with backslashes and newlines escaped. */
static void meta_put(FILE *f, const char *key, const char *val)
{
	fprintf(f, "%s=", key);
	for (; *val; val++) {
		if (*val == '\\')
			fputs("\\\\", f);
		else if (*val == '\n')
			fputs("\\n", f);
		else
			fputc(*val, f);
	}
	fputc('\n', f);
}

/* The command as a shell would take it back. */
static void put_quoted(FILE *f, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-+=.,/:@%";
	const char *s;
	int i;

	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		if (*argv[i] && !argv[i][strspn(argv[i], plain)]) {
			fputs(argv[i], f);
			continue;
		}
		fputc('\'', f);
		for (s = argv[i]; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
}

static int write_meta(struct record *r, const struct timespec *real, uint64_t mono)
{
	char key[64], val[512], host[256] = "";
	struct utsname uts;
	struct tm tm;
	char *text = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f;
	int ret;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	meta_put(f, "cprof_version", CAUSALPROF_VERSION);
	gethostname(host, sizeof(host) - 1);
	meta_put(f, "hostname", host);
	meta_put(f, "kernel_release", uname(&uts) ? "" : uts.release);
	gmtime_r(&real->tv_sec, &tm);
	strftime(val, sizeof(val), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(val + strlen(val), sizeof(val) - strlen(val), ".%03ldZ",
		 real->tv_nsec / 1000000);
	meta_put(f, "start_time", val);
	fprintf(f, "start_monotonic_ns=%" PRIu64 "\n", mono);
	fprintf(f, "session_id=%" PRIu64 "\n", r->session_id);
	if (r->flags & CAUSALPROF_F_SYSTEM_WIDE)
		meta_put(f, "target", "system-wide");
	else
		fprintf(f, "target=%d\n", r->child > 0 ? r->child : r->pid);
	if (r->cmd) {
		fputs("command=", f);
		put_quoted(f, r->cmd);	/* quoted: no newline survives */
		fputc('\n', f);
	}
	if (r->causal)
		meta_put(f, "causal_executable", r->exe);
	if (r->go.nr)
		meta_put(f, "go_hooks", r->go.version[0] ? r->go.version : "unknown");
	fprintf(f, "callchain=%d\n", !!(r->flags & CAUSALPROF_F_USER_STACK));
	fprintf(f, "inherit=%d\n", !(r->flags & CAUSALPROF_F_NO_INHERIT));
	fprintf(f, "flags=0x%" PRIx32 "\n", r->flags);
	if (r->flags & CAUSALPROF_F_OFF_CPU)
		fprintf(f, "off_cpu=1\n");
	fprintf(f, "events=%u\n", r->events.nr);
	for (i = 0; i < r->events.nr; i++) {
		const struct cp_event *ev = &r->events.ev[i];

		snprintf(key, sizeof(key), "event.%u.name", i);
		meta_put(f, key, ev->name);
		fprintf(f, "event.%u.type=%" PRIu32 "\n", i, ev->type);
		fprintf(f, "event.%u.config=0x%" PRIx64 "\n", i, ev->config);
		fprintf(f, "event.%u.period=%" PRIu64 "\n", i, ev->period);
		fprintf(f, "event.%u.freq=%" PRIu32 "\n", i, ev->freq);
	}
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	ret = cp_rec_put(&r->w, CP_REC_META, text, len);
	free(text);
	return ret;
}

/*
 * The vDSO's ELF image, for naming its functions later: every 64-bit process
 * of this kernel maps the same one, so cprof's own will do. Looked up once
 * (--every writes it into every interval).
 */
static void write_vdso(struct record *r)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	char line[256];
	FILE *f;

	if (!r->vdso_looked && base && (f = fopen("/proc/self/maps", "re"))) {
		while (fgets(line, sizeof(line), f)) {
			if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &start, &end) != 2)
				continue;
			if (start == base && end > start && end - start <= (1 << 20)) {
				r->vdso = (const void *)start;
				r->vdso_len = end - start;
			}
			break;
		}
		fclose(f);
	}
	r->vdso_looked = true;
	if (r->vdso)
		cp_rec_put(&r->w, CP_REC_VDSO, r->vdso, r->vdso_len);
}

/* /proc/kallsyms as it is now into *@out (malloc()ed), or NULL with a warning. */
static void read_kallsyms(struct record *r, char **out, size_t *out_len)
{
	int err = cp_ksyms_read("/proc/kallsyms", out, out_len);

	if (err)
		fprintf(stderr, "%s: warning: cannot read /proc/kallsyms (%s): kernel functions will not be named\n",
			r->prog, strerror(-err));
}

/*
 * /proc/kallsyms as it is now, for naming the kernel's functions later (with
 * --every the reporting thread keeps its own).
 */
static void write_kallsyms(struct record *r)
{
	char *buf;
	size_t len;

	read_kallsyms(r, &buf, &len);
	if (buf)
		cp_rec_put(&r->w, CP_REC_KALLSYMS, buf, len);
	free(buf);
}

/* --every: the output directory, made if missing. */
static int every_dir(struct record *r)
{
	struct stat st;

	if (mkdir(r->output, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make the directory %s: %s\n", r->prog, r->output,
			strerror(errno));
		return -1;
	}
	if (stat(r->output, &st) || !S_ISDIR(st.st_mode) || access(r->output, W_OK | X_OK)) {
		fprintf(stderr, "%s: %s is not a directory cprof can write into%s%s\n", r->prog,
			r->output, errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	if (strlen(r->output) + 1 + CP_EVERY_NAME_MAX > PATH_MAX) {
		fprintf(stderr, "%s: the directory name is too long: %s\n", r->prog, r->output);
		return -1;
	}
	return 0;
}

/* --every: the thread that writes the profiles, with the signals blocked. */
static int start_reporter(struct record *r)
{
	int err = cp_reporter_start(&r->reporter, &r->every, !r->no_symbolize, r->sym_cache);

	if (err)
		fprintf(stderr, "%s: cannot start the thread that writes the profiles: %s\n",
			r->prog, strerror(-err));
	return err;
}

/* The real time of @mono: the session's start and the monotonic clock since. */
static int64_t real_of(const struct record *r, uint64_t mono)
{
	return r->real0 + (int64_t)(mono - r->mono0);
}

/*
 * --every: the recording of the interval that started at the last cut (its
 * records wait in the socket while the previous one is finished), in
 * memory: the reporting thread reads it from there. Room for as much as
 * the interval before had, so that it seldom grows.
 */
static int every_begin(struct record *r)
{
	struct timespec real;
	int64_t ns = real_of(r, r->cut_mono);
	int err;

	real.tv_sec = ns / 1000000000;
	real.tv_nsec = ns % 1000000000;
	err = cp_rec_create_mem(&r->w, r->interval_len + r->interval_len / 4);
	if (!err)
		err = write_meta(r, &real, r->cut_mono);
	if (!err) {
		write_vdso(r);
		err = cp_every_put_carry(&r->every, &r->w);
	}
	if (err) {
		fprintf(stderr, "%s: cannot record interval %u: %s\n", r->prog, r->every.index,
			strerror(-err));
		r->w.err = err;	/* what comes until the end goes nowhere */
	}
	return err;
}

/* The processes with anonymous code that have exited: their maps were copied. */
static void forget_jits(struct record *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_jits; i++)
		if (!kill(r->jits[i].pid, 0) || errno != ESRCH)
			r->jits[n++] = r->jits[i];
	r->nr_jits = n;
}

/*
 * --every: the records of the samples taken so far, received. A flush the
 * owner's full queue cut short leaves the rest to the next interval, as
 * the periodic drains would: the profiles still tile the session.
 */
static void every_flush(struct record *r)
{
	int err = cp_nl_flush(&r->nl);

	if (err && err != -ENOBUFS && !r->flush_err) {
		r->flush_err = err;
		cp_nl_perror(&r->nl, "cannot flush the session's records at an interval's end", err);
	}
}

/*
 * --every: the interval ends now; its recording goes to the reporting
 * thread, and unless @last the next one begins at once: the cuts never
 * wait for a report. An interval whose recording cannot be finished is
 * counted and skipped; only a recording that cannot be begun ends the
 * session.
 */
static int every_cut(struct record *r, bool last)
{
	struct cp_every_interval iv = { .index = r->every.index };
	uint64_t now = now_ns(), begun = r->cut_mono, due = r->next_cut;
	int err;

	/*
	 * What the rings hold up to now, into this interval: the module
	 * drains them only when asked, or when one is half full (at the
	 * session's end, stop() had the last of them).
	 */
	if (!last)
		every_flush(r);
	r->cut_mono = now;
	if (!cp_rec_writing(&r->w)) {
		/* Its recording could not be begun: already said. */
		r->failed_intervals++;
	} else {
		write_perfmaps(r);
		forget_jits(r);
		err = cp_rec_finish_mem(&r->w, &iv.data, &iv.len);
		if (err) {
			fprintf(stderr, "%s: cannot record interval %u: %s\n", r->prog, iv.index,
				strerror(-err));
			r->failed_intervals++;
		} else {
			r->interval_len = iv.len;
			iv.start_ns = real_of(r, begun);
			iv.duration_ns = now - begun;
			iv.name_ns = real_of(r, r->mono0 + (begun - r->mono0) /
						r->every.interval_ns * r->every.interval_ns);
			cp_reporter_submit(r->reporter, &iv);
		}
	}
	cp_every_next(&r->every);
	if (last)
		return 0;
	/*
	 * On the beat of the session's start. Only a cprof held up longer
	 * than an interval (stopped, starved) is late by a whole one: that
	 * interval was longer, and says so.
	 */
	r->next_cut += r->every.interval_ns;
	if (r->next_cut <= now) {
		while (r->next_cut <= now)
			r->next_cut += r->every.interval_ns;
		r->late_cuts++;
		fprintf(stderr, "%s: interval %u was cut %.3f s late and lasted %.3f s: cprof itself was held up\n",
			r->prog, iv.index, (now - due) / 1e9, (now - begun) / 1e9);
	}
	return every_begin(r);
}

static void status_line(struct record *r, bool final)
{
	double secs;

	if (!r->tty)
		return;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	secs = (now_ns() - r->t_start) / 1e9;
	if (r->xp) {
		char xp[PATH_MAX + 64];

		cp_xp_status(r->xp, xp, sizeof(xp));
		if (r->e2e)
			fprintf(stderr, "\r\033[K[ causal %.1f s, run %u of %u: %s ]", secs,
				r->runs_begun, r->runs, xp);
		else
			fprintf(stderr, "\r\033[K[ causal %.1f s: %s ]", secs, xp);
		return;
	}
	if (r->flags & CAUSALPROF_F_OFF_CPU)
		fprintf(stderr, "\r\033[K[ recording %.1f s: %" PRIu64 " samples, %" PRIu64 " lost, %" PRIu64 " waits ]",
			secs, r->samples, r->lost, r->waits);
	else
		fprintf(stderr, "\r\033[K[ recording %.1f s: %" PRIu64 " samples, %" PRIu64 " lost ]",
			secs, r->samples, r->lost);
}

/*
 * SESSION_START, once the default event is tried: on a machine without a
 * PMU cycles fails with ENOENT or EOPNOTSUPP, and cpu-clock does instead.
 */
/*
 * Where a Go target keeps its goroutines' labels, for the module to read
 * them at each sample: NULL for a target that is not Go, or whose labels
 * cprof cannot read (said once).
 */
static const struct cp_go_layout *go_layout(struct record *r, struct cp_go_layout *l)
{
	char exe[PATH_MAX], link[64], err[PATH_MAX + 256];
	int ret;

	if (r->flags & CAUSALPROF_F_SYSTEM_WIDE)
		return NULL;
	if (r->child > 0) {
		if (find_command(r->cmd[0], exe))
			return NULL;
	} else {
		snprintf(link, sizeof(link), "/proc/%d/exe", r->pid);
		if (!realpath(link, exe))
			return NULL;
	}
	ret = cp_go_layout_read(exe, l, err, sizeof(err));
	if (ret == -EOPNOTSUPP)
		fprintf(stderr, "%s: no Go labels: %s\n", r->prog, err);
	return ret ? NULL : l;
}

static int start_session(struct record *r)
{
	struct cp_go_layout go;
	struct cp_nl_start start = {
		.flags = r->flags,
		.target_pid = r->child > 0 ? r->child : r->pid,
		.events = &r->events,
		.agg_entries = r->every_on && (r->flags & CAUSALPROF_F_AGGREGATE) ?
			       EVERY_AGG_ENTRIES : 0,
		.go = go_layout(r, &go),
		.drain_ms = r->every_on ? EVERY_DRAIN_MS : 0,
	};
	char what[512], target[64], list[256];
	int err;

	err = cp_nl_session_start(&r->nl, &start, &r->session_id);
	if (err && r->default_event && (err == -ENOENT || err == -EOPNOTSUPP)) {
		fprintf(stderr, "%s: cannot sample cycles (%s); sampling cpu-clock instead\n",
			r->prog, r->nl.err_msg[0] ? r->nl.err_msg : strerror(-err));
		r->events.ev[0].type = PERF_TYPE_SOFTWARE;
		r->events.ev[0].config = PERF_COUNT_SW_CPU_CLOCK;
		snprintf(r->events.ev[0].name, sizeof(r->events.ev[0].name), "cpu-clock");
		err = cp_nl_session_start(&r->nl, &start, &r->session_id);
	}
	if (!err)
		return 0;

	if (r->flags & CAUSALPROF_F_SYSTEM_WIDE)
		snprintf(target, sizeof(target), "the whole system");
	else if (r->child > 0)
		snprintf(target, sizeof(target), "'%s'", r->cmd[0]);
	else
		snprintf(target, sizeof(target), "process %d", r->pid);
	if (err == -ESRCH && !r->child) {
		fprintf(stderr, "%s: no process %d\n", r->prog, r->pid);
		return err;
	}
	event_list(&r->events, list, sizeof(list));
	if (!r->events.nr)
		snprintf(what, sizeof(what), "cannot record the off-CPU waits of %s", target);
	else
		snprintf(what, sizeof(what), "cannot sample %s%s on %s", list,
			 r->flags & CAUSALPROF_F_OFF_CPU ? " and the off-CPU waits" : "", target);
	cp_nl_perror(&r->nl, what, err);
	return err;
}

/* The records that came before the START reply and are ours, in order. */
static void take_early(struct record *r)
{
	size_t i;

	r->writing = true;
	for (i = 0; i < r->nr_early; i++) {
		if (r->early[i].session_id == r->session_id)
			take_batch(r, r->early[i].recs, r->early[i].len);
		else
			r->foreign++;
	}
	drop_early(r);
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Returns 0, or -errno if the stream cannot go on. */
static int receive(struct record *r)
{
	int ret = cp_nl_receive(&r->nl);

	if (ret < 0 && ret != -EAGAIN && ret != -EINTR) {
		fprintf(stderr, "%s: receiving the stream: %s\n", r->prog, strerror(-ret));
		return ret;
	}
	return r->w.err;	/* reported when the file is closed */
}

/*
 * Whether cprof has anything to do on its own every TICK_MS: a status line
 * to refresh, experiments to run, or a target to check on without a pidfd.
 * Without, it sleeps until the stream, the target's exit, a signal or the
 * next interval wakes it: nothing of it runs between two drains.
 */
static bool ticking(const struct record *r)
{
	return r->tty || r->xp || (r->pidfd < 0 && (r->child > 0 || r->pid));
}

/*
 * The poll timeout into *@ts: the status tick, or sooner when an
 * experiment or an interval is due. NULL: none, wait for an event.
 */
static struct timespec *next_wait(struct record *r, struct timespec *ts)
{
	uint64_t ns = UINT64_MAX, due;

	if (ticking(r))
		ns = TICK_MS * 1000000ULL;
	if (r->xp) {
		due = cp_xp_tick(r->xp, now_ns());
		ns = due < ns ? due : ns;
	}
	if (r->every_on) {
		due = r->next_cut > now_ns() ? r->next_cut - now_ns() : 0;
		ns = due < ns ? due : ns;
	}
	if (ns == UINT64_MAX)
		return NULL;
	*ts = (struct timespec){ .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };
	return ts;
}

/*
 * What a visit of a uprobe progress point costs a thread here, which the
 * module counts as a pause (user/visitcost.c, Documentation/causal.rst):
 * measured once, before the points are placed. Without the measure
 * nothing is counted, and the predictions of programs whose visiting
 * thread becomes the bottleneck read low by the traps.
 */
static void measure_visits(struct record *r)
{
	int ret = cp_visit_cost_measure(&r->visit_cost);

	if (ret)
		fprintf(stderr, "%s: cannot measure what a progress point's visit costs here (%s):"
			" the experiments do not count it\n", r->prog, strerror(-ret));
}

/* Until a signal, the target's exit, or the end of the stream. */
static int run(struct record *r)
{
	struct pollfd pfd[3];
	struct timespec wait;
	uint64_t last_status = 0;
	int n, ret;

	while (!signals && !r->gone && !r->end_seen) {
		pfd[0] = (struct pollfd){ .fd = cp_nl_fd(&r->nl), .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = r->e2e ? r->done_fd : -1, .events = POLLIN };
		n = ppoll(pfd, 3, next_wait(r, &wait), &run_mask);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "%s: poll: %s\n", r->prog, strerror(errno));
			return -errno;
		}
		if (n > 0 && pfd[0].revents) {
			ret = receive(r);
			if (ret)
				return ret;
		}
		if (n > 0 && pfd[2].revents)
			run_ended(r);
		if (r->e2e)
			next_run(r);
		if (n > 0 && r->pidfd >= 0 && pfd[1].revents) {
			r->gone = true;
			reap_child(r, false);
		}
		if (r->pidfd < 0 && target_exited(r))
			r->gone = true;
		if (r->every_on && now_ns() >= r->next_cut) {
			ret = every_cut(r, false);
			if (ret)
				return ret;
		}
		if (now_ns() - last_status >= TICK_MS * 1000000ULL) {
			last_status = now_ns();
			status_line(r, false);
		}
	}
	return 0;
}

/* SESSION_STOP, then the rest of the stream up to its END, for a while. */
static int stop(struct record *r)
{
	uint64_t deadline, now;
	struct timespec ts;
	struct pollfd pfd;
	sig_atomic_t seen = signals;
	int err, n;

	if (r->end_seen)
		return 0;
	err = cp_nl_session_stop(&r->nl);
	if (err && err != -ENOENT)
		cp_nl_perror(&r->nl, "cannot stop the session", err);
	if (r->w.err)
		return 0;
	deadline = now_ns() + END_WAIT_MS * 1000000ULL;
	while (!r->end_seen && (now = now_ns()) < deadline && signals == seen) {
		ts.tv_sec = (deadline - now) / 1000000000ULL;
		ts.tv_nsec = (deadline - now) % 1000000000ULL;
		pfd = (struct pollfd){ .fd = cp_nl_fd(&r->nl), .events = POLLIN };
		n = ppoll(&pfd, 1, &ts, &run_mask);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && receive(r))
			break;
	}
	if (!r->end_seen) {
		r->t_end = now_ns();
		fprintf(stderr, "%s: the stream was cut: no END record %s; the recording may miss its last samples\n",
			r->prog,
			signals != seen ? "before the second signal" : "within 5 s of stopping");
	}
	return 0;
}

/*
 * A Go program's hooks, placed by the module: 0, or 1 said why not. Their
 * traps cost what a progress point's do, by the kind of the instruction
 * probed (measure_visits()), and count as pauses the same way.
 */
static int go_hooks(struct record *r)
{
	uint32_t kinds[CAUSALPROF_MAX_GO_HOOKS], cost[CAUSALPROF_MAX_GO_HOOKS];
	uint32_t flags[CAUSALPROF_MAX_GO_HOOKS];
	uint64_t offs[CAUSALPROF_MAX_GO_HOOKS];
	unsigned int i;
	int ret;

	if (!r->go.nr)
		return 0;
	for (i = 0; i < r->go.nr; i++) {
		kinds[i] = r->go.sites[i].kind;
		offs[i] = r->go.sites[i].offset;
		flags[i] = r->go.sites[i].flags;
		cost[i] = cp_visit_cost_of(&r->visit_cost, r->exe, offs[i]);
	}
	ret = cp_nl_go_hooks(&r->nl, r->exe, kinds, offs, cost, flags, r->go.nr);
	if (ret) {
		cp_nl_perror(&r->nl, "cannot place the Go hooks (--no-go goes without)", ret);
		return 1;
	}
	return 0;
}

/*
 * Targets the module stopped changing: they changed credentials (a setuid
 * or setcap program, set*id()) and the user may no longer ptrace them.
 */
static void denied_summary(const struct record *r)
{
	const struct causalprof_denied *d;
	uint64_t i;

	for (i = 0; i < r->nr_denied && i < DENIED_SHOWN; i++) {
		d = &r->denied[i];
		if (d->hdr.flags & CAUSALPROF_DENIED_F_GO)
			fprintf(stderr, "%s: warning: process %" PRIu32 " changed credentials: its goroutines are no longer followed\n",
				r->prog, d->pid);
		else if (d->hdr.flags & CAUSALPROF_DENIED_F_POINT)
			fprintf(stderr, "%s: warning: process %" PRIu32 " changed credentials: progress point %" PRIu32 " no longer counts it\n",
				r->prog, d->pid, d->point);
		else
			fprintf(stderr, "%s: warning: thread %" PRIu32 " of process %" PRIu32 " changed credentials: the experiment no longer delays it\n",
				r->prog, d->tid, d->pid);
	}
	if (r->nr_denied > DENIED_SHOWN)
		fprintf(stderr, "%s: warning: %" PRIu64 " more targets changed credentials\n", r->prog,
			r->nr_denied - DENIED_SHOWN);
}

/* --every: what the reports cost, what was kept to name functions, what was skipped. */
static void every_summary(const struct record *r)
{
	const struct cp_reporter_stats *st = &r->rst;

	if (st->reports)
		fprintf(stderr, "%s: %u reports: the first %.3f s of CPU, then %.3f s each (at most %.3f s)",
			r->prog, st->reports, st->first_cpu,
			st->reports > 1 ? (st->sum_cpu - st->first_cpu) / (st->reports - 1) : 0.0,
			st->max_cpu);
	if (st->reports && !r->no_symbolize)
		fprintf(stderr, "; symbols kept: %zu files, %.1f MiB (cap %.0f MiB), %" PRIu64 " opened, %" PRIu64 " evicted; kallsyms read %u times",
			st->sym.files, st->sym.bytes / 1048576.0, r->sym_cache / 1048576.0,
			st->sym.opens, st->sym.evictions, st->kallsyms_reads);
	if (st->reports)
		fprintf(stderr, "; carried from interval to interval: %.1f MiB, %.1f MiB of it stacks (at most %.1f MiB)\n",
			r->every.carry_bytes / 1048576.0, r->every.stack_bytes / 1048576.0,
			r->every.carry_peak / 1048576.0);
	if (r->late_cuts)
		fprintf(stderr, "%s: warning: %u intervals were cut late (cprof was held up): each says how long it lasted\n",
			r->prog, r->late_cuts);
	if (st->skipped)
		fprintf(stderr, "%s: WARNING: %u intervals skipped: their reports could not keep up (try a longer --every or --no-symbolize)\n",
			r->prog, st->skipped);
}

/* The off-CPU waits: what came, and what the module did not record. */
static void waits_summary(const struct record *r)
{
	uint64_t lost = r->end_seen ? r->end_waits_lost : r->waits_lost;

	if (r->end_seen && r->end_waits > r->waits)
		lost += r->end_waits - r->waits;
	fprintf(stderr, ", %" PRIu64 " off-CPU waits (%" PRIu64 " not recorded)", r->waits, lost);
}

/* Why off-CPU waits were not recorded, and what to do. */
static void waits_warning(const struct record *r)
{
	uint64_t lost = r->end_seen ? r->end_waits_lost : r->waits_lost;

	if (r->end_seen && r->end_waits > r->waits)
		lost += r->end_waits - r->waits;
	if (!lost)
		return;
	fprintf(stderr, "%s: WARNING: %" PRIu64 " off-CPU waits not recorded (%.1f%%)", r->prog,
		lost, 100.0 * lost / (lost + r->waits));
	if (r->end_capped)
		fprintf(stderr, ", %" PRIu64 " of them over the module's max_off_cpu_rate",
			r->end_capped);
	fputs("; see Documentation/off-cpu.rst\n", stderr);
}

static void summary(struct record *r)
{
	uint64_t lost = r->end_seen ? r->end_lost : r->lost;
	struct stat st;
	double secs;

	/* What the kernel counted but never reached us is lost too. */
	if (r->end_seen && r->end_samples > r->samples)
		lost += r->end_samples - r->samples;
	secs = (r->t_end - r->t_start) / 1e9;
	fprintf(stderr, "%s: recorded %" PRIu64 " samples (%" PRIu64 " lost)", r->prog, r->samples,
		lost);
	if (r->flags & CAUSALPROF_F_OFF_CPU)
		waits_summary(r);
	fprintf(stderr, " in %.2f s", secs);
	if (r->every_on)
		fprintf(stderr, ", %u profiles into %s", r->rst.written, r->output);
	else if (!stat(r->output, &st))
		fprintf(stderr, ", %s (%.1f MiB)", r->output, st.st_size / 1048576.0);
	fputs("\n", stderr);
	if (r->every_on)
		every_summary(r);
	if (r->failed_intervals)
		fprintf(stderr, "%s: %u intervals could not be written\n", r->prog,
			r->failed_intervals);
	if (lost)
		fprintf(stderr, "%s: WARNING: %" PRIu64 " samples lost (%.1f%%): the stream did not keep up; try a lower -F, a larger -c or fewer events\n",
			r->prog, lost, 100.0 * lost / (lost + r->samples));
	waits_warning(r);
	if (r->sideband)
		fprintf(stderr, "%s: warning: %" PRIu64 " MMAP, COMM, FORK or EXIT records lost: some samples may not be named\n",
			r->prog, r->sideband);
	if (r->bad_batches)
		fprintf(stderr, "%s: warning: %" PRIu64 " malformed record batches from the module were cut\n",
			r->prog, r->bad_batches);
	if (r->nl.bad_msgs)
		fprintf(stderr, "%s: warning: %" PRIu64 " malformed RECORDS messages were ignored\n",
			r->prog, r->nl.bad_msgs);
	denied_summary(r);
}

/* Causal mode's end: experiments done, what went wrong; true when none ran. */
static bool causal_summary(struct record *r)
{
	char warn[512], thin[3 * PATH_MAX];
	unsigned int done = cp_xp_done(r->xp, warn, sizeof(warn));

	fprintf(stderr, "%s: %u causal experiments; see them with 'cprof report --causal%s%s'\n",
		r->prog, done, strcmp(r->output, DEFAULT_OUTPUT) ? " -i " : "",
		strcmp(r->output, DEFAULT_OUTPUT) ? r->output : "");
	if (warn[0])
		fprintf(stderr, "%s: %s%s\n", r->prog, done ? "warning: " : "", warn);
	cp_xp_thin(r->xp, thin, sizeof(thin));
	if (done && thin[0])
		fprintf(stderr, "%s: not an answer yet%s (experiments above 0 %%, of about 60 a curve needs: run longer)\n",
			r->prog, thin);
	if (r->e2e) {
		fprintf(stderr, "%s: %u of %u runs done", r->prog, r->runs_ended, r->runs);
		if (r->runs_bare)
			fprintf(stderr, ", %u of them ended before their experiment could start (no sample in scope yet)",
				r->runs_bare);
		fputs("\n", stderr);
	} else if (!done && !warn[0]) {
		fprintf(stderr, "%s: no experiment completed: the program ran too briefly (each needs %d ms or more)\n",
			r->prog, XP_MIN_MS);
	}
	return !done;
}

static int setup_signals(sigset_t *saved)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, saved))
		return -errno;
	run_mask = *saved;
	sigdelset(&run_mask, SIGINT);
	sigdelset(&run_mask, SIGTERM);
	sigdelset(&run_mask, SIGHUP);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

static void restore_signals(const sigset_t *saved)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, saved, NULL);
}

int cmd_record(int argc, char *argv[])
{
	struct record r = { .prog = argv[0], .go_fd = -1, .pidfd = -1, .done_fd = -1 };
	struct timespec real;
	sigset_t saved;
	uint64_t mono;
	bool no_xp = false;
	int ret, err, got, code;

	ret = parse_args(&r, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (r.causal) {
		ret = setup_causal(&r);
		if (ret)
			goto out_free_causal;
	}
	ret = 1;
	r.tty = isatty(STDERR_FILENO);
	if (r.every_on && every_dir(&r))
		goto out_free_causal;

	err = cp_nl_open(&r.nl);
	if (err) {
		cp_nl_open_perror(err);
		goto out_free_causal;
	}
	err = cp_nl_stream_init(&r.nl, on_records, &r, RCVBUF, &got);
	if (err) {
		fprintf(stderr, "%s: cannot set up the netlink socket: %s\n", r.prog,
			strerror(-err));
		goto out_close_nl;
	}
	if (setup_signals(&saved)) {
		fprintf(stderr, "%s: cannot block signals: %s\n", r.prog, strerror(errno));
		goto out_close_nl;
	}
	if (r.every_on && start_reporter(&r))
		goto out_reap;
	if (r.cmd && spawn_held(&r))
		goto out_reap;
	/*
	 * Causal mode measures the program's speed: cprof, which runs beside
	 * it, yields the CPU to its threads (the command, forked already,
	 * keeps its priority). Best effort.
	 */
	if (r.causal && setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + CAUSAL_NICE))
		fprintf(stderr, "%s: cannot lower cprof's priority: %s\n", r.prog, strerror(errno));

	if (start_session(&r))
		goto out_reap;
	/* The kernel doubles what it is asked for, and reports that. */
	if (got < RCVBUF)
		fprintf(stderr, "%s: the receive buffer is only %d KiB (SO_RCVBUFFORCE needs CAP_NET_ADMIN; net.core.rmem_max caps the rest): samples may be lost under load\n",
			r.prog, got / 2048);
	clock_gettime(CLOCK_REALTIME, &real);
	mono = r.t_start = now_ns();
	r.real0 = real.tv_sec * 1000000000LL + real.tv_nsec;
	r.mono0 = mono;
	err = r.every_on ? cp_rec_create_mem(&r.w, EVERY_FIRST_LEN) : cp_rec_create(&r.w, r.output);
	if (!err)
		err = write_meta(&r, &real, mono);
	if (err || r.early_err) {
		if (r.every_on)
			fprintf(stderr, "%s: cannot record interval 0: %s\n", r.prog,
				strerror(-(err ? err : r.early_err)));
		else
			fprintf(stderr, "%s: cannot write %s: %s\n", r.prog, r.output,
				strerror(-(err ? err : r.early_err)));
		cp_nl_session_stop(&r.nl);
		if (cp_rec_writing(&r.w))
			cp_rec_finish(&r.w);
		goto out_reap;
	}
	write_vdso(&r);
	if (r.every_on) {
		r.cut_mono = mono;
		r.next_cut = mono + r.every.interval_ns;
	}
	take_early(&r);
	if (r.causal && (r.points.nr_uprobes || r.go.nr))
		measure_visits(&r);
	if (r.causal && (cp_points_register(&r.points, &r.nl, &r.w, &r.visit_cost) ||
			 go_hooks(&r))) {
		cp_nl_session_stop(&r.nl);
		cp_rec_finish(&r.w);
		goto out_reap;
	}

	if (r.child > 0 || r.pid) {
		r.pidfd = open_pidfd(r.child > 0 ? r.child : r.pid);
		if (r.pid && r.pidfd < 0 && errno == ESRCH)
			r.gone = true;
	}
	release_child(&r);

	err = run(&r);
	status_line(&r, true);
	if (r.xp)
		cp_xp_finish(r.xp);
	stop(&r);
	if (r.every_on) {
		every_cut(&r, true);
		cp_reporter_stop(r.reporter, &r.rst);
		r.reporter = NULL;
		r.failed_intervals += r.rst.failed;
	} else {
		write_perfmaps(&r);
		write_kallsyms(&r);
		err = cp_rec_finish(&r.w) ?: err;
		if (r.w.err)
			fprintf(stderr, "%s: cannot write %s: %s\n", r.prog, r.output,
				strerror(-r.w.err));
	}
	summary(&r);
	ret = err || r.failed_intervals ? 1 : 0;
	no_xp = r.xp && causal_summary(&r);

out_reap:
	/* The file is done: a signal from here on may end cprof, as usual. */
	restore_signals(&saved);
	if (r.child > 0) {
		if (r.go_fd >= 0) {
			/* The held command (or the runner, between runs) gives up. */
			close(r.go_fd);
			r.go_fd = -1;
			if (r.run_active && !reap_child(&r, false))
				kill(r.child, SIGTERM);	/* the runner ends its run */
		} else if (!reap_child(&r, false)) {
			kill(r.child, SIGTERM);
		}
		reap_child(&r, true);
		/* A command that failed says more than no experiment. */
		code = child_exit_code(r.e2e ? r.run_status : r.status);
		if (!ret)
			ret = code ? code : no_xp;
	} else if (!ret && no_xp) {
		ret = 1;
	}
	if (r.done_fd >= 0)
		close(r.done_fd);
	if (r.pidfd >= 0)
		close(r.pidfd);
	drop_early(&r);
	free(r.aligned);
	tdestroy(r.paths, free);
	free(r.jits);
	cp_reporter_stop(r.reporter, NULL);
	cp_every_free(&r.every);
out_close_nl:
	cp_nl_close(&r.nl);
out_free_causal:
	cp_xp_free(r.xp);
	cp_points_free(&r.points);
	return ret;
}
