// SPDX-License-Identifier: GPL-2.0
/*
 * A library that symtarget loads with dlopen(): lib_outer() calls a probe
 * from lib_inner(), which the compiler inlines into it.
 */

#include "sym.h"

static volatile unsigned long lib_sink;

static inline __attribute__((always_inline)) void lib_inner(sym_probe_fn probe, int call_line)
{
	lib_sink += call_line;
	probe(__LINE__, call_line);
	lib_sink++;
}

__attribute__((noinline)) void lib_outer(sym_probe_fn probe)
{
	lib_sink++;
	lib_inner(probe, __LINE__);
	lib_sink++;
}

/* The hot loop of "symtarget spin". */
__attribute__((noinline)) unsigned long lib_spin(unsigned long n)
{
	unsigned long i, x = lib_sink;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	lib_sink = x;
	return x;
}
