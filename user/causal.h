/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_CAUSAL_H
#define CPROF_CAUSAL_H

/*
 * cprof report --causal: a causal recording's experiments turned into the
 * answer, per progress point: the lines ranked by impact, each with its
 * program speedup at every line speedup measured.
 */

#include <stdio.h>

#include "recording.h"

#include <stdbool.h>

struct cp_causal_opts {
	const char *name;		/* of the recording, for messages */
	bool table;			/* print the table */
	unsigned int top;		/* lines per progress point */
	const char *coz;		/* write Coz's profile.coz format there */
	const char *coz_jsonl;		/* and its JSON lines there */
	const char *plot;		/* charts of the top lines: SVG, or HTML (.html) */
	const char *pprof;		/* the lines' impacts as a gzipped pprof */
	bool verbose;			/* and each experiment's accounting */
};

/*
 * The causal profile of the recording open in @rd: the table on @out,
 * Coz's formats in their files. Returns 0, 1 with the reason on @err (no
 * causal experiment in it, a file not written), 2 (a damaged recording),
 * or -errno.
 */
int cp_causal_report(struct cp_rec_reader *rd, const struct cp_causal_opts *o, FILE *out,
		     FILE *err);

#endif /* CPROF_CAUSAL_H */
