// SPDX-License-Identifier: GPL-2.0
/*
 * One of two sources named util.c in probetarget (a/ and the other): a
 * FILE:LINE that says only "util.c" is ambiguous; both have a helper().
 */

#include "../probes.h"

static volatile unsigned long sink_a;

static __attribute__((noipa)) unsigned long helper(unsigned long n)
{
	sink_a += n;	/* MARK:util_a */
	return sink_a;
}

unsigned long util_a(unsigned long n)
{
	return helper(n) + 1;
}

void *util_a_helper(void)
{
	return (void *)helper;
}
