// SPDX-License-Identifier: GPL-2.0
/*
 * Replaying a recording's sideband into state that remembers its past.
 *
 * MMAP adds a mapping, hiding the parts of older ones it overlaps (they end
 * there; what sticks out lives on as new pieces); FORK of a process copies
 * its parent's mappings, of a thread its name; COMM names a thread, and an
 * exec ends the process's mappings. Every mapping keeps the interval of
 * keys it held in, every thread its names with the key each was given at,
 * and every process the keys at which its mappings changed: a sample of any
 * moment finds the state of that moment.
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "recording.h"
#include "replay.h"

/* How far back an exec's own mappings are looked for, in sideband records. */
#define EXEC_LOOKBACK	10000

static const struct cp_key forever = { UINT64_MAX, UINT64_MAX };

void cp_replay_init(struct cp_replay *r, struct cp_strtab *strs)
{
	memset(r, 0, sizeof(*r));
	r->strs = strs;
	cp_htab_init(&r->proc_index);
	cp_htab_init(&r->thread_index);
}

void cp_replay_free(struct cp_replay *r)
{
	size_t i;

	for (i = 0; i < r->nr_procs; i++) {
		free(r->procs[i].maps);
		free(r->procs[i].live);
		free(r->procs[i].changes);
	}
	for (i = 0; i < r->nr_threads; i++)
		free(r->threads[i].names);
	free(r->procs);
	free(r->threads);
	free(r->side);
	free(r->copies);
	free(r->checks);
	cp_htab_free(&r->proc_index);
	cp_htab_free(&r->thread_index);
}
static const struct causalprof_record_hdr *side_rec(const struct cp_replay *r, size_t i)
{
	return (const void *)(r->copies + r->side[i].copy);
}

int cp_replay_add(struct cp_replay *r, const struct causalprof_record_hdr *h, uint64_t off)
{
	struct cp_side *s;
	uint64_t t = 0;

	if (cp_array_reserve(&r->side, &r->cap_side, r->nr_side, 1, sizeof(*r->side)) ||
	    cp_array_reserve(&r->copies, &r->copies_cap, r->copies_len, h->size, 1))
		return -ENOMEM;
	cp_rec_time(h, &t);
	s = &r->side[r->nr_side++];
	s->key = (struct cp_key){ t, off };
	s->copy = r->copies_len;
	memcpy(r->copies + r->copies_len, h, h->size);
	r->copies_len += h->size;
	return 0;
}

static int cmp_side(const void *a, const void *b)
{
	return cp_key_cmp(((const struct cp_side *)a)->key, ((const struct cp_side *)b)->key);
}

/* The process a sideband record is about, or 0. */
static uint32_t rec_pid(const struct causalprof_record_hdr *h)
{
	const struct causalprof_mmap *m;
	const struct causalprof_comm *c;
	const struct causalprof_task *t;

	if ((m = cp_rec_mmap(h)))
		return m->pid;
	if ((c = cp_rec_comm(h)))
		return c->pid;
	if ((t = cp_rec_task(h)))
		return t->pid;
	return 0;
}

/* Is @path the file a task that exec()ed it is named @comm after? */
static bool comm_matches(const char *comm, size_t len, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	/* The kernel keeps TASK_COMM_LEN - 1 = 15 characters of the name. */
	return len && !strncmp(base, comm, len) && (len >= 15 || !base[len]);
}

/*
 * The module reports an exec before the new image's mappings (kmod/hooks.c);
 * a recorder that reports it once exec is done has those directly before
 * it, with no record of the process in between but thread exits (exec ends
 * the other threads) and samples in the kernel (exec running), the first
 * being of the executable the task is named after. Finds those candidates;
 * the samples are checked later.
 */
static int find_exec_mappings(struct cp_replay *r, size_t at)
{
	const struct causalprof_comm *c = cp_rec_comm(side_rec(r, at));
	size_t i = at, seen = 0, len = strnlen(c->comm, sizeof(c->comm));
	const struct causalprof_record_hdr *h;
	const struct causalprof_mmap *m;
	struct cp_exec_check *check;

	while (i-- && seen++ < EXEC_LOOKBACK) {
		h = side_rec(r, i);
		if (rec_pid(h) != c->pid)
			continue;
		m = cp_rec_mmap(h);
		if (m && comm_matches(c->comm, len, m->path)) {
			check = realloc(r->checks, (r->nr_checks + 1) * sizeof(*check));
			if (!check)
				return -ENOMEM;
			r->checks = check;
			r->checks[r->nr_checks++] = (struct cp_exec_check){
				.pid = c->pid, .from = r->side[i].key, .to = r->side[at].key,
			};
			return 0;
		}
		if (m || h->type == CAUSALPROF_REC_EXIT)
			continue;
		return 0;
	}
	return 0;
}

long cp_replay_prepare(struct cp_replay *r)
{
	const struct causalprof_record_hdr *h;
	size_t i;
	int ret;

	if (r->nr_side)
		qsort(r->side, r->nr_side, sizeof(*r->side), cmp_side);
	for (i = 0; i < r->nr_side; i++) {
		h = side_rec(r, i);
		if (h->type != CAUSALPROF_REC_COMM || !(h->flags & CAUSALPROF_COMM_F_EXEC))
			continue;
		ret = find_exec_mappings(r, i);
		if (ret)
			return ret;
	}
	return r->nr_checks;
}

void cp_replay_check_sample(struct cp_replay *r, const struct causalprof_sample *s,
			    struct cp_key key)
{
	size_t i;

	if (!(s->sflags & CAUSALPROF_SAMPLE_F_USER))
		return;
	for (i = 0; i < r->nr_checks; i++)
		if (r->checks[i].pid == s->pid && cp_key_cmp(r->checks[i].from, key) < 0 &&
		    cp_key_cmp(key, r->checks[i].to) < 0)
			r->checks[i].failed = true;
}

/*
 * Processes and threads are their own keys: each starts with its id (pid,
 * tid), and one lookup serves both arrays.
 */
struct by_id {
	struct cp_htab *index;
	void *arr;		/* &r->procs or &r->threads */
	size_t *nr, *cap;
	size_t size;
};

_Static_assert(offsetof(struct cp_proc, pid) == 0, "a process starts with its pid");
_Static_assert(offsetof(struct cp_thread, tid) == 0, "a thread starts with its tid");

#define PROCS(r) (&(struct by_id){ &(r)->proc_index, &(r)->procs, &(r)->nr_procs, \
				   &(r)->cap_procs, sizeof(struct cp_proc) })
#define THREADS(r) (&(struct by_id){ &(r)->thread_index, &(r)->threads, &(r)->nr_threads, \
				     &(r)->cap_threads, sizeof(struct cp_thread) })

static bool id_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct by_id *t = ctx;
	const char *base = *(char *const *)t->arr;

	return !memcmp(base + (size_t)idx * t->size, key, sizeof(uint32_t));
}

/* The element with @id; if there is none, NULL, or with @add a new one (NULL: no memory). */
static void *by_id(const struct by_id *t, uint32_t id, bool add)
{
	union {
		struct cp_proc proc;
		struct cp_thread thread;
	} key = { 0 };
	uint64_t hash = cp_hash_u64(CP_HASH_SEED, id);
	int64_t i;

	memcpy(&key, &id, sizeof(id));
	i = add ? cp_htab_intern(t->index, hash, id_eq, t, &key, t->arr, t->nr, t->cap, t->size)
		: cp_htab_find(t->index, hash, id_eq, t, &key);
	return i >= 0 ? *(char **)t->arr + i * t->size : NULL;
}

struct cp_proc *cp_replay_find_proc(const struct cp_replay *r, uint32_t pid)
{
	return by_id(PROCS((struct cp_replay *)r), pid, false);
}

static struct cp_proc *get_proc(struct cp_replay *r, uint32_t pid)
{
	return by_id(PROCS(r), pid, true);
}

static struct cp_thread *find_thread(const struct cp_replay *r, uint32_t tid)
{
	return by_id(THREADS((struct cp_replay *)r), tid, false);
}

static struct cp_thread *get_thread(struct cp_replay *r, uint32_t tid)
{
	return by_id(THREADS(r), tid, true);
}

/* The last of @n keys (a stride of @size bytes apart) at or before @at. */
static size_t last_at(const void *base, size_t n, size_t size, struct cp_key at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cp_key *k = (const void *)((const char *)base + mid * size);

		if (cp_key_cmp(*k, at) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;	/* how many are at or before */
}

uint32_t cp_replay_comm(const struct cp_replay *r, uint32_t tid, struct cp_key at)
{
	const struct cp_thread *t = find_thread(r, tid);
	size_t n;

	if (!t || !t->nr)
		return 0;
	n = last_at(t->names, t->nr, sizeof(*t->names), at);
	return t->names[n ? n - 1 : 0].comm;
}

static int name_thread(struct cp_thread *t, struct cp_key at, uint32_t comm)
{
	if (cp_array_reserve(&t->names, &t->cap, t->nr, 1, sizeof(*t->names)))
		return -ENOMEM;
	t->names[t->nr++] = (struct cp_name){ .at = at, .comm = comm };
	return 0;
}

uint32_t cp_replay_epoch(const struct cp_proc *p, struct cp_key at)
{
	return last_at(p->changes, p->nr_changes, sizeof(*p->changes), at);
}

struct cp_map *cp_replay_find_map(struct cp_proc *p, uint64_t addr, struct cp_key at)
{
	size_t i;

	/* Newest first: most samples are of the present. */
	for (i = p->nr; i-- > 0;) {
		struct cp_map *m = &p->maps[i];

		if (addr - m->start < m->end - m->start && cp_key_cmp(m->from, at) <= 0 &&
		    cp_key_cmp(at, m->to) < 0)
			return m;
	}
	return NULL;
}

static int changed(struct cp_proc *p, struct cp_key at)
{
	if (p->nr_changes && !cp_key_cmp(p->changes[p->nr_changes - 1], at))
		return 0;
	if (cp_array_reserve(&p->changes, &p->cap_changes, p->nr_changes, 1, sizeof(*p->changes)))
		return -ENOMEM;
	p->changes[p->nr_changes++] = at;
	return 0;
}

/* A new mapping of @p, as of @m->from. */
static int new_map(struct cp_proc *p, const struct cp_map *m)
{
	if (p->nr >= CP_MAX_MAPS)
		return -E2BIG;
	if (cp_array_reserve(&p->maps, &p->cap, p->nr, 1, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->nr] = *m;
	p->maps[p->nr].to = forever;
	return p->nr++;
}

/* The first live mapping that ends after @addr. */
static size_t first_after(const struct cp_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_live;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[p->live[mid]].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A new mapping for what lives on of mapping @whole, from @start to @end, as
 * of @from: its index, or -errno.
 */
static int add_piece(struct cp_proc *p, uint32_t whole, uint64_t start, uint64_t end,
		     struct cp_key from)
{
	struct cp_map piece = p->maps[whole];

	piece.pgoff += start - piece.start;
	piece.start = start;
	piece.end = end;
	piece.from = from;
	piece.mapping = 0;
	return new_map(p, &piece);
}

/* Adds @m to @p's live mappings; the parts of older ones it overlaps end. */
static int add_map(struct cp_proc *p, struct cp_map *m)
{
	uint32_t pieces[3];
	size_t i, j, k, n = 0;
	int idx;

	i = first_after(p, m->start);
	for (j = i; j < p->nr_live && p->maps[p->live[j]].start < m->end; j++)
		;
	/* live[i, j) overlap m: what sticks out on either side lives on. */
	if (i < j && p->maps[p->live[i]].start < m->start) {
		idx = add_piece(p, p->live[i], p->maps[p->live[i]].start, m->start, m->from);
		if (idx < 0)
			return idx;
		pieces[n++] = idx;
	}
	idx = new_map(p, m);
	if (idx < 0)
		return idx;
	pieces[n++] = idx;
	if (i < j && p->maps[p->live[j - 1]].end > m->end) {
		idx = add_piece(p, p->live[j - 1], m->end, p->maps[p->live[j - 1]].end, m->from);
		if (idx < 0)
			return idx;
		pieces[n++] = idx;
	}
	for (k = i; k < j; k++)
		p->maps[p->live[k]].to = m->from;
	if (cp_array_reserve(&p->live, &p->cap_live, p->nr_live - (j - i), n,
			     sizeof(*p->live)))
		return -ENOMEM;
	memmove(&p->live[i + n], &p->live[j], (p->nr_live - j) * sizeof(*p->live));
	memcpy(&p->live[i], pieces, n * sizeof(*pieces));
	p->nr_live = p->nr_live - (j - i) + n;
	return changed(p, m->from);
}

static int apply_mmap(struct cp_replay *r, const struct causalprof_mmap *m, struct cp_key at)
{
	struct cp_proc *p = get_proc(r, m->pid);
	int64_t path = cp_strtab_add_str(r->strs, m->path);
	struct cp_map map = {
		.start = m->start,
		.end = m->start + m->len,
		.pgoff = m->pgoff,
		.from = at,
	};

	if (!p || path < 0)
		return -ENOMEM;
	map.path = path;
	if (!m->len || map.end < map.start)
		return 0;	/* nothing, or wraps around: no address is in it */
	if ((!p->exe || p->exec_pending) && m->path[0] == '/') {
		p->exe = path;
		p->exec_pending = false;
	}
	return add_map(p, &map);
}

/* Ends the live mappings of @p made before @keep_from, at @at. */
static int end_maps(struct cp_proc *p, struct cp_key keep_from, struct cp_key at)
{
	size_t i, j;

	for (i = j = 0; i < p->nr_live; i++) {
		struct cp_map *m = &p->maps[p->live[i]];

		if (cp_key_cmp(m->from, keep_from) < 0)
			m->to = at;
		else
			p->live[j++] = p->live[i];
	}
	p->nr_live = j;
	return changed(p, at);
}

static int apply_comm(struct cp_replay *r, const struct causalprof_comm *c, struct cp_key at)
{
	struct cp_thread *t = get_thread(r, c->tid);
	int64_t comm = cp_strtab_add(r->strs, c->comm, sizeof(c->comm));
	struct cp_key keep_from = at;
	struct cp_proc *p;
	size_t i, k;

	if (!t || comm < 0 || name_thread(t, at, comm))
		return -ENOMEM;
	if (!(c->hdr.flags & CAUSALPROF_COMM_F_EXEC))
		return 0;
	p = get_proc(r, c->pid);
	if (!p)
		return -ENOMEM;
	p->exec_pending = true;
	for (i = 0; i < r->nr_checks; i++) {
		if (r->checks[i].pid != c->pid || cp_key_cmp(r->checks[i].to, at) ||
		    r->checks[i].failed)
			continue;
		/* Its first mapping is the new executable's. */
		keep_from = r->checks[i].from;
		p->exec_pending = false;
		for (k = 0; k < p->nr_live; k++)
			if (!cp_key_cmp(p->maps[p->live[k]].from, keep_from))
				p->exe = p->maps[p->live[k]].path;
	}
	return end_maps(p, keep_from, at);
}

static int apply_fork(struct cp_replay *r, const struct causalprof_task *t, struct cp_key at)
{
	struct cp_thread *th, *parent;
	struct cp_proc *p, *pp;
	uint32_t comm;
	size_t i, ipp;
	int idx;

	parent = get_thread(r, t->ptid);
	if (!parent)
		return -ENOMEM;
	comm = parent->nr ? parent->names[parent->nr - 1].comm : 0;
	th = get_thread(r, t->tid);
	if (!th || (comm && name_thread(th, at, comm)))
		return -ENOMEM;
	if (t->pid == t->ppid)
		return 0;	/* a thread: same mappings */
	pp = get_proc(r, t->ppid);
	if (!pp)
		return -ENOMEM;
	ipp = pp - r->procs;
	p = get_proc(r, t->pid);	/* may move pp */
	if (!p)
		return -ENOMEM;
	pp = &r->procs[ipp];
	/* A pid used again: what it had is gone. */
	if (end_maps(p, forever, at))
		return -ENOMEM;
	for (i = 0; i < pp->nr_live; i++) {
		struct cp_map m = pp->maps[pp->live[i]];

		m.from = at;
		idx = new_map(p, &m);
		if (idx < 0)
			return idx;
		if (cp_array_reserve(&p->live, &p->cap_live, p->nr_live, 1, sizeof(*p->live)))
			return -ENOMEM;
		p->live[p->nr_live++] = idx;
	}
	p->exe = pp->exe;
	return changed(p, at);
}

int cp_replay_build(struct cp_replay *r)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_mmap *m;
	const struct causalprof_comm *c;
	const struct causalprof_task *t;
	struct cp_key at;
	size_t i;
	int ret = 0;

	for (i = 0; i < r->nr_side; i++) {
		h = side_rec(r, i);
		at = r->side[i].key;
		if ((m = cp_rec_mmap(h)))
			ret = apply_mmap(r, m, at);
		else if ((c = cp_rec_comm(h)))
			ret = apply_comm(r, c, at);
		else if ((t = cp_rec_task(h)) && h->type == CAUSALPROF_REC_FORK)
			ret = apply_fork(r, t, at);
		if (ret) {
			r->bad_off = at.off;
			return ret;
		}
	}
	return 0;
}
