/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_PROFILE_H
#define CPROF_PROFILE_H

/*
 * A recording summed into the shape of a pprof profile: mappings, functions,
 * locations (an address and its inline chain of lines), and samples (a stack
 * of locations with how many samples and how much weight had it), each kept
 * once. The text views and the pprof writer both read it. Indexes are
 * 0-based; pprof ids are index + 1.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "htab.h"
#include "strtab.h"

struct cp_prof_mapping {
	uint64_t start, limit, offset;
	uint32_t file;		/* strings */
	uint32_t build_id;	/* hex, 0 if none */
	unsigned int caps;	/* CP_SYM_* */
	bool kernel;
	bool anon;		/* anonymous code (a JIT's) */
};

struct cp_prof_function {
	uint32_t name, sysname, file;
	int64_t start_line;
};

struct cp_prof_line {
	uint32_t function;	/* index */
	int64_t line;
};

struct cp_prof_location {
	uint64_t address;
	uint32_t mapping;	/* index + 1; 0: none */
	uint32_t line;		/* first of its lines, innermost first */
	uint32_t nr_lines;	/* 0: unknown code */
	uint32_t name;		/* unknown code: its name in text views ("FILE+0xOFF"), or 0 */
};

/* A string label: a Go program's pprof label (both strings). */
struct cp_prof_label {
	uint32_t key, value;
};

struct cp_prof_sample {
	uint32_t loc;		/* first of its location indexes, innermost first */
	uint32_t nr_locs;
	uint32_t pid, tid;	/* labels (0 without) */
	uint32_t comm;
	uint32_t label;		/* first of its Go labels in labels[], sorted */
	uint32_t nr_labels;
	uint8_t event;
	uint64_t count, weight;
	uint64_t wait;		/* off-CPU: of weight, waiting; the rest run-queue delay */
};

/* Per thread and event, for the thread view. */
struct cp_prof_thread {
	uint32_t pid, tid, comm;
	uint8_t event;
	uint64_t count, weight;
};

struct cp_profile {
	struct cp_strtab strs;
	struct cp_prof_mapping *mappings;
	struct cp_prof_function *functions;
	struct cp_prof_line *lines;
	struct cp_prof_location *locations;
	struct cp_prof_sample *samples;
	uint32_t *loc_ids;		/* the stacks of the samples */
	struct cp_prof_label *labels;	/* the Go labels of the samples */
	struct cp_prof_thread *threads;
	size_t nr_mappings, nr_functions, nr_lines, nr_locations, nr_samples, nr_loc_ids,
	       nr_threads, nr_labels;
	size_t cap_mappings, cap_functions, cap_lines, cap_locations, cap_samples,
	       cap_loc_ids, cap_threads, cap_labels;
	struct cp_htab mapping_index, function_index, location_index, sample_index,
		       thread_index;
};

int cp_prof_init(struct cp_profile *p);
void cp_prof_free(struct cp_profile *p);

/* The index of the mapping with @m's file, start, limit and offset; added if new. */
int64_t cp_prof_mapping(struct cp_profile *p, const struct cp_prof_mapping *m);
int64_t cp_prof_function(struct cp_profile *p, const struct cp_prof_function *f);
/* The location of @address in mapping @mapping (index + 1, or 0), or -1. */
int64_t cp_prof_find_location(const struct cp_profile *p, uint32_t mapping, uint64_t address);
/*
 * Adds a location with @nr lines; found by cp_prof_find_location() later
 * unless @hidden (a synthetic one). Returns its index or -ENOMEM.
 */
int64_t cp_prof_add_location(struct cp_profile *p, uint32_t mapping, uint64_t address,
			     const struct cp_prof_line *lines, uint32_t nr, bool hidden);
/* A sample's labels: @pid, @tid, @comm (all 0 for none) and its Go labels. */
struct cp_prof_sample_labels {
	uint32_t pid, tid, comm;
	const struct cp_prof_label *go;	/* sorted */
	uint32_t nr_go;
};

/*
 * The sample of @event with the stack @locs[@nr] and the labels @l (NULL:
 * none); added with no count or weight if new.
 */
int64_t cp_prof_sample(struct cp_profile *p, uint8_t event, const uint32_t *locs, uint32_t nr,
		       const struct cp_prof_sample_labels *l);
int cp_prof_thread_add(struct cp_profile *p, uint8_t event, uint32_t pid, uint32_t tid,
		       uint32_t comm, uint64_t count, uint64_t weight);

#endif /* CPROF_PROFILE_H */
