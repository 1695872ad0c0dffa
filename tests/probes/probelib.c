// SPDX-License-Identifier: GPL-2.0
/*
 * libprobelib.so, which probetarget links (found through DT_RUNPATH
 * $ORIGIN): a function, a versioned function and a cprof.h probe.
 */

#include <cprof.h>

#include "probes.h"

__attribute__((noinline)) unsigned long probelib_work(unsigned long n)
{
	CPROF_PROGRESS(lib);
	return n * 3 + 1;
}

/* probelib_ver, old and default versions (the map file names them). */
__attribute__((noinline)) unsigned long probelib_ver_old(unsigned long n)
{
	return n + 1;
}

__attribute__((noinline)) unsigned long probelib_ver_new(unsigned long n)
{
	return n + 2;
}

__asm__(".symver probelib_ver_old, probelib_ver@PROBELIB_1");
__asm__(".symver probelib_ver_new, probelib_ver@@PROBELIB_2");
