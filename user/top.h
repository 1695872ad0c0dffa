/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_TOP_H
#define CPROF_TOP_H

/*
 * The text views of cprof report: the samples of one event summed by
 * function or by source line (flat, flat%, sum%, cum, cum% as `pprof -top`
 * prints them), or by thread.
 */

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

enum cp_view {
	CP_VIEW_FUNCTIONS,
	CP_VIEW_LINES,
	CP_VIEW_THREADS,
};

/* pprof -top's default -nodefraction */
#define CP_TOP_FRACTION		0.005

/*
 * Prints the view of @event's samples of @p, without the functions or lines
 * whose cum weight is under @fraction of the total; 0 or -ENOMEM.
 */
int cp_top_print(FILE *out, const struct cp_profile *p, uint8_t event, const char *unit,
		 enum cp_view view, double fraction);
/* @v in @unit as pprof prints a value: "1.25s", "12ms", "34021". */
void cp_top_format(char *buf, size_t size, uint64_t v, const char *unit);
/* @part of @total as pprof prints a share: "12.34%", "0.52%", "  100%". */
void cp_top_percent(char *buf, size_t size, uint64_t part, uint64_t total);

#endif /* CPROF_TOP_H */
