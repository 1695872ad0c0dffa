// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel tells of itself: local timer interrupts
 * (/proc/interrupts) and the taint mask.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "internal.h"

int cp_timer_irqs(uint64_t *count, int max)
{
	char line[4096], *p, *end;
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/interrupts", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "LOC:", 4))
			continue;
		ret = 0;
		for (p += 4; ret < max; p = end) {
			unsigned long long n = strtoull(p, &end, 10);

			if (end == p)
				break;
			count[ret++] = n;
		}
		break;
	}
	fclose(f);
	return ret;
}

int cp_kernel_taint(uint64_t *mask)
{
	return cp_read_u64_file("/proc/sys/kernel/tainted", mask);
}
