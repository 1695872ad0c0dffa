/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_PPROF_H
#define CPROF_PPROF_H

/*
 * One event of a profile as a gzipped pprof profile (user/profile.proto):
 * two sample types, samples/count and EVENT/UNIT, the second weighted by
 * each sample's period.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* A gzip stream kept from profile to profile (cprof record --every's). */
struct cp_pprof_gz;

struct cp_pprof_gz *cp_pprof_gz_new(void);
void cp_pprof_gz_free(struct cp_pprof_gz *gz);

struct cp_pprof_info {
	uint8_t event;		/* whose samples */
	const char *name;	/* the event's name, period_type's type */
	const char *unit;	/* "nanoseconds" or "count" */
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
