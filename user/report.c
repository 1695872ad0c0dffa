// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report: a recording as a top table by function, by source line or
 * by thread, or as pprof profiles (one per event).
 *
 * The off-CPU waits of a session (cprof record --off-cpu) are an event of
 * their own here, off-cpu (after the session's), weighted by their time,
 * and with a time event (cpu-clock) a wall event too, the sum of both; in
 * pprof they are sample types of the time event's profile.
 *
 * The recording is read twice, in file order, never whole in memory. The
 * first pass checks every record (any damage stops the report with exit
 * status 2, unless --force) and keeps the sideband, which is replayed into
 * the processes' mappings and thread names through time (user/replay.c);
 * the second resolves each sample against the state of its moment into the
 * profile (user/resolve.c). Lost samples are booked on a [lost samples]
 * frame so that the totals are those of everything the session sampled.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "array.h"
#include "causal.h"
#include "cprof.h"
#include "options.h"
#include "pprof.h"
#include "replay.h"
#include "report.h"
#include "resolve.h"
#include "stacks.h"

#define DEFAULT_INPUT	"cprof.data"
#define NR_EVENTS	256	/* a sample's event is a u8 */
/* Pages of the recording read this long ago leave memory. */
#define RELEASE_EVERY	(4 << 20)

enum report_opt {
	OPT_INPUT = 'i', OPT_EVENT = 'e', OPT_PPROF = 'o', OPT_VERBOSE = 'v',
	OPT_LINES = CP_OPT_LONG, OPT_THREADS, OPT_LABELS, OPT_SYMFS, OPT_FORCE, OPT_FRACTION,
	OPT_CAUSAL, OPT_TOP, OPT_COZ, OPT_COZ_JSONL, OPT_PLOT, OPT_TAG,
};

static const struct cp_opt opts[] = {
	CP_OPT(OPT_INPUT, "input", "FILE", "read FILE (default " DEFAULT_INPUT ")"),
	CP_OPT(OPT_LINES, "lines", NULL, "by source line instead of by function"),
	CP_OPT(OPT_THREADS, "threads", NULL, "by thread"),
	CP_OPT(OPT_FRACTION, "node-fraction", "F",
	       "leave out nodes under F of the total (default 0.005,\n"
	       "as pprof; 0 keeps them all)"),
	CP_OPT(OPT_EVENT, "event", "EV",
	       "only event EV (its name, or its index); off-cpu: the\n"
	       "waits of 'cprof record --off-cpu', wall: the time\n"
	       "event's samples and the waits"),
	CP_OPT(OPT_PPROF, "pprof", "OUT",
	       "write a gzipped pprof profile to OUT ('-': stdout);\n"
	       "with several events one per event, OUT.EVENT.pb.gz\n"
	       "(OUT without its .pb.gz suffix); with --causal, each\n"
	       "line's impact (hundredths of a percent; one file per\n"
	       "progress point, OUT.N.pb.gz for the second on)"),
	CP_OPT(OPT_LABELS, "labels", NULL, "pprof samples get pid, tid and comm labels"),
	CP_OPT(OPT_TAG, "tag", "KEY=VALUE",
	       "only the samples of Go programs whose goroutine had\n"
	       "the pprof label KEY with VALUE"),
	CP_OPT(OPT_SYMFS, "symfs", "DIR", "look for the recorded programs and libraries in DIR"),
	CP_OPT(OPT_FORCE, "force", NULL,
	       "report a truncated or corrupt recording up to the\n"
	       "damage instead of failing"),
	CP_OPT(OPT_CAUSAL, "causal", NULL,
	       "the causal profile of a 'cprof record --causal'\n"
	       "recording: per progress point, the lines ranked by\n"
	       "impact, each with the program speedup predicted at\n"
	       "every line speedup measured"),
	CP_OPT(OPT_TOP, "top", "N", "with --causal: the N lines of most impact (default 10)"),
	CP_OPT(OPT_VERBOSE, "verbose", NULL,
	       "with --causal: also each experiment's delay\n"
	       "accounting (inserted, paid, overshoot, credited to\n"
	       "waits, inherited, still owed)"),
	CP_OPT(OPT_COZ, "coz", "FILE",
	       "write the causal experiments in Coz's profile.coz\n"
	       "format (its viewer reads it), with or without --causal"),
	CP_OPT(OPT_COZ_JSONL, "coz-jsonl", "FILE", "the same in Coz's JSON-lines format"),
	CP_OPT(OPT_PLOT, "plot", "FILE",
	       "a chart per top line (9 at most) of each progress\n"
	       "point: program speedup against line speedup, with\n"
	       "intervals and a fitted curve; SVG, or a page if FILE\n"
	       "ends in .html (self-contained)"),
	CP_OPT_HELP,
	CP_OPT_END
};

static const struct cp_usage usage = {
	.name = "cprof report",
	.usage =
	"usage: cprof report [-i FILE] [--lines | --threads] [--event EV] [--force]\n"
	"                    [--node-fraction F] [--symfs DIR] [--tag KEY=VALUE]\n"
	"       cprof report [-i FILE] --pprof OUT [--labels] [--event EV] [--force]\n"
	"                    [--symfs DIR] [--tag KEY=VALUE]\n"
	"       cprof report [-i FILE] --causal [-v] [--top N] [--coz FILE] [--coz-jsonl FILE]\n"
	"                    [--plot FILE.svg|FILE.html] [--pprof OUT]\n",
	.about =
	"Summarize a recording made by 'cprof record': for each event, the weight of\n"
	"its samples (nanoseconds for cpu-clock, events otherwise) by function, as\n"
	"'pprof -top' shows it, or write it as pprof profiles. Functions are named\n"
	"from the programs and their debug files (/usr/lib/debug/.build-id/,\n"
	".gnu_debuglink, debuginfod with DEBUGINFOD_URLS), JIT code from the perf maps\n"
	"the recording holds; C++ and Rust names demangled; code nothing names as\n"
	"FILE+0xOFFSET, the file offset of its function's start. The samples of a Go\n"
	"program carry its goroutines' pprof labels: pprof profiles have them as\n"
	"string labels (go tool pprof -tags, -tagfocus), --tag filters by one.\n"
	"The off-CPU waits of 'cprof record --off-cpu' are the event off-cpu, by\n"
	"their time, and with cpu-clock wall is both; in pprof, sample types of\n"
	"the cpu-clock profile (-sample_index=off-cpu, wait, sched-delay, wall).\n",
	.opts = opts,
	.notes =
	"Exit status: 0 success; 1 failure (cannot read, cannot write); 2 usage error,\n"
	"or a truncated or corrupt recording (without --force).\n",
};

enum event_kind {
	EV_SAMPLED,		/* an event of the session's */
	EV_OFF_CPU,		/* the off-CPU waits */
	EV_WALL,		/* the time event's samples and the waits */
};

struct event {
	enum event_kind kind;
	char name[64];
	uint32_t type;
	uint64_t config, period;
	uint32_t freq;
	const char *unit;
	uint64_t samples, weight;	/* read (off-cpu: waits, their time) */
	uint64_t wait;			/* off-cpu: of weight, the time waiting */
	uint64_t lost, lost_weight;	/* estimated */
	char *path;			/* its pprof file */
};

enum damage {
	DAMAGE_NONE,
	DAMAGE_TRUNCATED,
	DAMAGE_CORRUPT,
};

struct report {
	const struct cp_report_opts *o;
	struct cp_rec_reader *rd;

	/* META */
	char *meta[8];
	unsigned int nr_real;		/* the session's events */
	bool events_known;		/* META said how many */
	struct event ev[NR_EVENTS];
	unsigned int nr_events;		/* with off-cpu and wall */

	/* Off-CPU waits (META's off_cpu, or their records) */
	bool off_cpu;
	int off_ev, wall_ev, time_ev;	/* their events, the time event's; -1 none */
	uint64_t waits, off_lost;	/* read; lost as LOST records say */
	uint64_t end_off, end_off_lost, end_off_capped;
	uint64_t reason_ns[__CAUSALPROF_OFF_CPU_REASONS];
	uint64_t reason_waits[__CAUSALPROF_OFF_CPU_REASONS];
	struct causalprof_sample *wbuf;	/* an OFF_CPU record as a sample */
	size_t wbuf_size;

	const struct causalprof_record_hdr *kallsyms, *vdso;
	const struct causalprof_record_hdr **perfmaps;
	size_t nr_perfmaps, cap_perfmaps;
	bool end_seen;
	uint64_t end_time, end_samples, end_lost, lost, sideband_lost, skipped, samples;
	uint64_t first_time, last_time;	/* of the records with a time */
	const struct causalprof_experiment **exps;	/* listed in the header */
	size_t nr_exps;
	unsigned int max_event;		/* + 1, of the samples */

	enum damage damage;
	char why[256];

	struct cp_profile prof;
	struct cp_replay replay;
	struct cp_stacks stacks;	/* of the STACK records */
	struct cp_ksyms *ks;		/* its own, or NULL */
	struct cp_symbolizer *sym;	/* its own, or the caller's */
	struct cp_resolver res;
};

static const char *const meta_keys[] = {
	"cprof_version", "hostname", "kernel_release", "start_time", "target", "command",
	"start_monotonic_ns",
};

static const char *meta(const struct report *r, const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(meta_keys); i++)
		if (!strcmp(key, meta_keys[i]))
			return r->meta[i];
	return NULL;
}

static bool parse_u64(const char *s, size_t len, int base, uint64_t *v)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || *s == '-' || *s == '+' || *s == ' ')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, base);
	return !errno && !*end;
}

/* One META line's "event.I.FIELD=VALUE". */
static void take_event_key(struct report *r, const char *key, const char *val, size_t len)
{
	unsigned int i;
	struct event *ev;
	uint64_t v;
	int n = 0;
	char field[16];

	if (sscanf(key, "event.%u.%15[a-z]%n", &i, field, &n) != 2 || key[n] || i >= NR_EVENTS)
		return;
	ev = &r->ev[i];
	if (!strcmp(field, "name")) {
		if (len >= sizeof(ev->name))
			len = sizeof(ev->name) - 1;
		memcpy(ev->name, val, len);
		ev->name[len] = '\0';
	} else if (!strcmp(field, "type") && parse_u64(val, len, 10, &v)) {
		ev->type = v;
	} else if (!strcmp(field, "config") && parse_u64(val, len, 0, &v)) {
		ev->config = v;
	} else if (!strcmp(field, "period") && parse_u64(val, len, 10, &v)) {
		ev->period = v;
	} else if (!strcmp(field, "freq") && parse_u64(val, len, 10, &v)) {
		ev->freq = v;
	}
}

static int take_meta(struct report *r, const struct causalprof_record_hdr *h)
{
	size_t len, i, klen;
	const char *text = cp_rec_text(h, &len), *line, *end, *eq;
	uint64_t v;
	char key[64];

	for (line = text; line < text + len; line = end + 1) {
		end = memchr(line, '\n', text + len - line);
		if (!end)
			end = text + len;
		eq = memchr(line, '=', end - line);
		if (!eq || (size_t)(eq - line) >= sizeof(key))
			continue;
		klen = eq - line;
		memcpy(key, line, klen);
		key[klen] = '\0';
		for (i = 0; i < ARRAY_SIZE(meta_keys); i++) {
			if (strcmp(key, meta_keys[i]))
				continue;
			free(r->meta[i]);
			r->meta[i] = strndup(eq + 1, end - eq - 1);
			if (!r->meta[i])
				return -ENOMEM;
		}
		if (!strcmp(key, "events") && parse_u64(eq + 1, end - eq - 1, 10, &v) &&
		    v <= NR_EVENTS - 2) {
			r->nr_real = v;
			r->events_known = true;
		}
		if (!strcmp(key, "off_cpu") && parse_u64(eq + 1, end - eq - 1, 10, &v) && v)
			r->off_cpu = true;
		take_event_key(r, key, eq + 1, end - eq - 1);
	}
	return 0;
}

static const char *type_name(uint16_t type)
{
	switch (type) {
	case CAUSALPROF_REC_SAMPLE:	return "SAMPLE";
	case CAUSALPROF_REC_MMAP:	return "MMAP";
	case CAUSALPROF_REC_COMM:	return "COMM";
	case CAUSALPROF_REC_FORK:	return "FORK";
	case CAUSALPROF_REC_EXIT:	return "EXIT";
	case CAUSALPROF_REC_LOST:	return "LOST";
	case CAUSALPROF_REC_END:	return "END";
	case CAUSALPROF_REC_EXPERIMENT:	return "EXPERIMENT";
	case CAUSALPROF_REC_STACK:	return "STACK";
	case CAUSALPROF_REC_COUNT:	return "COUNT";
	case CAUSALPROF_REC_DENIED:	return "DENIED";
	case CAUSALPROF_REC_OFF_CPU:	return "OFF_CPU";
	case CAUSALPROF_REC_OFF_CPU_COUNT: return "OFF_CPU_COUNT";
	case CP_REC_BUILDID:		return "BUILDID";
	case CP_REC_PERFMAP:		return "PERFMAP";
	}
	return "record";
}

/*
 * A record that cannot be what its type says: damage (reading stops), or
 * with --force one more record skipped. Returns true to stop.
 */
static bool malformed(struct report *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool malformed(struct report *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->o->force) {
		r->skipped++;
		return false;
	}
	n = snprintf(r->why, sizeof(r->why), "corrupt record at offset %" PRIu64 ": ", off);
	va_start(ap, fmt);
	vsnprintf(r->why + n, sizeof(r->why) - n, fmt, ap);
	va_end(ap);
	r->damage = DAMAGE_CORRUPT;
	return true;
}

static void note_time(struct report *r, const struct causalprof_record_hdr *h)
{
	uint64_t t;

	if (!cp_rec_time(h, &t))
		return;
	if (!r->first_time || t < r->first_time)
		r->first_time = t;
	if (t > r->last_time)
		r->last_time = t;
}

/*
 * The sample(s) of a SAMPLE or COUNT record report can use (the same
 * checks in both passes): *count samples of total weight s->period.
 */
static const struct causalprof_sample *usable_sample(struct report *r,
						    const struct causalprof_record_hdr *h,
						    uint64_t *count)
{
	const struct causalprof_sample *s = NULL;
	const struct causalprof_count *c;

	*count = 1;
	if (h->type == CAUSALPROF_REC_COUNT) {
		c = cp_rec_count(h);
		if (c && c->count) {
			s = cp_stacks_sample(&r->stacks, c);
			*count = c->count;
		}
	} else {
		s = cp_rec_sample(h);
	}
	if (!s || (s->event >= r->nr_real && r->events_known))
		return NULL;
	return s;
}

/* One wait, or the waits of an OFF_CPU_COUNT, as report uses them. */
struct wait {
	const struct causalprof_sample *s;	/* its stack; period: its time off */
	uint64_t count;
	uint64_t wait;		/* of s->period, the time waiting */
	uint8_t reason;
};

/*
 * The waits of an OFF_CPU or OFF_CPU_COUNT record (the same checks in
 * both passes): false if it has none report can use, or no memory (*err).
 */
static bool usable_wait(struct report *r, const struct causalprof_record_hdr *h,
			struct wait *w, int *err)
{
	const struct causalprof_off_cpu_count *c;
	const struct causalprof_off_cpu *o;
	struct causalprof_sample *s;
	size_t n, size;

	*err = 0;
	if (h->type == CAUSALPROF_REC_OFF_CPU_COUNT) {
		c = cp_rec_off_cpu_count(h);
		if (!c || !c->count || !(w->s = cp_stacks_off_cpu(&r->stacks, c)))
			return false;
		w->count = c->count;
		w->wait = c->wait_ns;
		w->reason = c->reason;
	} else {
		o = cp_rec_off_cpu(h);
		if (!o)
			return false;
		n = (size_t)o->nr_kernel + o->nr_user;
		size = sizeof(*s) + n * sizeof(s->ips[0]);
		if (size > r->wbuf_size) {
			s = realloc(r->wbuf, size);
			if (!s) {
				*err = -ENOMEM;
				return false;
			}
			r->wbuf = s;
			r->wbuf_size = size;
		}
		s = r->wbuf;
		*s = (struct causalprof_sample){
			.hdr = { .type = CAUSALPROF_REC_SAMPLE, .size = size },
			.time_ns = o->time_ns, .period = o->wait_ns + o->delay_ns,
			.pid = o->pid, .tid = o->tid, .cpu = o->cpu, .sflags = o->sflags,
			.nr_kernel = o->nr_kernel, .nr_user = o->nr_user,
		};
		memcpy(s->ips, o->ips, n * sizeof(s->ips[0]));
		w->s = s;
		w->count = 1;
		w->wait = o->wait_ns;
		w->reason = o->reason;
	}
	/* A reason a later module knows: other, to this cprof. */
	if (w->reason >= __CAUSALPROF_OFF_CPU_REASONS)
		w->reason = CAUSALPROF_OFF_CPU_OTHER;
	return true;
}

static bool bad_go_labels(const struct causalprof_sample *s)
{
	struct cp_go_label go[CAUSALPROF_GO_LABELS_MAX];

	return cp_go_labels(s, go, &(bool){ false }) < 0;
}

/* A causal experiment's result: only listed, in the text report's header. */
static int take_experiment(struct report *r, const struct causalprof_record_hdr *h,
			   uint64_t off)
{
	const struct causalprof_experiment *e = cp_rec_experiment(h), **exps;

	if (!e)
		return malformed(r, off, "an EXPERIMENT of %" PRIu32 " bytes is too short for its ranges and points",
				 h->size);
	exps = realloc(r->exps, (r->nr_exps + 1) * sizeof(*exps));
	if (!exps)
		return -ENOMEM;
	r->exps = exps;
	r->exps[r->nr_exps++] = e;
	return 0;
}

/* Checks one record and keeps what report needs of it. 1: stop reading. */
static int take_record(struct report *r, const struct causalprof_record_hdr *h, uint64_t off)
{
	const struct causalprof_off_cpu_count *w;
	const struct causalprof_sample *s;
	const struct causalprof_count *c;
	const struct causalprof_stack *st;
	const struct cp_rec_buildid *b;
	const struct causalprof_lost *l;
	const struct causalprof_end *e;
	const char *text;
	uint64_t count;
	size_t len;
	bool valid;
	int ret;

	note_time(r, h);
	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
		s = cp_rec_sample(h);
		if (!s)
			return malformed(r, off, "a SAMPLE of %" PRIu32 " bytes is too short for its header and addresses",
					 h->size);
		if (!usable_sample(r, h, &count))
			return malformed(r, off, "a SAMPLE of event %u; the recording has %u event%s",
					 s->event, r->nr_real, r->nr_real == 1 ? "" : "s");
		if (bad_go_labels(s))
			return malformed(r, off, "a SAMPLE whose Go labels do not fit it");
		r->samples++;
		if (s->event >= r->max_event)
			r->max_event = s->event + 1;
		return 0;
	case CAUSALPROF_REC_STACK:
		st = cp_rec_stack(h);
		if (!st)
			return malformed(r, off, "a STACK of %" PRIu32 " bytes is too short for its header and addresses",
					 h->size);
		return cp_stacks_add(&r->stacks, st);
	case CAUSALPROF_REC_COUNT:
		c = cp_rec_count(h);
		if (!c)
			return malformed(r, off, "a COUNT of %" PRIu32 " bytes is too short", h->size);
		if (!usable_sample(r, h, &count)) {
			if (!cp_stacks_sample(&r->stacks, c))
				return malformed(r, off, "a COUNT of stack %#" PRIx64 ", which no STACK before it has",
						 (uint64_t)c->stack);
			if (!c->count)
				return malformed(r, off, "a COUNT of 0 samples");
			return malformed(r, off, "a COUNT of event %u; the recording has %u event%s",
					 c->event, r->nr_real, r->nr_real == 1 ? "" : "s");
		}
		if (bad_go_labels(usable_sample(r, h, &count)))
			return malformed(r, off, "a STACK whose Go labels do not fit it");
		r->samples += count;
		if (c->event >= r->max_event)
			r->max_event = c->event + 1;
		return 0;
	case CAUSALPROF_REC_OFF_CPU:
		if (!cp_rec_off_cpu(h))
			return malformed(r, off, "an OFF_CPU of %" PRIu32 " bytes is too short for its header and addresses",
					 h->size);
		r->waits++;
		r->off_cpu = true;
		return 0;
	case CAUSALPROF_REC_OFF_CPU_COUNT:
		w = cp_rec_off_cpu_count(h);
		if (!w)
			return malformed(r, off, "an OFF_CPU_COUNT of %" PRIu32 " bytes is too short",
					 h->size);
		if (!cp_stacks_off_cpu(&r->stacks, w))
			return malformed(r, off, "an OFF_CPU_COUNT of stack %#" PRIx64 ", which no STACK before it has",
					 (uint64_t)w->stack);
		if (!w->count)
			return malformed(r, off, "an OFF_CPU_COUNT of 0 waits");
		r->waits += w->count;
		r->off_cpu = true;
		return 0;
	case CAUSALPROF_REC_MMAP:
	case CAUSALPROF_REC_COMM:
	case CAUSALPROF_REC_FORK:
	case CAUSALPROF_REC_EXIT:
		valid = h->type == CAUSALPROF_REC_MMAP ? !!cp_rec_mmap(h) :
			h->type == CAUSALPROF_REC_COMM ? !!cp_rec_comm(h) : !!cp_rec_task(h);
		if (!valid)
			return malformed(r, off, "a%s %s of %" PRIu32 " bytes is too short or lacks its NUL",
					 h->type == CAUSALPROF_REC_MMAP ? "n" : "",
					 type_name(h->type), h->size);
		return cp_replay_add(&r->replay, h, off);
	case CAUSALPROF_REC_LOST:
		l = cp_rec_lost(h);
		if (!l)
			return malformed(r, off, "a LOST of %" PRIu32 " bytes is too short", h->size);
		if (h->flags & CAUSALPROF_LOST_F_SIDEBAND)
			r->sideband_lost += l->lost;
		else if (h->flags & CAUSALPROF_LOST_F_OFF_CPU)
			r->off_lost += l->lost;
		else
			r->lost += l->lost;
		return 0;
	case CAUSALPROF_REC_END:
		e = cp_rec_end(h);
		if (!e)
			return malformed(r, off, "an END of %" PRIu32 " bytes is too short", h->size);
		r->end_seen = true;
		r->end_time = e->time_ns;
		r->end_samples = e->samples;
		r->end_lost = e->lost;
		cp_rec_end_off_cpu(e, &r->end_off, &r->end_off_lost, &r->end_off_capped);
		return 0;
	case CAUSALPROF_REC_EXPERIMENT:
		return take_experiment(r, h, off);
	case CP_REC_META:
		return take_meta(r, h);
	case CP_REC_KALLSYMS:
		r->kallsyms = h;
		return 0;
	case CP_REC_VDSO:
		r->vdso = h;
		return 0;
	case CP_REC_PERFMAP:
		if (!cp_rec_perfmap(h, &text, &len))
			return malformed(r, off, "a PERFMAP of %" PRIu32 " bytes is too short",
					 h->size);
		if (CP_RESERVE(r->perfmaps, r->cap_perfmaps, r->nr_perfmaps, 1))
			return -ENOMEM;
		r->perfmaps[r->nr_perfmaps++] = h;
		return 0;
	case CP_REC_BUILDID:
		b = cp_rec_buildid(h);
		if (!b || b->id_size > CP_BUILD_ID_MAX)
			return malformed(r, off, "a BUILDID of %" PRIu32 " bytes is malformed",
					 h->size);
		ret = cp_sym_expect(r->sym, (const char *)b->data + b->id_size, b->data,
				    b->id_size);
		return ret == -ENOMEM ? ret : 0;
	}
	return 0;	/* a type this cprof does not know */
}

/* Every record up to the end or the damage. 0, or -ENOMEM. */
static int read_all(struct report *r)
{
	const struct causalprof_record_hdr *h;
	uint64_t off;
	int ret;

	ret = cp_rec_next(r->rd, &h, &off);
	if (ret > 0 && h->type != CP_REC_META) {
		snprintf(r->why, sizeof(r->why),
			 "corrupt: the first record (offset %" PRIu64 ") is not the META record",
			 off);
		r->damage = DAMAGE_CORRUPT;
		if (!r->o->force)
			return 0;
	}
	for (; ret > 0; ret = cp_rec_next(r->rd, &h, &off)) {
		ret = take_record(r, h, off);
		if (ret < 0)
			return ret;
		if (ret)
			return 0;
		if (off - r->rd->released >= RELEASE_EVERY)
			cp_rec_release(r->rd, off);
	}
	if (ret == -ENODATA) {
		snprintf(r->why, sizeof(r->why), "%s: the recording was cut short (was cprof record killed, or the disk full?)",
			 r->rd->err);
		r->damage = DAMAGE_TRUNCATED;
	} else if (ret) {
		snprintf(r->why, sizeof(r->why), "%s", r->rd->err);
		r->damage = DAMAGE_CORRUPT;
	} else if (!r->end_seen && !r->kallsyms && !r->o->slice) {
		/* cprof record always finishes with KALLSYMS, and END mostly. */
		snprintf(r->why, sizeof(r->why),
			 "truncated at offset %zu: it ends without the session's END record; the recording was cut short (was cprof record killed?)",
			 r->rd->size);
		r->damage = DAMAGE_TRUNCATED;
	}
	return 0;
}

/*
 * Calls @fn for every usable sample and, if given, @wfn for every usable
 * wait, in file order, up to where the first pass stopped.
 */
static int for_each_sample(struct report *r,
			   int (*fn)(struct report *r, const struct causalprof_sample *s,
				     struct cp_key at, uint64_t count),
			   int (*wfn)(struct report *r, const struct wait *w, struct cp_key at))
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	uint64_t off, count;
	struct wait w;
	int ret;

	cp_rec_rewind(r->rd);
	while (cp_rec_next(r->rd, &h, &off) > 0) {
		if (off - r->rd->released >= RELEASE_EVERY)
			cp_rec_release(r->rd, off);
		if (h->type == CAUSALPROF_REC_SAMPLE || h->type == CAUSALPROF_REC_COUNT) {
			s = usable_sample(r, h, &count);
			ret = s ? fn(r, s, (struct cp_key){ s->time_ns, off }, count) : 0;
		} else if (wfn && (h->type == CAUSALPROF_REC_OFF_CPU ||
				   h->type == CAUSALPROF_REC_OFF_CPU_COUNT)) {
			int err;

			ret = usable_wait(r, h, &w, &err) ?
			      wfn(r, &w, (struct cp_key){ w.s->time_ns, off }) : err;
		} else {
			continue;
		}
		if (ret)
			return ret;
	}
	cp_rec_release(r->rd, r->rd->size);
	return 0;
}

static int check_sample(struct report *r, const struct causalprof_sample *s, struct cp_key at,
			uint64_t count)
{
	(void)count;
	cp_replay_check_sample(&r->replay, s, at);
	return 0;
}

static int resolve_sample(struct report *r, const struct causalprof_sample *s, struct cp_key at,
			  uint64_t count)
{
	struct cp_go_label go[CAUSALPROF_GO_LABELS_MAX];
	int nr = cp_go_labels(s, go, &(bool){ false }), ret;
	struct cp_resolve_as as = { .event = s->event, .count = count, .labels = go };

	/* take_record() checked the block: never -EBADMSG here. */
	if (nr < 0)
		nr = 0;
	if (r->o->tag && !cp_go_tag_match(r->o->tag, go, nr))
		return 0;
	as.nr_labels = nr;
	r->ev[s->event].samples += count;
	r->ev[s->event].weight += s->period;
	ret = cp_resolve_sample(&r->res, s, at, &as);
	if (ret || r->wall_ev < 0 || s->event != r->time_ev)
		return ret;
	as.event = r->wall_ev;
	r->ev[r->wall_ev].samples += count;
	r->ev[r->wall_ev].weight += s->period;
	return cp_resolve_sample(&r->res, s, at, &as);
}

/* What pprof's label "reason" says of a wait. */
static const char *const reason_names[__CAUSALPROF_OFF_CPU_REASONS] = {
	[CAUSALPROF_OFF_CPU_OTHER]	= "other",
	[CAUSALPROF_OFF_CPU_IO]		= "io",
	[CAUSALPROF_OFF_CPU_FUTEX]	= "futex",
	[CAUSALPROF_OFF_CPU_SLEEP]	= "sleep",
};

#define REASON_LABEL	"reason"

/* Waits count for off-cpu (and wall), by their stack at the switch, labelled with their reason. */
static int resolve_wait(struct report *r, const struct wait *w, struct cp_key at)
{
	const char *name = reason_names[w->reason];
	const struct cp_go_label label = {
		.key = REASON_LABEL, .key_len = strlen(REASON_LABEL),
		.value = name, .value_len = strlen(name),
	};
	struct cp_resolve_as as = {
		.event = r->off_ev, .count = w->count, .wait = w->wait, .returns = true,
		.labels = &label, .nr_labels = 1,
	};
	struct event *ev = &r->ev[r->off_ev];
	int ret;

	/* Waits have no Go labels. */
	if (r->o->tag)
		return 0;
	ev->samples += w->count;
	ev->weight += w->s->period;
	ev->wait += w->wait;
	r->reason_ns[w->reason] += w->s->period;
	r->reason_waits[w->reason] += w->count;
	ret = cp_resolve_sample(&r->res, w->s, at, &as);
	if (ret || r->wall_ev < 0)
		return ret;
	as.event = r->wall_ev;
	as.wait = 0;
	r->ev[r->wall_ev].samples += w->count;
	r->ev[r->wall_ev].weight += w->s->period;
	return cp_resolve_sample(&r->res, w->s, at, &as);
}

/*
 * The sideband replayed, then every sample resolved against it. Returns 0,
 * -ENOMEM or 1 (damage, reported in r->why).
 */
static int replay(struct report *r)
{
	long checks = cp_replay_prepare(&r->replay);
	int ret;

	if (checks < 0)
		return checks;
	if (checks)
		for_each_sample(r, check_sample, NULL);
	ret = cp_replay_build(&r->replay);
	if (ret == -E2BIG && !r->o->force) {
		snprintf(r->why, sizeof(r->why),
			 "corrupt record at offset %" PRIu64 ": a process with more than %u mappings",
			 r->replay.bad_off, CP_MAX_MAPS);
		r->damage = DAMAGE_CORRUPT;
		return 1;
	}
	if (ret && ret != -E2BIG)
		return ret;
	return for_each_sample(r, resolve_sample, resolve_wait);
}

static uint64_t event_period(const struct event *ev)
{
	if (ev->period)
		return ev->period;
	if (ev->freq && !strcmp(ev->unit, "nanoseconds"))
		return 1000000000ULL / ev->freq;
	return ev->samples ? ev->weight / ev->samples : 0;
}

/*
 * Lost samples carry no event: each event gets a share in proportion to its
 * samples, each lost one weighing its event's average period.
 */
static int book_lost(struct report *r)
{
	bool whole = r->end_seen && !r->o->slice;
	uint64_t lost = whole ? r->end_lost : r->lost, given = 0, part;
	unsigned int i, heaviest = 0;
	int ret;

	/* What the module counted but never reached the file is lost too. */
	if (whole && r->end_samples > r->samples)
		lost += r->end_samples - r->samples;
	/* Whose labels lost samples had is not known: --tag leaves them out. */
	if (!lost || r->o->tag)
		return 0;
	for (i = 0; i < r->nr_real; i++) {
		if (r->ev[i].samples > r->ev[heaviest].samples)
			heaviest = i;
		if (!r->samples)
			continue;
		part = (unsigned __int128)lost * r->ev[i].samples / r->samples;
		r->ev[i].lost = part;
		given += part;
	}
	r->ev[heaviest].lost += lost - given;
	for (i = 0; i < r->nr_real; i++) {
		if (!r->ev[i].lost)
			continue;
		r->ev[i].lost_weight = r->ev[i].lost * event_period(&r->ev[i]);
		ret = cp_resolve_lost(&r->res, i, r->ev[i].lost, r->ev[i].lost_weight);
		if (ret)
			return ret;
	}
	return 0;
}

/* A pseudo-event after the session's: off-cpu or wall. */
static int add_event(struct report *r, enum event_kind kind, const char *name)
{
	struct event *ev = &r->ev[r->nr_events];

	ev->kind = kind;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->unit = "nanoseconds";
	return r->nr_events++;
}

static void setup_events(struct report *r)
{
	unsigned int i;
	struct event *ev;

	if (!r->events_known)
		r->nr_real = r->max_event;	/* no count in META: every index used */
	r->time_ev = r->off_ev = r->wall_ev = -1;
	for (i = 0; i < r->nr_real; i++) {
		ev = &r->ev[i];
		ev->kind = EV_SAMPLED;
		if (!ev->name[0])
			snprintf(ev->name, sizeof(ev->name), "event%u", i);
		if ((ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
							ev->config == PERF_COUNT_SW_TASK_CLOCK)) ||
		    (!ev->type && !ev->config && !strcmp(ev->name, "cpu-clock")))
			ev->unit = "nanoseconds";
		else
			ev->unit = "count";
		if (r->time_ev < 0 && !strcmp(ev->unit, "nanoseconds"))
			r->time_ev = i;
	}
	r->nr_events = r->nr_real;
	if (!r->off_cpu)
		return;
	r->off_ev = add_event(r, EV_OFF_CPU, "off-cpu");
	if (r->time_ev >= 0)
		r->wall_ev = add_event(r, EV_WALL, "wall");
}

/* The event --event names, or -1. */
static int find_event(const struct report *r, const char *want)
{
	uint64_t v;
	unsigned int i;

	for (i = 0; i < r->nr_events; i++)
		if (!strcmp(r->ev[i].name, want))
			return i;
	if (parse_u64(want, strlen(want), 10, &v) && v < r->nr_events)
		return v;
	return -1;
}

#define EXPS_LISTED	20

/* One line per causal experiment (the first EXPS_LISTED). */
static void print_experiments(const struct report *r)
{
	const struct causalprof_experiment *e;
	FILE *out = r->o->out;
	size_t i;

	for (i = 0; i < r->nr_exps && i < EXPS_LISTED; i++) {
		e = r->exps[i];
		fprintf(out, "# experiment %" PRIu32 ": speedup %.1f%%, %u range%s, wall %.3f s, inserted delay %.3f s, effective %.3f s, %" PRIu64 " hits, %u progress point%s%s\n",
			e->id, e->speedup / 10.0, e->nr_ranges, e->nr_ranges == 1 ? "" : "s",
			e->wall_ns / 1e9, e->inserted_ns / 1e9,
			((double)e->wall_ns - (double)e->inserted_ns) / 1e9, (uint64_t)e->hits,
			e->nr_points,
			e->nr_points == 1 ? "" : "s",
			e->hdr.flags & CAUSALPROF_EXP_F_SESSION_END ? " (cut by the session's end)" : "");
	}
	if (r->nr_exps > EXPS_LISTED)
		fprintf(out, "# ... and %zu more experiments\n", r->nr_exps - EXPS_LISTED);
}

static void print_header(const struct report *r)
{
	FILE *out = r->o->out;
	const char *v;

	fprintf(out, "# cprof report of %s\n", r->o->input);
	if ((v = meta(r, "start_time")))
		fprintf(out, "# recorded %s on %s, kernel %s, cprof %s\n", v,
			meta(r, "hostname") ?: "?", meta(r, "kernel_release") ?: "?",
			meta(r, "cprof_version") ?: "?");
	if ((v = meta(r, "command")))
		fprintf(out, "# command: %s (pid %s)\n", v, meta(r, "target") ?: "?");
	else if ((v = meta(r, "target")))
		fprintf(out, "# target: %s%s\n", strcmp(v, "system-wide") ? "process " : "", v);
	print_experiments(r);
}

/*
 * The waits the module did not record: END's count (with those it counted
 * but never reached the file), or the LOST records' of an interval; and of
 * them, those over its max_off_cpu_rate (END only).
 */
static uint64_t waits_lost(const struct report *r, uint64_t *capped)
{
	bool whole = r->end_seen && !r->o->slice;
	uint64_t lost = whole ? r->end_off_lost : r->off_lost;

	*capped = whole ? r->end_off_capped : 0;
	if (whole && r->end_off > r->waits)
		lost += r->end_off - r->waits;
	return lost;
}

/* The heading of the off-cpu table: the waits' time, split, and by reason. */
static void print_off_cpu(const struct report *r, unsigned int i)
{
	const struct event *ev = &r->ev[i];
	char total[32], wait[32], delay[32], t[32];
	uint64_t lost, capped;
	unsigned int k;

	lost = waits_lost(r, &capped);
	cp_top_format(total, sizeof(total), ev->weight, ev->unit);
	cp_top_format(wait, sizeof(wait), ev->wait, ev->unit);
	cp_top_format(delay, sizeof(delay), ev->weight - ev->wait, ev->unit);
	fprintf(r->o->out, "# event %u: %s: %" PRIu64 " waits, %" PRIu64 " not recorded",
		i, ev->name, ev->samples, lost);
	if (capped)
		fprintf(r->o->out, " (%" PRIu64 " over max_off_cpu_rate)", capped);
	fprintf(r->o->out, ", total %s: waiting %s, run-queue delay %s\n", total, wait, delay);
	fprintf(r->o->out, "# %s by reason:", ev->name);
	for (k = 0; k < __CAUSALPROF_OFF_CPU_REASONS; k++) {
		if (!r->reason_waits[k])
			continue;
		cp_top_format(t, sizeof(t), r->reason_ns[k], ev->unit);
		fprintf(r->o->out, " %s %s (%" PRIu64 " waits)", reason_names[k], t,
			r->reason_waits[k]);
	}
	fprintf(r->o->out, "%s\n", ev->samples ? "" : " none");
}

static int print_text(struct report *r, int only)
{
	FILE *out = r->o->out;
	char total[32];
	unsigned int i;
	int ret;

	print_header(r);
	for (i = 0; i < r->nr_events; i++) {
		const struct event *ev = &r->ev[i];

		if (only >= 0 && (int)i != only)
			continue;
		cp_top_format(total, sizeof(total), ev->weight + ev->lost_weight, ev->unit);
		if (ev->kind == EV_OFF_CPU)
			print_off_cpu(r, i);
		else if (ev->kind == EV_WALL)
			fprintf(out, "# event %u: %s: %s and %s: %" PRIu64 " samples and waits, total %s\n",
				i, ev->name, r->ev[r->time_ev].name, r->ev[r->off_ev].name,
				ev->samples, total);
		else
			fprintf(out, "# event %u: %s: %" PRIu64 " samples, %" PRIu64 " lost, total %s\n",
				i, ev->name, ev->samples, ev->lost, total);
		ret = cp_top_print(out, &r->prof, i, ev->unit, r->o->view, r->o->fraction);
		if (ret)
			return ret;
		if (i + 1 < r->nr_events && only < 0)
			fputc('\n', out);
	}
	if (!r->nr_events)
		fprintf(out, "# no samples\n");
	return 0;
}

/* "2025-01-31T12:00:00.123Z" as ns since the epoch, or 0. */
static int64_t parse_time(const char *s)
{
	struct tm tm = { 0 };
	const char *rest;
	unsigned int ms = 0;
	time_t t;

	if (!s)
		return 0;
	rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return 0;
	if (*rest == '.' && sscanf(rest, ".%3u", &ms) != 1)
		ms = 0;
	t = timegm(&tm);
	if (t == (time_t)-1 || t < 0 || t >= INT64_MAX / 1000000000 - 1)
		return 0;
	return (int64_t)t * 1000000000 + (int64_t)ms * 1000000;
}

static int64_t duration(const struct report *r)
{
	uint64_t start = 0, end = r->end_seen ? r->end_time : 0;
	const char *v = meta(r, "start_monotonic_ns");

	if (r->o->slice && r->o->duration_nanos)
		return r->o->duration_nanos;
	if (r->last_time > end)
		end = r->last_time;
	if (!v || !parse_u64(v, strlen(v), 10, &start))
		start = r->first_time;
	return end > start && end - start < INT64_MAX ? (int64_t)(end - start) : 0;
}

/*
 * The main program's mapping: the target's executable if the recording
 * knows it, else the one with most of @event's samples (innermost frame).
 */
static uint32_t main_mapping(struct report *r, unsigned int event)
{
	const char *target = meta(r, "target");
	struct cp_profile *p = &r->prof;
	uint64_t pid, *weight, best = 0;
	const struct cp_proc *proc;
	uint32_t found = 0;
	size_t i;

	if (target && parse_u64(target, strlen(target), 10, &pid) && pid <= UINT32_MAX &&
	    (proc = cp_replay_find_proc(&r->replay, pid)) && proc->exe) {
		for (i = 0; i < p->nr_mappings; i++)
			if (!p->mappings[i].kernel && p->mappings[i].file == proc->exe)
				return i + 1;
	}
	weight = calloc(p->nr_mappings + 1, sizeof(*weight));
	if (!weight)
		return 0;
	for (i = 0; i < p->nr_samples; i++) {
		const struct cp_prof_sample *s = &p->samples[i];
		const struct cp_prof_location *l;

		if (s->event != event || !s->nr_locs)
			continue;
		l = &p->locations[p->loc_ids[s->loc]];
		if (l->mapping && !p->mappings[l->mapping - 1].kernel)
			weight[l->mapping - 1] += s->weight;
	}
	for (i = 0; i < p->nr_mappings; i++) {
		if (weight[i] > best) {
			best = weight[i];
			found = i + 1;
		}
	}
	free(weight);
	return found;
}

/*
 * Whether event @i has a profile file of its own: every event of the
 * session; the waits unless the time event's profile has them (with
 * wall); wall never. --event EV writes EV's alone.
 */
static bool own_file(const struct report *r, unsigned int i, int only)
{
	if (only >= 0)
		return (int)i == only;
	return r->ev[i].kind == EV_SAMPLED || (r->ev[i].kind == EV_OFF_CPU && r->time_ev < 0);
}

static unsigned int nr_files(const struct report *r, int only)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->nr_events; i++)
		n += own_file(r, i, only);
	return n;
}

/* OUT.EVENT.pb.gz, OUT without its .pb.gz (or .gz); duplicate names get .I. */
static int event_paths(struct report *r, int only)
{
	const char *out = r->o->pprof;
	size_t len = strlen(out);
	unsigned int i, j;
	char name[80], *p;
	bool dup;
	int ret;

	if (nr_files(r, only) <= 1) {
		for (i = 0; i < r->nr_events; i++)
			if (own_file(r, i, only))
				break;
		r->ev[i].path = strdup(out);
		return r->ev[i].path ? 0 : -ENOMEM;
	}
	if (len > 6 && !strcmp(out + len - 6, ".pb.gz"))
		len -= 6;
	else if (len > 3 && !strcmp(out + len - 3, ".gz"))
		len -= 3;
	for (i = 0; i < r->nr_events; i++) {
		if (!own_file(r, i, only))
			continue;
		for (dup = false, j = 0; j < r->nr_events && !dup; j++)
			dup = j != i && !strcmp(r->ev[i].name, r->ev[j].name);
		snprintf(name, sizeof(name), "%s", r->ev[i].name);
		/* Keep it one file name. */
		for (p = name; *p; p++)
			if (*p == '/')
				*p = '_';
		if (dup)
			ret = asprintf(&r->ev[i].path, "%.*s.%s.%u.pb.gz", (int)len, out, name, i);
		else
			ret = asprintf(&r->ev[i].path, "%.*s.%s.pb.gz", (int)len, out, name);
		if (ret < 0) {
			r->ev[i].path = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The sample types of event @i's profile: the waits' own; with every
 * event, the time event's with the waits' and wall's after its own; else
 * none (samples/count and EVENT/UNIT).
 */
static size_t pprof_values(const struct report *r, unsigned int i, int only,
			   struct cp_pprof_value *v, const char **default_type)
{
	const struct event *ev = &r->ev[i];
	size_t n = 0;

	if (ev->kind == EV_SAMPLED && (only >= 0 || (int)i != r->time_ev || r->off_ev < 0))
		return 0;
	*default_type = ev->name;
	if (ev->kind == EV_WALL) {
		v[n++] = (struct cp_pprof_value){ i, CP_PPROF_COUNT, "samples", "count" };
		v[n++] = (struct cp_pprof_value){ i, CP_PPROF_WEIGHT, ev->name, ev->unit };
		return n;
	}
	if (ev->kind == EV_SAMPLED) {
		v[n++] = (struct cp_pprof_value){ i, CP_PPROF_COUNT, "samples", "count" };
		v[n++] = (struct cp_pprof_value){ i, CP_PPROF_WEIGHT, ev->name, ev->unit };
	}
	v[n++] = (struct cp_pprof_value){ r->off_ev, CP_PPROF_COUNT, "waits", "count" };
	v[n++] = (struct cp_pprof_value){ r->off_ev, CP_PPROF_WEIGHT, "off-cpu", "nanoseconds" };
	v[n++] = (struct cp_pprof_value){ r->off_ev, CP_PPROF_WAIT, "wait", "nanoseconds" };
	v[n++] = (struct cp_pprof_value){ r->off_ev, CP_PPROF_DELAY, "sched-delay", "nanoseconds" };
	if (ev->kind == EV_SAMPLED)
		v[n++] = (struct cp_pprof_value){ r->wall_ev, CP_PPROF_WEIGHT, "wall", "nanoseconds" };
	return n;
}

static int write_one(struct report *r, unsigned int i, int only)
{
	struct event *ev = &r->ev[i];
	struct cp_pprof_value values[CP_PPROF_MAX_VALUES];
	const char *comments[5];
	char buf[4][512];
	uint64_t lost, capped;
	struct cp_pprof_info info = {
		.event = i,
		.name = ev->name,
		.unit = ev->unit,
		.period = event_period(ev),
		.time_nanos = r->o->slice && r->o->time_nanos ? r->o->time_nanos :
			      parse_time(meta(r, "start_time")),
		.duration_nanos = duration(r),
		.main = main_mapping(r, i),
		.labels = r->o->labels,
		.comments = comments,
		.values = values,
		.gz = r->o->gz,
	};
	bool to_stdout = !strcmp(ev->path, "-"), regular;
	struct stat st;
	FILE *f;
	int ret, err;

	snprintf(buf[0], sizeof(buf[0]), "cprof %s report of %s", CAUSALPROF_VERSION, r->o->input);
	comments[info.nr_comments++] = buf[0];
	if (meta(r, "command")) {
		snprintf(buf[1], sizeof(buf[1]), "command: %s", meta(r, "command"));
		comments[info.nr_comments++] = buf[1];
	}
	if (ev->lost) {
		snprintf(buf[2], sizeof(buf[2]), "%" PRIu64 " samples lost, on [lost samples]",
			 ev->lost);
		comments[info.nr_comments++] = buf[2];
	}
	info.nr_values = pprof_values(r, i, only, values, &info.default_type);
	if (!info.nr_values)
		info.values = NULL;
	lost = waits_lost(r, &capped);
	if (info.values && lost) {
		snprintf(buf[3], sizeof(buf[3]), "%" PRIu64 " off-CPU waits not recorded (%" PRIu64 " over max_off_cpu_rate)",
			 lost, capped);
		comments[info.nr_comments++] = buf[3];
	}

	f = to_stdout ? stdout : fopen(ev->path, "we");
	if (!f) {
		fprintf(r->o->err, "%s: cannot create %s: %s\n", r->o->prog, ev->path,
			strerror(errno));
		return 1;
	}
	/* A half-written profile is removed; a device or a FIFO never is. */
	regular = !to_stdout && !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	errno = 0;
	ret = cp_pprof_write(f, &r->prof, &info);
	err = errno;
	if (!to_stdout && fclose(f) && !ret) {
		ret = -EIO;
		err = errno;
	}
	if (ret && regular)
		unlink(ev->path);
	if (ret == -ENOMEM)
		return -ENOMEM;
	if (ret) {
		fprintf(r->o->err, "%s: cannot write %s: %s\n", r->o->prog,
			to_stdout ? "to standard output" : ev->path,
			err ? strerror(err) : "write error");
		return 1;
	}
	return 0;
}

static int write_pprof(struct report *r, int only)
{
	unsigned int i;
	int ret;

	if (!strcmp(r->o->pprof, "-") && nr_files(r, only) > 1) {
		fprintf(r->o->err,
			"%s: %u events make %u profiles: pick one with --event for standard output\n",
			r->o->prog, nr_files(r, only), nr_files(r, only));
		return 2;
	}
	if (!r->nr_events) {
		/* Not one sample: an empty profile all the same. */
		r->nr_real = 1;
		setup_events(r);
	}
	ret = event_paths(r, only);
	if (ret)
		return ret;
	for (i = 0; i < r->nr_events; i++) {
		if (!own_file(r, i, only))
			continue;
		ret = write_one(r, i, only);
		if (ret)
			return ret;
	}
	return 0;
}

static void warn_damage(const struct report *r)
{
	const char *prog = r->o->prog, *in = r->o->input;

	if (r->damage)
		fprintf(r->o->err, "%s: warning: %s: %s; reporting the records before it (--force)\n",
			prog, in, r->why);
	else if (!r->end_seen && !r->o->slice)
		fprintf(r->o->err, "%s: warning: %s has no END record: the session's stream was cut\n",
			prog, in);
	if (r->skipped)
		fprintf(r->o->err, "%s: warning: %s: %" PRIu64 " malformed records skipped (--force)\n",
			prog, in, r->skipped);
	if (r->sideband_lost)
		fprintf(r->o->err, "%s: warning: %s: the module dropped %" PRIu64 " MMAP, COMM, FORK or EXIT records: some samples may be attributed wrongly\n",
			prog, in, r->sideband_lost);
}

static void free_report(struct report *r)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(r->meta); i++)
		free(r->meta[i]);
	for (i = 0; i < NR_EVENTS; i++)
		free(r->ev[i].path);
	free(r->exps);
	free(r->perfmaps);
	free(r->wbuf);
	cp_resolve_free(&r->res);
	cp_replay_free(&r->replay);
	cp_stacks_free(&r->stacks);
	cp_prof_free(&r->prof);
	cp_ksyms_free(r->ks);
	if (r->sym != r->o->sym)
		cp_sym_free(r->sym);
}

int cp_report(const struct cp_report_opts *o, struct cp_rec_reader *rd)
{
	struct report *r;
	const void *data;
	const char *text;
	unsigned int i;
	size_t len;
	int ret = 1, only = -1, err;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(o->err, "%s: out of memory\n", o->prog);
		return 1;
	}
	r->o = o;
	r->rd = rd;
	cp_replay_init(&r->replay, &r->prof.strs);
	cp_stacks_init(&r->stacks);
	if (cp_prof_init(&r->prof))
		goto out_nomem;
	r->sym = o->sym ? o->sym : cp_sym_new(o->symfs, o->err);
	if (!r->sym)
		goto out_nomem;

	err = read_all(r);
	if (err)
		goto out_nomem;
	if (r->damage && !o->force) {
		fprintf(o->err, "%s: %s: %s; --force reports the records before it\n", o->prog,
			o->input, r->why);
		ret = 2;
		goto out_free;
	}
	setup_events(r);
	if (o->event) {
		only = find_event(r, o->event);
		if (only < 0) {
			fprintf(o->err, "%s: %s has no event '%s'; it has:", o->prog, o->input,
				o->event);
			for (i = 0; i < r->nr_events; i++)
				fprintf(o->err, " %u (%s)", i, r->ev[i].name);
			fprintf(o->err, "%s\n", r->nr_events ? "" : " none");
			ret = 2;
			goto out_free;
		}
	}
	warn_damage(r);

	if (r->kallsyms && !o->sym) {
		text = cp_rec_text(r->kallsyms, &len);
		r->ks = cp_ksyms_new(text, len);
	}
	if (r->vdso) {
		data = cp_rec_vdso(r->vdso, &len);
		if (cp_sym_add_image(r->sym, "[vdso]", data, len) == -ENOMEM)
			goto out_nomem;
	}
	cp_resolve_init(&r->res, &r->prof, &r->replay, o->sym ? o->ks : r->ks, r->sym,
			o->labels, !o->pprof);
	for (i = 0; i < r->nr_perfmaps; i++) {
		const struct cp_rec_perfmap *pm = cp_rec_perfmap(r->perfmaps[i], &text, &len);

		if (cp_resolve_add_perfmap(&r->res, pm->pid, text, len))
			goto out_nomem;
	}
	err = replay(r);
	if (err == 1) {
		fprintf(o->err, "%s: %s: %s; --force reports the records before it\n", o->prog,
			o->input, r->why);
		ret = 2;
		goto out_free;
	}
	if (err || book_lost(r) || cp_resolve_finish(&r->res))
		goto out_nomem;

	if (o->pprof)
		err = write_pprof(r, only);
	else
		err = print_text(r, only);
	if (err == -ENOMEM)
		goto out_nomem;
	ret = err;
	goto out_free;

out_nomem:
	fprintf(o->err, "%s: out of memory\n", o->prog);
	ret = 1;
out_free:
	free_report(r);
	free(r);
	return ret;
}

int cmd_report(int argc, char *argv[])
{
	struct cp_getopt g = { .u = &usage };
	struct cp_report_opts o = {
		.prog = argv[0], .input = DEFAULT_INPUT, .out = stdout, .err = stderr,
		.fraction = CP_TOP_FRACTION,
	};
	char *end;
	struct cp_rec_reader rd;
	struct cp_causal_opts co = { .top = 10 };
	bool lines = false, threads = false;
	struct cp_go_tag tag;
	unsigned long top;
	int c, err, ret;

	while ((c = cp_getopt(&g, argc, argv)) > 0) {
		switch ((enum report_opt)c) {
		case OPT_INPUT:
			o.input = optarg;
			break;
		case OPT_LINES:
			lines = true;
			break;
		case OPT_THREADS:
			threads = true;
			break;
		case OPT_EVENT:
			o.event = optarg;
			break;
		case OPT_PPROF:
			o.pprof = optarg;
			break;
		case OPT_LABELS:
			o.labels = true;
			break;
		case OPT_SYMFS:
			o.symfs = optarg;
			break;
		case OPT_TAG:
			if (o.tag)
				return cp_usage_error(&usage, "--tag is given once");
			if (cp_go_tag_parse(optarg, &tag))
				return cp_usage_error(&usage, "--tag takes KEY=VALUE (a pprof label), not '%s'",
						      optarg);
			o.tag = &tag;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_FRACTION:
			errno = 0;
			o.fraction = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o.fraction >= 0 && o.fraction <= 1)) {
				return cp_usage_error(&usage, "--node-fraction takes a number from 0 to 1, not '%s'",
						      optarg);
			}
			break;
		case OPT_CAUSAL:
			co.table = true;
			break;
		case OPT_COZ:
			co.coz = optarg;
			break;
		case OPT_COZ_JSONL:
			co.coz_jsonl = optarg;
			break;
		case OPT_PLOT:
			co.plot = optarg;
			break;
		case OPT_VERBOSE:
			co.verbose = true;
			break;
		case OPT_TOP:
			errno = 0;
			top = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !top || top > 100000 || *optarg == '-') {
				return cp_usage_error(&usage, "--top takes a positive number, not '%s'",
						      optarg);
			}
			co.top = top;
			break;
		}
	}
	if (c < 0)
		return g.status;
	if (optind < argc)
		return cp_usage_error(&usage, "unexpected argument '%s'", argv[optind]);
	if ((lines && threads) || (o.pprof && (lines || threads)))
		return cp_usage_error(&usage, "--lines, --threads and --pprof exclude each other");
	if (o.labels && !o.pprof)
		return cp_usage_error(&usage, "--labels is for --pprof");
	if (o.pprof && !*o.pprof)
		return cp_usage_error(&usage, "--pprof takes a file name");
	if (co.verbose && !co.table)
		return cp_usage_error(&usage, "-v is for --causal");
	if ((co.table || co.coz || co.coz_jsonl || co.plot) &&
	    (lines || threads || o.labels || o.event || o.tag || (o.pprof && !co.table)))
		return cp_usage_error(&usage, "--causal, --coz, --coz-jsonl and --plot go with -i, --top and (--causal) --pprof only");
	o.view = lines ? CP_VIEW_LINES : threads ? CP_VIEW_THREADS : CP_VIEW_FUNCTIONS;

	err = cp_rec_open(&rd, o.input);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", o.prog, o.input, rd.err);
		/* Not a recording (or a damaged header) is damage; a missing file is not. */
		return err == -EINVAL ? 2 : 1;
	}
	if (co.table || co.coz || co.coz_jsonl || co.plot) {
		co.name = o.input;
		co.pprof = o.pprof;
		co.table = co.table && !o.pprof;
		ret = cp_causal_report(&rd, &co, stdout, stderr);
		if (ret < 0)
			fprintf(stderr, "%s: %s: %s\n", o.prog, o.input, strerror(-ret));
		ret = ret < 0 ? 1 : ret;
	} else {
		ret = cp_report(&o, &rd);
	}
	cp_rec_close(&rd);
	return ret;
}
