// SPDX-License-Identifier: GPL-2.0
/*
 * The profile's tables: arrays that only grow, each with a hash index on
 * its key, so that a mapping, function, location or stack is kept once
 * however many samples share it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile.h"

int cp_prof_init(struct cp_profile *p)
{
	memset(p, 0, sizeof(*p));
	cp_htab_init(&p->mapping_index);
	cp_htab_init(&p->function_index);
	cp_htab_init(&p->location_index);
	cp_htab_init(&p->sample_index);
	cp_htab_init(&p->thread_index);
	return cp_strtab_init(&p->strs);
}

void cp_prof_free(struct cp_profile *p)
{
	cp_strtab_free(&p->strs);
	free(p->mappings);
	free(p->functions);
	free(p->lines);
	free(p->locations);
	free(p->samples);
	free(p->loc_ids);
	free(p->labels);
	free(p->threads);
	cp_htab_free(&p->mapping_index);
	cp_htab_free(&p->function_index);
	cp_htab_free(&p->location_index);
	cp_htab_free(&p->sample_index);
	cp_htab_free(&p->thread_index);
	memset(p, 0, sizeof(*p));
}

static uint64_t mapping_hash(const struct cp_prof_mapping *m)
{
	uint64_t h = cp_hash_u64(CP_HASH_SEED, m->file);

	h = cp_hash_u64(h, m->start);
	h = cp_hash_u64(h, m->limit);
	return cp_hash_u64(h, m->offset);
}

static bool mapping_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_prof_mapping *a = &((const struct cp_profile *)ctx)->mappings[idx];
	const struct cp_prof_mapping *b = key;

	return a->file == b->file && a->start == b->start && a->limit == b->limit &&
	       a->offset == b->offset;
}

int64_t cp_prof_mapping(struct cp_profile *p, const struct cp_prof_mapping *m)
{
	uint64_t hash = mapping_hash(m);

	return cp_htab_intern(&p->mapping_index, hash, mapping_eq, p, m, &p->mappings,
			      &p->nr_mappings, &p->cap_mappings, sizeof(*m));
}

static uint64_t function_hash(const struct cp_prof_function *f)
{
	uint64_t h = cp_hash_u64(CP_HASH_SEED, f->name);

	h = cp_hash_u64(h, f->sysname);
	h = cp_hash_u64(h, f->file);
	return cp_hash_u64(h, f->start_line);
}

static bool function_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_prof_function *a = &((const struct cp_profile *)ctx)->functions[idx];
	const struct cp_prof_function *b = key;

	return a->name == b->name && a->sysname == b->sysname && a->file == b->file &&
	       a->start_line == b->start_line;
}

int64_t cp_prof_function(struct cp_profile *p, const struct cp_prof_function *f)
{
	uint64_t hash = function_hash(f);

	return cp_htab_intern(&p->function_index, hash, function_eq, p, f, &p->functions,
			      &p->nr_functions, &p->cap_functions, sizeof(*f));
}

struct location_key {
	uint32_t mapping;
	uint64_t address;
};

static bool location_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_prof_location *a = &((const struct cp_profile *)ctx)->locations[idx];
	const struct location_key *b = key;

	return a->mapping == b->mapping && a->address == b->address;
}

static uint64_t location_hash(uint32_t mapping, uint64_t address)
{
	return cp_hash_u64(cp_hash_u64(CP_HASH_SEED, mapping), address);
}

int64_t cp_prof_find_location(const struct cp_profile *p, uint32_t mapping, uint64_t address)
{
	struct location_key key = { .mapping = mapping, .address = address };

	return cp_htab_find(&p->location_index, location_hash(mapping, address), location_eq,
			    p, &key);
}

int64_t cp_prof_add_location(struct cp_profile *p, uint32_t mapping, uint64_t address,
			     const struct cp_prof_line *lines, uint32_t nr, bool hidden)
{
	struct cp_prof_location *l;

	if (cp_array_reserve(&p->locations, &p->cap_locations, p->nr_locations, 1, sizeof(*l)) ||
	    cp_array_reserve(&p->lines, &p->cap_lines, p->nr_lines, nr, sizeof(*lines)))
		return -ENOMEM;
	if (!hidden && cp_htab_add(&p->location_index, location_hash(mapping, address),
				   p->nr_locations))
		return -ENOMEM;
	l = &p->locations[p->nr_locations];
	*l = (struct cp_prof_location){
		.address = address,
		.mapping = mapping,
		.line = p->nr_lines,
		.nr_lines = nr,
	};
	if (nr)
		memcpy(&p->lines[p->nr_lines], lines, nr * sizeof(*lines));
	p->nr_lines += nr;
	return p->nr_locations++;
}

struct sample_key {
	const uint32_t *locs;
	uint32_t nr;
	const struct cp_prof_sample_labels *l;
	uint8_t event;
};

static bool sample_eq(const void *ctx, uint32_t idx, const void *k)
{
	const struct cp_profile *p = ctx;
	const struct cp_prof_sample *s = &p->samples[idx];
	const struct sample_key *key = k;
	const struct cp_prof_sample_labels *l = key->l;

	return s->event == key->event && s->nr_locs == key->nr && s->pid == l->pid &&
	       s->tid == l->tid && s->comm == l->comm && s->nr_labels == l->nr_go &&
	       (!key->nr || !memcmp(&p->loc_ids[s->loc], key->locs, key->nr * sizeof(*key->locs))) &&
	       (!l->nr_go || !memcmp(&p->labels[s->label], l->go, l->nr_go * sizeof(*l->go)));
}

int64_t cp_prof_sample(struct cp_profile *p, uint8_t event, const uint32_t *locs, uint32_t nr,
		       const struct cp_prof_sample_labels *labels)
{
	static const struct cp_prof_sample_labels none;
	const struct cp_prof_sample_labels *l = labels ? labels : &none;
	struct sample_key key = { .locs = locs, .nr = nr, .l = l, .event = event };
	uint64_t hash = cp_hash_u64(CP_HASH_SEED, event);
	struct cp_prof_sample *s;
	int64_t i;

	hash = cp_hash_u64(hash, ((uint64_t)l->pid << 32) | l->tid);
	hash = cp_hash_u64(hash, l->comm);
	hash = cp_hash_mem(hash, locs, nr * sizeof(*locs));
	hash = cp_hash_mem(hash, l->go, l->nr_go * sizeof(*l->go));
	i = cp_htab_find(&p->sample_index, hash, sample_eq, p, &key);
	if (i >= 0)
		return i;
	if (cp_array_reserve(&p->samples, &p->cap_samples, p->nr_samples, 1, sizeof(*s)) ||
	    cp_array_reserve(&p->loc_ids, &p->cap_loc_ids, p->nr_loc_ids, nr, sizeof(*locs)) ||
	    cp_array_reserve(&p->labels, &p->cap_labels, p->nr_labels, l->nr_go,
			     sizeof(*l->go)) ||
	    cp_htab_add(&p->sample_index, hash, p->nr_samples))
		return -ENOMEM;
	s = &p->samples[p->nr_samples];
	*s = (struct cp_prof_sample){
		.loc = p->nr_loc_ids, .nr_locs = nr,
		.pid = l->pid, .tid = l->tid, .comm = l->comm, .event = event,
		.label = p->nr_labels, .nr_labels = l->nr_go,
	};
	if (nr)
		memcpy(&p->loc_ids[p->nr_loc_ids], locs, nr * sizeof(*locs));
	if (l->nr_go)
		memcpy(&p->labels[p->nr_labels], l->go, l->nr_go * sizeof(*l->go));
	p->nr_labels += l->nr_go;
	p->nr_loc_ids += nr;
	return p->nr_samples++;
}

static bool thread_eq(const void *ctx, uint32_t idx, const void *k)
{
	const struct cp_prof_thread *a = &((const struct cp_profile *)ctx)->threads[idx];
	const struct cp_prof_thread *b = k;

	return a->event == b->event && a->pid == b->pid && a->tid == b->tid &&
	       a->comm == b->comm;
}

int cp_prof_thread_add(struct cp_profile *p, uint8_t event, uint32_t pid, uint32_t tid,
		       uint32_t comm, uint64_t count, uint64_t weight)
{
	struct cp_prof_thread key = { .pid = pid, .tid = tid, .comm = comm, .event = event };
	uint64_t hash = cp_hash_u64(cp_hash_u64(CP_HASH_SEED, ((uint64_t)pid << 32) | tid),
				    ((uint64_t)comm << 8) | event);
	int64_t i = cp_htab_intern(&p->thread_index, hash, thread_eq, p, &key, &p->threads,
				   &p->nr_threads, &p->cap_threads, sizeof(key));

	if (i < 0)
		return i;
	p->threads[i].count += count;
	p->threads[i].weight += weight;
	return 0;
}
