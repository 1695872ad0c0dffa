// SPDX-License-Identifier: GPL-2.0
/*
 * From recorded stacks to profile samples.
 *
 * A stack is resolved once: its exact addresses, with the epoch of its
 * process's mappings (which changes whenever they do), are the key of a
 * cache of stacks already seen, so a sample that repeats one costs a hash
 * and a compare. A new stack's addresses each become a location, named once
 * per location. The innermost address is where the sample was taken; the
 * others are return addresses, so they are looked up (and kept) one byte
 * back, inside the call that will return there, as pprof expects.
 *
 * Code no file names keeps its address, with no function made up, so that
 * pprof can name it later; text views call it FILE+0xOFFSET, the file
 * offset where its function starts (from the unwind table), or its own.
 * Anonymous code is named from its JIT's perf map, if the recording has one.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "resolve.h"

#define KERNEL_START	0xffff800000000000ULL

struct cp_raw {
	uint32_t spid;		/* the sample's process */
	uint32_t epoch;		/* of its mappings */
	size_t ips;		/* first of its addresses in raw_ips */
	uint32_t pid, tid;	/* labels only */
	uint32_t comm;
	size_t go;		/* first of its Go labels in raw_go */
	uint32_t nr_go;
	uint32_t sample;	/* in the profile */
	uint16_t nr_kernel, nr_user;
	uint8_t event;
	bool returns;
};

struct raw_key {
	const struct causalprof_sample *s;
	const struct cp_resolve_as *as;
	struct cp_key at;
	uint32_t epoch;
	struct cp_prof_sample_labels l;
	struct cp_prof_label go[CAUSALPROF_GO_LABELS_MAX];
};

void cp_resolve_init(struct cp_resolver *r, struct cp_profile *prof, struct cp_replay *replay,
		     const struct cp_ksyms *ks, struct cp_symbolizer *sym, bool labels, bool text)
{
	memset(r, 0, sizeof(*r));
	r->prof = prof;
	r->replay = replay;
	r->ks = ks;
	r->sym = sym;
	r->labels = labels;
	r->text = text;
	r->lost_loc = -1;
	r->anon_file = -1;
	cp_htab_init(&r->raw_index);
}

void cp_resolve_free(struct cp_resolver *r)
{
	size_t i;

	for (i = 0; i < r->nr_perfmaps; i++)
		cp_perfmap_free(&r->perfmaps[i]);
	free(r->perfmaps);
	free(r->kmaps);
	free(r->raws);
	free(r->raw_ips);
	free(r->raw_go);
	free(r->locs);
	cp_htab_free(&r->raw_index);
}

static int64_t intern(struct cp_resolver *r, const char *s)
{
	return cp_strtab_add_str(&r->prof->strs, s ? s : "");
}

/* The profile mapping (+ 1) of kernel module @mod, 0 the kernel itself. */
static int64_t kernel_mapping(struct cp_resolver *r, unsigned int mod)
{
	const struct cp_kmod *km = r->ks ? cp_ksyms_module(r->ks, mod) : NULL;
	struct cp_prof_mapping m = { .start = KERNEL_START, .limit = UINT64_MAX, .kernel = true };
	char name[96];
	int64_t file, i;

	if (mod < r->nr_kmaps && r->kmaps[mod])
		return r->kmaps[mod];
	if (mod >= r->nr_kmaps) {
		uint32_t *kmaps = realloc(r->kmaps, (mod + 1) * sizeof(*kmaps));

		if (!kmaps)
			return -ENOMEM;
		memset(kmaps + r->nr_kmaps, 0, (mod + 1 - r->nr_kmaps) * sizeof(*kmaps));
		r->kmaps = kmaps;
		r->nr_kmaps = mod + 1;
	}
	if (km && km->name[0])
		snprintf(name, sizeof(name), "[%s]", km->name);
	else
		snprintf(name, sizeof(name), "%s", CP_KERNEL_MAPPING);
	if (km && km->end) {
		m.start = km->start;
		m.limit = km->end;
	}
	file = intern(r, name);
	if (file < 0)
		return -ENOMEM;
	m.file = file;
	if (r->ks)
		m.caps = CP_SYM_FUNCTIONS;
	i = cp_prof_mapping(r->prof, &m);
	if (i < 0)
		return i;
	r->kmaps[mod] = i + 1;
	return i + 1;
}

static int64_t kernel_location(struct cp_resolver *r, uint64_t addr)
{
	struct cp_prof_function fn = { 0 };
	struct cp_prof_line line = { 0 };
	const char *name = NULL;
	unsigned int mod = 0;
	int64_t mapping, i, s;

	if (r->ks)
		mod = cp_ksyms_find(r->ks, addr, &name);
	mapping = kernel_mapping(r, mod);
	if (mapping < 0)
		return mapping;
	i = cp_prof_find_location(r->prof, mapping, addr);
	if (i >= 0)
		return i;
	if (!name)
		return cp_prof_add_location(r->prof, mapping, addr, NULL, 0, false);
	s = intern(r, name);
	if (s < 0)
		return s;
	fn.name = fn.sysname = s;
	i = cp_prof_function(r->prof, &fn);
	if (i < 0)
		return i;
	line.function = i;
	return cp_prof_add_location(r->prof, mapping, addr, &line, 1, false);
}

/* The lines of @addr of mapping @map, from its file. */
static int user_lines(struct cp_resolver *r, const struct cp_map *map, uint64_t addr,
		      struct cp_prof_line *lines)
{
	struct cp_sym_frame frames[CP_SYM_MAX_FRAMES];
	struct cp_prof_function fn;
	struct cp_sym_file *f;
	int64_t name, sysname, file, i;
	int n, k, nr = 0;

	f = cp_sym_file(r->sym, cp_str(&r->prof->strs, map->path));
	if (!f)
		return -ENOMEM;
	n = cp_sym_lookup(f, addr - map->start + map->pgoff, frames, CP_SYM_MAX_FRAMES);
	for (k = 0; k < n; k++) {
		if (!frames[k].func)
			continue;	/* a nameless DIE: its caller's line tells */
		name = intern(r, frames[k].func);
		sysname = intern(r, frames[k].sysname ? frames[k].sysname : frames[k].func);
		file = intern(r, frames[k].decl_file ? frames[k].decl_file : frames[k].file);
		if (name < 0 || sysname < 0 || file < 0)
			return -ENOMEM;
		fn = (struct cp_prof_function){
			.name = name, .sysname = sysname, .file = file,
			.start_line = frames[k].decl_line,
		};
		i = cp_prof_function(r->prof, &fn);
		if (i < 0)
			return i;
		lines[nr++] = (struct cp_prof_line){ .function = i, .line = frames[k].line };
	}
	return nr;
}

int cp_resolve_add_perfmap(struct cp_resolver *r, uint32_t pid, const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < r->nr_perfmaps; i++)
		if (r->perfmaps[i].pid == pid)
			return 0;	/* one per process: the first */
	if (CP_RESERVE(r->perfmaps, r->cap_perfmaps, r->nr_perfmaps, 1) ||
	    cp_perfmap_parse(&r->perfmaps[r->nr_perfmaps], pid, text, len))
		return -ENOMEM;
	r->nr_perfmaps++;
	return 0;
}

static bool is_anon(const struct cp_resolver *r, const struct cp_map *map)
{
	return !strcmp(cp_str(&r->prof->strs, map->path), CAUSALPROF_MMAP_ANON);
}

/* The JIT's name of @addr of process @pid, as a line of its own. */
static int jit_line(struct cp_resolver *r, uint32_t pid, uint64_t addr,
		    struct cp_prof_line *line)
{
	struct cp_prof_function fn = { 0 };
	const char *name = NULL;
	size_t i, len;
	int64_t s;

	for (i = 0; i < r->nr_perfmaps && !name; i++)
		if (r->perfmaps[i].pid == pid)
			name = cp_perfmap_find(&r->perfmaps[i], addr, &len);
	if (!name)
		return 0;
	s = cp_strtab_add(&r->prof->strs, name, len);
	if (s < 0)
		return s;
	fn.sysname = s;
	s = intern(r, cp_sym_demangle(r->sym, cp_str(&r->prof->strs, s)));
	if (s < 0)
		return s;
	fn.name = s;
	s = cp_prof_function(r->prof, &fn);
	if (s < 0)
		return s;
	*line = (struct cp_prof_line){ .function = s };
	return 1;
}

/* What text views call code of @map's file that it names no function of. */
static int64_t unknown_name(struct cp_resolver *r, const struct cp_map *map, uint64_t addr)
{
	const char *path = cp_str(&r->prof->strs, map->path), *base;
	uint64_t off = addr - map->start + map->pgoff, start;
	struct cp_sym_file *f;
	char buf[512];

	if (path[0] != '/' || path[1] == '/' || !strncmp(path, "/memfd:", 7))
		return 0;	/* "[vdso]" and the like are named by text views */
	f = cp_sym_file(r->sym, path);
	if (!f)
		return -ENOMEM;
	if (!cp_sym_func_start(f, off, &start))
		off = start;
	base = strrchr(path, '/') + 1;
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, base, off);
	return intern(r, buf);
}

static int64_t user_location(struct cp_resolver *r, struct cp_proc *p, uint64_t addr,
			     struct cp_key at)
{
	struct cp_prof_line lines[CP_SYM_MAX_FRAMES];
	struct cp_map *map = p ? cp_replay_find_map(p, addr, at) : NULL;
	bool anon = map && is_anon(r, map);
	uint32_t mapping = 0;
	int64_t i, name = 0;
	int n = 0;

	if (map && !map->mapping) {
		struct cp_prof_mapping m = {
			.start = map->start, .limit = map->end, .offset = map->pgoff,
			.file = map->path,
		};

		if (anon) {
			if (r->anon_file < 0)
				r->anon_file = intern(r, CP_ANON_MAPPING);
			if (r->anon_file < 0)
				return r->anon_file;
			m.file = r->anon_file;
			m.anon = true;
		}
		i = cp_prof_mapping(r->prof, &m);
		if (i < 0)
			return i;
		map->mapping = i + 1;
	}
	if (map)
		mapping = map->mapping;
	i = cp_prof_find_location(r->prof, mapping, addr);
	if (i >= 0)
		return i;
	if (map && !anon)
		n = user_lines(r, map, addr, lines);
	/* JITs whose code is a file's (a memfd's) name it in their map too. */
	if (!n && p && r->nr_perfmaps)
		n = jit_line(r, p->pid, addr, lines);
	if (n < 0)
		return n;
	if (!n && map && !anon && r->text) {
		name = unknown_name(r, map, addr);
		if (name < 0)
			return name;
	}
	i = cp_prof_add_location(r->prof, mapping, addr, lines, n, false);
	if (i >= 0)
		r->prof->locations[i].name = name;
	return i;
}

/*
 * Return addresses are looked up inside the call before them: every
 * address but a sample's first, and all of an off-CPU stack's.
 */
static uint64_t frame_addr(const struct raw_key *k, unsigned int i)
{
	const struct causalprof_sample *s = k->s;

	return (i || k->as->returns) && s->ips[i] ? s->ips[i] - 1 : s->ips[i];
}

static int64_t resolve_stack(struct cp_resolver *r, const struct raw_key *k)
{
	const struct causalprof_sample *s = k->s;
	unsigned int n = s->nr_kernel + s->nr_user, i;
	struct cp_proc *p = cp_replay_find_proc(r->replay, s->pid);
	int64_t loc;

	if (!r->locs) {
		r->locs = malloc(2 * 65536 * sizeof(*r->locs));
		if (!r->locs)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (i < s->nr_kernel)
			loc = kernel_location(r, frame_addr(k, i));
		else
			loc = user_location(r, p, frame_addr(k, i), k->at);
		if (loc < 0)
			return loc;
		r->locs[i] = loc;
	}
	return cp_prof_sample(r->prof, k->as->event, r->locs, n, &k->l);
}

static uint64_t raw_hash(const struct raw_key *k)
{
	const struct causalprof_sample *s = k->s;
	uint64_t h = cp_hash_u64(CP_HASH_SEED, ((uint64_t)s->pid << 32) | k->epoch);

	h = cp_hash_u64(h, ((uint64_t)s->nr_kernel << 32) | ((uint64_t)s->nr_user << 16) |
			((uint64_t)k->as->returns << 8) | k->as->event);
	h = cp_hash_u64(h, ((uint64_t)k->l.pid << 32) | k->l.tid);
	h = cp_hash_u64(h, k->l.comm);
	h = cp_hash_mem(h, k->go, k->l.nr_go * sizeof(k->go[0]));
	return cp_hash_mem(h, s->ips, (s->nr_kernel + s->nr_user) * sizeof(*s->ips));
}

static bool raw_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_resolver *r = ctx;
	const struct cp_raw *raw = &r->raws[idx];
	const struct raw_key *k = key;
	const struct causalprof_sample *s = k->s;

	return raw->spid == s->pid && raw->epoch == k->epoch && raw->nr_kernel == s->nr_kernel &&
	       raw->nr_user == s->nr_user && raw->event == k->as->event &&
	       raw->returns == k->as->returns && raw->pid == k->l.pid &&
	       raw->tid == k->l.tid && raw->comm == k->l.comm && raw->nr_go == k->l.nr_go &&
	       (!k->l.nr_go ||
		!memcmp(&r->raw_go[raw->go], k->go, k->l.nr_go * sizeof(k->go[0]))) &&
	       !memcmp(&r->raw_ips[raw->ips], s->ips,
		       (s->nr_kernel + s->nr_user) * sizeof(*s->ips));
}

static int add_raw(struct cp_resolver *r, const struct raw_key *k, uint64_t hash,
		   uint32_t sample)
{
	const struct causalprof_sample *s = k->s;
	size_t n = s->nr_kernel + s->nr_user;

	if (cp_array_reserve(&r->raws, &r->cap_raws, r->nr_raws, 1, sizeof(*r->raws)) ||
	    cp_array_reserve(&r->raw_ips, &r->cap_raw_ips, r->nr_raw_ips, n, sizeof(*r->raw_ips)) ||
	    cp_array_reserve(&r->raw_go, &r->cap_raw_go, r->nr_raw_go, k->l.nr_go,
			     sizeof(*r->raw_go)) ||
	    r->nr_raws >= UINT32_MAX - 1 ||
	    cp_htab_add(&r->raw_index, hash, r->nr_raws))
		return -ENOMEM;
	r->raws[r->nr_raws++] = (struct cp_raw){
		.spid = s->pid, .epoch = k->epoch, .ips = r->nr_raw_ips, .pid = k->l.pid,
		.tid = k->l.tid, .comm = k->l.comm, .go = r->nr_raw_go, .nr_go = k->l.nr_go,
		.sample = sample, .nr_kernel = s->nr_kernel, .nr_user = s->nr_user,
		.event = k->as->event, .returns = k->as->returns,
	};
	if (n)
		memcpy(&r->raw_ips[r->nr_raw_ips], s->ips, n * sizeof(*s->ips));
	r->nr_raw_ips += n;
	if (k->l.nr_go)
		memcpy(&r->raw_go[r->nr_raw_go], k->go, k->l.nr_go * sizeof(k->go[0]));
	r->nr_raw_go += k->l.nr_go;
	return 0;
}

/* The Go labels @go[@nr] as strings of the profile, into @k. */
static int intern_go(struct cp_resolver *r, struct raw_key *k, const struct cp_go_label *go,
		     int nr)
{
	int64_t key, value;
	int i;

	for (i = 0; i < nr && i < CAUSALPROF_GO_LABELS_MAX; i++) {
		key = cp_strtab_add(&r->prof->strs, go[i].key, go[i].key_len);
		value = cp_strtab_add(&r->prof->strs, go[i].value, go[i].value_len);
		if (key < 0 || value < 0)
			return -ENOMEM;
		k->go[i] = (struct cp_prof_label){ .key = key, .value = value };
	}
	k->l.go = k->go;
	k->l.nr_go = i;
	return 0;
}

int cp_resolve_sample(struct cp_resolver *r, const struct causalprof_sample *s, struct cp_key at,
		      const struct cp_resolve_as *as)
{
	uint32_t comm = cp_replay_comm(r->replay, s->tid, at);
	struct cp_proc *p = cp_replay_find_proc(r->replay, s->pid);
	struct raw_key k = { .s = s, .as = as, .at = at,
			     .epoch = p ? cp_replay_epoch(p, at) : 0 };
	struct cp_prof_sample *ps;
	uint64_t hash;
	int64_t i;
	int ret;

	if (r->labels) {
		k.l.pid = s->pid;
		k.l.tid = s->tid;
		k.l.comm = comm;
	}
	ret = intern_go(r, &k, as->labels, as->nr_labels);
	if (ret)
		return ret;
	hash = raw_hash(&k);
	i = cp_htab_find(&r->raw_index, hash, raw_eq, r, &k);
	if (i >= 0) {
		i = r->raws[i].sample;
	} else {
		i = resolve_stack(r, &k);
		if (i < 0)
			return i;
		ret = add_raw(r, &k, hash, i);
		if (ret)
			return ret;
	}
	ps = &r->prof->samples[i];
	ps->count += as->count;
	ps->weight += s->period;
	ps->wait += as->wait;
	return cp_prof_thread_add(r->prof, as->event, s->pid, s->tid, comm, as->count, s->period);
}

int cp_resolve_lost(struct cp_resolver *r, uint8_t event, uint64_t count, uint64_t weight)
{
	struct cp_prof_function fn = { 0 };
	struct cp_prof_line line = { 0 };
	struct cp_prof_sample *ps;
	uint32_t loc;
	int64_t i;

	if (r->lost_loc < 0) {
		i = intern(r, CP_LOST_FUNCTION);
		if (i < 0)
			return i;
		fn.name = fn.sysname = i;
		i = cp_prof_function(r->prof, &fn);
		if (i < 0)
			return i;
		line.function = i;
		r->lost_loc = cp_prof_add_location(r->prof, 0, 0, &line, 1, true);
		if (r->lost_loc < 0)
			return r->lost_loc;
	}
	loc = r->lost_loc;
	i = cp_prof_sample(r->prof, event, &loc, 1, NULL);
	if (i < 0)
		return i;
	ps = &r->prof->samples[i];
	ps->count += count;
	ps->weight += weight;
	return 0;
}

static int hex_build_id(struct cp_resolver *r, const uint8_t *id, size_t len)
{
	char hex[2 * CP_BUILD_ID_MAX + 1];
	size_t i;

	for (i = 0; i < len && i < CP_BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * i] = '\0';
	return intern(r, hex);
}

int cp_resolve_finish(struct cp_resolver *r)
{
	struct cp_prof_mapping *m;
	struct cp_sym_file *f;
	const uint8_t *id;
	size_t i, len;
	int64_t s;

	for (i = 0; i < r->prof->nr_mappings; i++) {
		m = &r->prof->mappings[i];
		if (m->kernel)
			continue;
		if (m->anon) {
			/* Named from perf maps: pprof knows them no other way. */
			m->caps = r->nr_perfmaps ? CP_SYM_FUNCTIONS : 0;
			continue;
		}
		f = cp_sym_file(r->sym, cp_str(&r->prof->strs, m->file));
		if (!f)
			return -ENOMEM;
		m->caps = cp_sym_caps(f);
		len = cp_sym_build_id(f, &id);
		if (!len)
			continue;
		s = hex_build_id(r, id, len);
		if (s < 0)
			return s;
		m->build_id = s;
	}
	return 0;
}
