// SPDX-License-Identifier: GPL-2.0
/*
 * A USDT probe with a semaphore, as dtrace -G programs have them: the
 * probe's note gives the semaphore's address (cprof never sets it).
 */

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "probes.h"

__extension__ unsigned short ptest_sema_semaphore __attribute__((unused, section(".probes")));

void sema_fire(void)
{
	if (ptest_sema_semaphore)
		STAP_PROBE(ptest, sema);
}
