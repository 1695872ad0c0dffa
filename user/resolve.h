/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_RESOLVE_H
#define CPROF_RESOLVE_H

/*
 * Samples into the profile: each address of a sample's stack becomes a
 * location of the mapping that had it at the time (the kernel's or a
 * module's for kernel addresses), named once by the symbolizer or from
 * kallsyms; the stack becomes a sample of the profile, weighted.
 */

#include <stdbool.h>
#include <stdint.h>
#include <linux/causalprof.h>

#include "golabels.h"
#include "htab.h"
#include "ksyms.h"
#include "perfmap.h"
#include "profile.h"
#include "replay.h"
#include "symbolize.h"

#define CP_LOST_FUNCTION	"[lost samples]"
#define CP_KERNEL_MAPPING	"[kernel.kallsyms]"
/* The profile's mapping of anonymous code ("//anon" in the recording). */
#define CP_ANON_MAPPING		"[anon]"

struct cp_raw;

struct cp_resolver {
	struct cp_profile *prof;
	struct cp_replay *replay;
	const struct cp_ksyms *ks;	/* NULL: kernel frames stay unnamed */
	struct cp_symbolizer *sym;
	bool labels;			/* samples carry pid, tid and comm */
	bool text;			/* for a text view: unknown code named FILE+0xOFF */

	uint32_t *kmaps;		/* profile mapping + 1, by kernel module */
	unsigned int nr_kmaps;
	int64_t lost_loc;		/* the [lost samples] location, or -1 */
	int64_t anon_file;		/* the string CP_ANON_MAPPING, or -1 */

	struct cp_perfmap *perfmaps;	/* JITs' names, by process */
	size_t nr_perfmaps, cap_perfmaps;

	/* Stacks already resolved, as recorded: most samples repeat one. */
	struct cp_raw *raws;
	size_t nr_raws, cap_raws;
	uint64_t *raw_ips;
	size_t nr_raw_ips, cap_raw_ips;
	struct cp_prof_label *raw_go;
	size_t nr_raw_go, cap_raw_go;
	struct cp_htab raw_index;
	uint32_t *locs;			/* scratch: a stack's locations */
};

/*
 * @text: the profile is for a text view, which names code no function
 * names FILE+0xOFFSET (pprof keeps the address and names it itself).
 */
void cp_resolve_init(struct cp_resolver *r, struct cp_profile *prof, struct cp_replay *replay,
		     const struct cp_ksyms *ks, struct cp_symbolizer *sym, bool labels, bool text);
void cp_resolve_free(struct cp_resolver *r);
/*
 * The perf map of process @pid (/tmp/perf-PID.map, @len bytes of @text,
 * which stay where they are): names its anonymous code. 0 or -ENOMEM.
 */
int cp_resolve_add_perfmap(struct cp_resolver *r, uint32_t pid, const char *text, size_t len);
/* How a recorded stack counts in the profile. */
struct cp_resolve_as {
	uint8_t event;		/* the profile's event it counts for */
	uint64_t count;		/* samples (or waits) it stands for */
	uint64_t wait;		/* off-CPU: of the weight, the time waiting */
	bool returns;		/* every address is a return address (off-CPU) */
	const struct cp_go_label *labels;	/* its string labels (Go's, or a wait's reason) */
	int nr_labels;
};

/*
 * Adds the samples of @s (of total weight s->period), the record at @at,
 * with the processes as they were then, as @as says.
 */
int cp_resolve_sample(struct cp_resolver *r, const struct causalprof_sample *s, struct cp_key at,
		      const struct cp_resolve_as *as);
/* Adds @count lost samples of @event, weighing @weight, on the [lost samples] frame. */
int cp_resolve_lost(struct cp_resolver *r, uint8_t event, uint64_t count, uint64_t weight);
/* Once every sample is in: the mappings' build ids and what their files offered. */
int cp_resolve_finish(struct cp_resolver *r);

#endif /* CPROF_RESOLVE_H */
