// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of cprof report: an input is a recording, reported in
 * memory the way the command reports a file, through every view and to
 * pprof with labels, with and without --force. Whatever the input, report
 * must return 0, 1 or 2: never crash, leak, read out of bounds or hang.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

static FILE *null_out;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_report_opts o = {
		.prog = "cprof report",
		.input = "fuzz",
		.fraction = CP_TOP_FRACTION,
	};
	static const enum cp_view views[] = { CP_VIEW_FUNCTIONS, CP_VIEW_LINES, CP_VIEW_THREADS };
	struct cp_rec_reader rd;
	int ret;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	o.out = o.err = null_out;
	/*
	 * The last byte picks the view, --force, and whether the mapped files
	 * are looked for (slow: libdw inflates their DWARF) or not (then only
	 * the recording's vDSO image is symbolized).
	 */
	if (size) {
		o.view = views[data[size - 1] % 3];
		o.force = data[size - 1] & 4;
		o.symfs = data[size - 1] & 8 ? "/nonexistent" : NULL;
	}
	if (cp_rec_open_mem(&rd, data, size))
		return 0;
	ret = cp_report(&o, &rd);
	cp_rec_close(&rd);
	if (ret < 0 || ret > 2)
		abort();

	o.pprof = "/dev/null";
	o.labels = true;
	if (cp_rec_open_mem(&rd, data, size))
		return 0;
	ret = cp_report(&o, &rd);
	cp_rec_close(&rd);
	if (ret < 0 || ret > 2)
		abort();
	return 0;
}
