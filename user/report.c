// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report: per-thread and per-function shares of a recording's samples,
 * per event. A sample's function is the one of its innermost frame: kernel
 * addresses are named from the recording's copy of /proc/kallsyms, user
 * addresses from the files the process had mapped at the time, found by
 * replaying the MMAP, COMM, FORK and EXEC records in time order.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cprof.h"
#include "recording.h"
#include "symbols.h"

#define DEFAULT_INPUT	"cprof.data"
#define UNKNOWN		"[unknown]"
#define KERNEL		"[kernel.kallsyms]"
/* How far back an exec's own mappings are looked for, in records. */
#define EXEC_LOOKBACK	10000

static const char usage_text[] =
	"usage: cprof report [-i FILE]\n"
	"\n"
	"Summarize a recording made by 'cprof record': for every event, the share\n"
	"of its samples' weight per thread, and per function of the innermost\n"
	"frame.\n"
	"\n"
	"  -i, --input FILE  read FILE (default " DEFAULT_INPUT ")\n"
	"  -h, --help        show this help\n";

struct map {
	uint64_t start, len, pgoff;
	uint64_t time_ns;
	const char *path;	/* interned */
};

struct proc {
	uint32_t pid;		/* the key */
	struct map *maps;	/* in the order they came: the newest wins */
	size_t nr, cap;
};

struct thread {
	uint32_t tid;		/* the key */
	const char *comm;	/* interned */
};

/* One sample, resolved: strings are interned, so equal means same pointer. */
struct hit {
	uint32_t pid, tid;
	uint8_t event;
	const char *comm;
	const char *func;
	const char *module;
	uint64_t weight;
};

struct row {
	const struct hit *first;
	uint64_t samples, weight;
};

struct report {
	const char *prog;
	const char *input;
	struct cp_rec_reader rd;
	int read_err;			/* how reading stopped: 0, -ENODATA, -EBADMSG */

	/* META */
	char *meta[16];
	char *event_names[CAUSALPROF_MAX_EVENTS];
	const struct causalprof_record_hdr *kallsyms;

	/* The records that have a time, sorted by it */
	const struct causalprof_record_hdr **timed;
	size_t nr_timed, cap_timed;

	bool end_seen;
	uint64_t end_samples, end_lost, lost, malformed;

	struct cp_ksyms *ks;
	struct cp_usyms *us;
	void *strings, *procs, *threads;	/* tsearch trees */

	struct hit *hits;
	size_t nr_hits;
};

static const char *const meta_keys[] = {
	"cprof_version", "hostname", "kernel_release", "start_time", "target", "command",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The one copy of @s, or NULL when out of memory. */
static const char *intern(struct report *r, const char *s)
{
	char *copy, **slot;

	slot = tfind(s, &r->strings, cmp_str);
	if (slot)
		return *slot;
	copy = strdup(s);
	if (!copy)
		return NULL;
	slot = tsearch(copy, &r->strings, cmp_str);
	if (!slot) {
		free(copy);
		return NULL;
	}
	return *slot;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static struct proc *get_proc(struct report *r, uint32_t pid)
{
	struct proc *p, **slot;

	slot = tfind(&pid, &r->procs, cmp_u32);
	if (slot)
		return *slot;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	slot = tsearch(p, &r->procs, cmp_u32);
	if (!slot) {
		free(p);
		return NULL;
	}
	return *slot;
}

static struct thread *get_thread(struct report *r, uint32_t tid)
{
	struct thread *t, **slot;

	slot = tfind(&tid, &r->threads, cmp_u32);
	if (slot)
		return *slot;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	slot = tsearch(t, &r->threads, cmp_u32);
	if (!slot) {
		free(t);
		return NULL;
	}
	return *slot;
}

static void free_proc(void *p)
{
	free(((struct proc *)p)->maps);
	free(p);
}

static int add_map(struct proc *p, const struct map *m)
{
	size_t i, j;

	/* Mappings the new one covers whole are gone. */
	for (i = j = 0; i < p->nr; i++) {
		const struct map *old = &p->maps[i];

		if (old->start >= m->start && old->start + old->len <= m->start + m->len)
			continue;
		p->maps[j++] = *old;
	}
	p->nr = j;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct map *maps = realloc(p->maps, cap * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		p->maps = maps;
		p->cap = cap;
	}
	p->maps[p->nr++] = *m;
	return 0;
}

static const struct map *find_map(const struct proc *p, uint64_t addr)
{
	size_t i = p->nr;

	while (i--)
		if (addr - p->maps[i].start < p->maps[i].len)
			return &p->maps[i];
	return NULL;
}

/* Drops the mappings of @p older than @time_ns. */
static void drop_maps_before(struct proc *p, uint64_t time_ns)
{
	size_t i, j;

	for (i = j = 0; i < p->nr; i++)
		if (p->maps[i].time_ns >= time_ns)
			p->maps[j++] = p->maps[i];
	p->nr = j;
}

static uint64_t rec_time(const struct causalprof_record_hdr *h)
{
	uint64_t t = 0;

	cp_rec_time(h, &t);
	return t;
}

/* The process a timed record is about, or 0. */
static uint32_t rec_pid(const struct causalprof_record_hdr *h)
{
	const struct causalprof_sample *s;
	const struct causalprof_mmap *m;
	const struct causalprof_comm *c;
	const struct causalprof_task *t;

	if ((s = cp_rec_sample(h)))
		return s->pid;
	if ((m = cp_rec_mmap(h)))
		return m->pid;
	if ((c = cp_rec_comm(h)))
		return c->pid;
	if ((t = cp_rec_task(h)))
		return t->pid;
	return 0;
}

/* Is @path the file a task that exec()ed it is named @comm after? */
static bool comm_matches(const char *comm, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(comm);

	base = base ? base + 1 : path;
	/* The kernel keeps TASK_COMM_LEN - 1 = 15 characters of the name. */
	return len && !strncmp(base, comm, len) && (len >= 15 || !base[len]);
}

/*
 * The exec at timeline index @at, by a task now called @comm: the process's
 * mappings from before it are gone. The kernel may report the new image's
 * mappings before the exec's COMM (they are made while exec() runs; the exec
 * tracepoint fires when it is done). Those directly precede it, with no
 * record of the process between them but its samples in the kernel (exec()
 * running) and thread exits (exec() ends the other threads); the first is
 * the executable, which the task is named after. They are kept.
 */
static void apply_exec(struct report *r, size_t at, struct proc *p, const char *comm)
{
	uint64_t keep_from = rec_time(r->timed[at]);
	size_t i = at, seen = 0;

	while (i-- && seen++ < EXEC_LOOKBACK) {
		const struct causalprof_record_hdr *h = r->timed[i];
		const struct causalprof_sample *s;
		const struct causalprof_mmap *m;

		if (rec_pid(h) != p->pid)
			continue;
		m = cp_rec_mmap(h);
		if (m) {
			keep_from = m->time_ns;
			if (comm_matches(comm, m->path))
				break;
			continue;
		}
		s = cp_rec_sample(h);
		if (s && !(s->sflags & CAUSALPROF_SAMPLE_F_USER))
			continue;
		if (h->type == CAUSALPROF_REC_EXIT)
			continue;
		break;
	}
	drop_maps_before(p, keep_from);
}

/* A module name in brackets, like perf's "[ext4]". */
static const char *kmod_name(struct report *r, const char *mod)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "[%s]", mod);
	return intern(r, buf);
}

static int resolve(struct report *r, const struct causalprof_sample *s, struct hit *h)
{
	const struct thread *t;
	const struct proc *p;
	const struct map *m;
	const char *name = NULL, *mod = NULL;
	uint64_t ip;

	h->pid = s->pid;
	h->tid = s->tid;
	h->event = s->event;
	h->weight = s->period;
	t = get_thread(r, s->tid);
	if (!t)
		return -ENOMEM;
	h->comm = t->comm ? t->comm : intern(r, UNKNOWN);
	h->module = intern(r, "");

	if (s->nr_kernel) {
		ip = s->ips[0];
		h->module = intern(r, KERNEL);
		if (r->ks)
			name = cp_ksyms_find(r->ks, ip, &mod);
		if (mod)
			h->module = kmod_name(r, mod);
	} else if (s->nr_user) {
		ip = s->ips[0];
		p = get_proc(r, s->pid);
		if (!p)
			return -ENOMEM;
		m = find_map(p, ip);
		if (m) {
			h->module = m->path;
			name = cp_usyms_find(r->us, m->path, ip - m->start + m->pgoff);
		}
	}
	h->func = intern(r, name ? name : UNKNOWN);
	if (!h->comm || !h->func || !h->module)
		return -ENOMEM;
	return 0;
}

static int copy_maps(struct proc *to, const struct proc *from)
{
	struct map *maps = NULL;

	if (from->nr) {
		maps = malloc(from->nr * sizeof(*maps));
		if (!maps)
			return -ENOMEM;
		memcpy(maps, from->maps, from->nr * sizeof(*maps));
	}
	free(to->maps);
	to->maps = maps;
	to->nr = to->cap = from->nr;
	return 0;
}

static int comm_of(struct report *r, const struct causalprof_comm *c, const char **comm)
{
	char buf[sizeof(c->comm) + 1];

	memcpy(buf, c->comm, sizeof(c->comm));
	buf[sizeof(c->comm)] = '\0';
	*comm = intern(r, buf);
	return *comm ? 0 : -ENOMEM;
}

/* Replays the timeline: mappings and names as they were, each sample resolved. */
static int replay(struct report *r)
{
	size_t i;
	int ret;

	r->hits = calloc(r->nr_timed ? r->nr_timed : 1, sizeof(*r->hits));
	if (!r->hits)
		return -ENOMEM;
	for (i = 0; i < r->nr_timed; i++) {
		const struct causalprof_record_hdr *h = r->timed[i];
		const struct causalprof_sample *s;
		const struct causalprof_mmap *m;
		const struct causalprof_comm *c;
		const struct causalprof_task *t;
		struct thread *th, *parent;
		struct proc *p, *pp;

		if ((s = cp_rec_sample(h))) {
			ret = resolve(r, s, &r->hits[r->nr_hits]);
			if (ret)
				return ret;
			r->nr_hits++;
		} else if ((m = cp_rec_mmap(h))) {
			struct map map = {
				.start = m->start, .len = m->len, .pgoff = m->pgoff,
				.time_ns = m->time_ns, .path = intern(r, m->path),
			};

			p = get_proc(r, m->pid);
			if (!p || !map.path || add_map(p, &map))
				return -ENOMEM;
		} else if ((c = cp_rec_comm(h))) {
			th = get_thread(r, c->tid);
			if (!th || comm_of(r, c, &th->comm))
				return -ENOMEM;
			if (h->flags & CAUSALPROF_COMM_F_EXEC) {
				p = get_proc(r, c->pid);
				if (!p)
					return -ENOMEM;
				apply_exec(r, i, p, th->comm);
			}
		} else if ((t = cp_rec_task(h)) && h->type == CAUSALPROF_REC_FORK) {
			th = get_thread(r, t->tid);
			parent = get_thread(r, t->ptid);
			if (!th || !parent)
				return -ENOMEM;
			if (parent->comm)
				th->comm = parent->comm;
			if (t->pid == t->ppid)
				continue;	/* a thread: same mappings */
			p = get_proc(r, t->pid);
			pp = get_proc(r, t->ppid);
			if (!p || !pp || copy_maps(p, pp))
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_timed(const void *a, const void *b)
{
	const struct causalprof_record_hdr *x = *(const void *const *)a;
	const struct causalprof_record_hdr *y = *(const void *const *)b;
	uint64_t tx = rec_time(x), ty = rec_time(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;	/* same time: file order */
}

static void take_meta(struct report *r, const struct causalprof_record_hdr *h)
{
	size_t len, i, klen;
	const char *text = cp_rec_text(h, &len), *line, *end, *eq;
	unsigned int ev;
	char key[64];
	int n;

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
		}
		n = 0;
		if (sscanf(key, "event.%u.name%n", &ev, &n) == 1 && n && !key[n] &&
		    ev < CAUSALPROF_MAX_EVENTS) {
			free(r->event_names[ev]);
			r->event_names[ev] = strndup(eq + 1, end - eq - 1);
		}
	}
}

static const char *meta(const struct report *r, const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(meta_keys); i++)
		if (!strcmp(key, meta_keys[i]))
			return r->meta[i];
	return NULL;
}

static int add_timed(struct report *r, const struct causalprof_record_hdr *h)
{
	if (r->nr_timed == r->cap_timed) {
		size_t cap = r->cap_timed ? r->cap_timed * 2 : 4096;
		const struct causalprof_record_hdr **timed;

		timed = realloc(r->timed, cap * sizeof(*timed));
		if (!timed)
			return -ENOMEM;
		r->timed = timed;
		r->cap_timed = cap;
	}
	r->timed[r->nr_timed++] = h;
	return 0;
}

static bool timed_valid(const struct causalprof_record_hdr *h)
{
	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
		return cp_rec_sample(h);
	case CAUSALPROF_REC_MMAP:
		return cp_rec_mmap(h);
	case CAUSALPROF_REC_COMM:
		return cp_rec_comm(h);
	case CAUSALPROF_REC_FORK:
	case CAUSALPROF_REC_EXIT:
		return cp_rec_task(h);
	}
	return false;
}

/* Reads every record it can; a damaged tail ends the reading, not the report. */
static int read_all(struct report *r)
{
	const struct causalprof_record_hdr *h;
	const struct cp_rec_buildid *b;
	const struct causalprof_lost *l;
	const struct causalprof_end *e;
	int ret;

	while ((ret = cp_rec_next(&r->rd, &h, NULL)) > 0) {
		switch (h->type) {
		case CAUSALPROF_REC_SAMPLE:
		case CAUSALPROF_REC_MMAP:
		case CAUSALPROF_REC_COMM:
		case CAUSALPROF_REC_FORK:
		case CAUSALPROF_REC_EXIT:
			if (!timed_valid(h))
				r->malformed++;
			else if (add_timed(r, h))
				return -ENOMEM;
			break;
		case CAUSALPROF_REC_LOST:
			l = cp_rec_lost(h);
			if (l)
				r->lost += l->lost;
			else
				r->malformed++;
			break;
		case CAUSALPROF_REC_END:
			e = cp_rec_end(h);
			if (!e) {
				r->malformed++;
				break;
			}
			r->end_seen = true;
			r->end_samples = e->samples;
			r->end_lost = e->lost;
			break;
		case CP_REC_META:
			take_meta(r, h);
			break;
		case CP_REC_KALLSYMS:
			r->kallsyms = h;
			break;
		case CP_REC_BUILDID:
			b = cp_rec_buildid(h);
			if (!b)
				r->malformed++;
			else if (cp_usyms_expect(r->us, (const char *)b->data + b->id_size,
						 b->data, b->id_size) == -ENOMEM)
				return -ENOMEM;
			break;
		}
	}
	r->read_err = ret;
	return 0;
}

static int cmp_thread_key(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

static int cmp_func_key(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int c;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	c = strcmp(x->func, y->func);
	return c ? c : strcmp(x->module, y->module);
}

static int cmp_row_weight(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * The hits of one event, @hits sorted by @cmp, summed into rows by @cmp's
 * key, heaviest first. Returns the number of rows, or -ENOMEM.
 */
static long make_rows(const struct hit *hits, size_t nr, int (*cmp)(const void *, const void *),
		      struct row **rows)
{
	size_t i, n = 0;

	*rows = calloc(nr ? nr : 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!n || cmp((*rows)[n - 1].first, &hits[i]))
			(*rows)[n++].first = &hits[i];
		(*rows)[n - 1].samples++;
		(*rows)[n - 1].weight += hits[i].weight;
	}
	qsort(*rows, n, sizeof(**rows), cmp_row_weight);
	return n;
}

static double share(uint64_t part, uint64_t samples, uint64_t total_weight,
		    uint64_t total_samples)
{
	if (total_weight)
		return 100.0 * part / total_weight;
	return total_samples ? 100.0 * samples / total_samples : 0;
}

static int print_event(struct report *r, unsigned int ev, struct hit *hits, size_t nr)
{
	uint64_t weight = 0;
	struct row *rows;
	long n, i;
	size_t j;

	for (j = 0; j < nr; j++)
		weight += hits[j].weight;
	printf("\n# event %u: %s: %zu samples, weight %" PRIu64 "\n", ev,
	       ev < CAUSALPROF_MAX_EVENTS && r->event_names[ev] ? r->event_names[ev] : "?",
	       nr, weight);

	qsort(hits, nr, sizeof(*hits), cmp_thread_key);
	n = make_rows(hits, nr, cmp_thread_key, &rows);
	if (n < 0)
		return n;
	printf("\n# threads\n#%9s %9s %8s %8s  %s\n", "weight%", "samples", "pid", "tid", "comm");
	for (i = 0; i < n; i++)
		printf("%9.2f%% %9" PRIu64 " %8" PRIu32 " %8" PRIu32 "  %s\n",
		       share(rows[i].weight, rows[i].samples, weight, nr), rows[i].samples,
		       rows[i].first->pid, rows[i].first->tid, rows[i].first->comm);
	free(rows);

	qsort(hits, nr, sizeof(*hits), cmp_func_key);
	n = make_rows(hits, nr, cmp_func_key, &rows);
	if (n < 0)
		return n;
	printf("\n# functions (innermost frame)\n#%9s %9s  %s\n", "weight%", "samples",
	       "function  [module]");
	for (i = 0; i < n; i++) {
		const struct hit *h = rows[i].first;

		printf("%9.2f%% %9" PRIu64 "  %s",
		       share(rows[i].weight, rows[i].samples, weight, nr), rows[i].samples,
		       h->func);
		/* Paths get brackets; "[kernel.kallsyms]" and "[ext4]" have them. */
		if (h->module[0] == '[')
			printf("  %s", h->module);
		else if (h->module[0])
			printf("  [%s]", h->module);
		putchar('\n');
	}
	free(rows);
	return 0;
}

static int cmp_hit_event(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->event < y->event ? -1 : x->event > y->event;
}

static void print_header(const struct report *r)
{
	const char *v;

	printf("# cprof report of %s\n", r->input);
	if ((v = meta(r, "start_time")))
		printf("# recorded %s on %s, kernel %s, cprof %s\n", v,
		       meta(r, "hostname") ?: "?", meta(r, "kernel_release") ?: "?",
		       meta(r, "cprof_version") ?: "?");
	if ((v = meta(r, "command")))
		printf("# command: %s (pid %s)\n", v, meta(r, "target") ?: "?");
	else if ((v = meta(r, "target")))
		printf("# target: %s%s\n", strcmp(v, "system-wide") ? "process " : "", v);
	printf("# %zu samples, %" PRIu64 " lost%s\n", r->nr_hits,
	       r->end_seen ? r->end_lost : r->lost,
	       r->end_seen ? "" : "; no END record: the recording was cut short");
}

static int print_report(struct report *r)
{
	size_t i, j;
	int ret;

	print_header(r);
	if (!r->nr_hits)
		printf("\n# no samples\n");
	if (r->nr_hits)
		qsort(r->hits, r->nr_hits, sizeof(*r->hits), cmp_hit_event);
	for (i = 0; i < r->nr_hits; i = j) {
		for (j = i; j < r->nr_hits && r->hits[j].event == r->hits[i].event; j++)
			;
		ret = print_event(r, r->hits[i].event, r->hits + i, j - i);
		if (ret)
			return ret;
	}
	return 0;
}

static void free_report(struct report *r)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(r->meta); i++)
		free(r->meta[i]);
	for (i = 0; i < ARRAY_SIZE(r->event_names); i++)
		free(r->event_names[i]);
	free(r->timed);
	free(r->hits);
	cp_ksyms_free(r->ks);
	cp_usyms_free(r->us);
	tdestroy(r->procs, free_proc);
	tdestroy(r->threads, free);
	tdestroy(r->strings, free);
	cp_rec_close(&r->rd);
}

int cmd_report(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "help",  no_argument,	      NULL, 'h' },
		{ }
	};
	struct report r = { .prog = argv[0], .input = DEFAULT_INPUT, .rd = { .fd = -1 } };
	const char *text;
	size_t len;
	int ret = 1, err, c;

	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			r.input = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", r.prog, argv[optind]);
		fputs(usage_text, stderr);
		return 2;
	}

	err = cp_rec_open(&r.rd, r.input);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", r.prog, r.input, r.rd.err);
		return 1;
	}
	r.us = cp_usyms_new();
	if (!r.us)
		goto out_nomem;
	if (read_all(&r))
		goto out_nomem;
	if (r.read_err == -ENODATA)
		fprintf(stderr, "%s: warning: %s: %s; reporting the records before it\n",
			r.prog, r.input, r.rd.err);
	else if (r.read_err)
		fprintf(stderr, "%s: %s: %s; reporting the records before it\n", r.prog,
			r.input, r.rd.err);
	else if (!r.end_seen)
		fprintf(stderr, "%s: warning: %s has no END record: the recording was cut short\n",
			r.prog, r.input);
	if (r.malformed)
		fprintf(stderr, "%s: warning: %s: %" PRIu64 " malformed records skipped\n",
			r.prog, r.input, r.malformed);
	if (r.kallsyms) {
		text = cp_rec_text(r.kallsyms, &len);
		r.ks = cp_ksyms_new(text, len);
	}

	if (r.nr_timed)
		qsort(r.timed, r.nr_timed, sizeof(*r.timed), cmp_timed);
	if (replay(&r))
		goto out_nomem;
	if (print_report(&r))
		goto out_nomem;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the report: %s\n", r.prog, strerror(errno));
		goto out_free;
	}
	/* A damaged file reports what it can, and fails. */
	ret = r.read_err == -EBADMSG ? 1 : 0;
	goto out_free;

out_nomem:
	fprintf(stderr, "%s: out of memory\n", r.prog);
out_free:
	free_report(&r);
	return ret;
}
