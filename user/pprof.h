/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_PPROF_H
#define CPROF_PPROF_H

/*
 * One event of a profile as a gzipped pprof profile (user/profile.proto):
 * two sample types, samples/count and EVENT/UNIT, the second weighted by
 * each sample's period; or the sample types the caller lists, each a
 * value of the samples of one event (an event's samples and the off-CPU
 * waits of the same profile, each with their own types).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define CP_PPROF_MAX_VALUES	8

/* Which value of a profile's sample a sample type is. */
enum cp_pprof_field {
	CP_PPROF_COUNT,		/* samples, or waits */
	CP_PPROF_WEIGHT,	/* their weight */
	CP_PPROF_WAIT,		/* off-CPU: of the weight, the time waiting */
	CP_PPROF_DELAY,		/* off-CPU: the rest, the run queue's delay */
};

struct cp_pprof_value {
	uint8_t event;		/* the profile's samples of this event */
	enum cp_pprof_field field;
	const char *type, *unit;
};

/* A gzip stream kept from profile to profile (cprof record --every's). */
struct cp_pprof_gz;

struct cp_pprof_gz *cp_pprof_gz_new(void);
void cp_pprof_gz_free(struct cp_pprof_gz *gz);

struct cp_pprof_info {
	uint8_t event;		/* whose samples, without values */
	const char *name;	/* the event's name, period_type's type */
	const char *unit;	/* "nanoseconds" or "count" */
	/* The sample types, instead of samples/count and name/unit; NULL: those. */
	const struct cp_pprof_value *values;
	size_t nr_values;
	const char *default_type;	/* of values, the one pprof shows first; NULL: the last */
	int64_t period;		/* events between samples (average, if it varied) */
	int64_t time_nanos;	/* start, ns since the Unix epoch; 0 unknown */
	int64_t duration_nanos;
	uint32_t main;		/* the main program's mapping, index + 1; 0 none */
	bool labels;		/* write the samples' pid, tid and comm labels */
	const char *const *comments;
	size_t nr_comments;
	struct cp_pprof_gz *gz;	/* the caller's, or NULL: one for this profile */
};

/* Writes the profile to @out; 0, -ENOMEM, or -EIO (with errno) on a write error. */
int cp_pprof_write(FILE *out, struct cp_profile *p, const struct cp_pprof_info *info);

#endif /* CPROF_PPROF_H */
