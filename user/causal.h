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

/*
 * Prints the causal table of the recording open in @rd to @out (@name
 * names it in messages). Returns 0, 1 with the reason on @err (no causal
 * experiment in it), or -errno.
 */
int cp_causal_report(struct cp_rec_reader *rd, const char *name, unsigned int top,
		     FILE *out, FILE *err);

#endif /* CPROF_CAUSAL_H */
