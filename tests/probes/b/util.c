// SPDX-License-Identifier: GPL-2.0
/*
 * One of two sources named util.c in probetarget (b/ and the other): a
 * FILE:LINE that says only "util.c" is ambiguous; both have a helper().
 */

#include "../probes.h"

static volatile unsigned long sink_b;

static __attribute__((noipa)) unsigned long helper(unsigned long n)
{
	sink_b += n;	/* MARK:util_b */
	return sink_b;
}

unsigned long util_b(unsigned long n)
{
	return helper(n) + 1;
}

void *util_b_helper(void)
{
	return (void *)helper;
}
