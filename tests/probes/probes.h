/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PROBES_H
#define PROBES_H

/*
 * probetarget and libprobelib: code built -O2 -g whose functions, lines and
 * USDT probes probes_test resolves as progress points.
 */

unsigned long probelib_work(unsigned long n);
/* Two versions: probelib_ver@PROBELIB_1 (old) and probelib_ver@@PROBELIB_2. */
unsigned long probelib_ver(unsigned long n);

/* a/util.c and b/util.c: each has a static helper() of its own. */
unsigned long util_a(unsigned long n);
unsigned long util_b(unsigned long n);
void *util_a_helper(void);
void *util_b_helper(void);

/* sema.c: a USDT probe (ptest:sema) guarded by a semaphore. */
void sema_fire(void);

#endif
