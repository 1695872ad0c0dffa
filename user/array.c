// SPDX-License-Identifier: GPL-2.0
/*
 * Growable arrays (array.h).
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

int cp_array_reserve(void *arr, size_t *cap, size_t nr, size_t more, size_t size)
{
	void **p = arr;
	size_t want = *cap ? *cap : 8;
	void *grown;

	if (nr + more <= *cap)
		return 0;
	if (more > SIZE_MAX / size - nr)
		return -ENOMEM;
	while (want < nr + more)
		want = want > SIZE_MAX / 2 / size ? nr + more : want * 2;
	grown = realloc(*p, want * size);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	*cap = want;
	return 0;
}
