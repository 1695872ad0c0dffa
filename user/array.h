/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_ARRAY_H
#define CPROF_ARRAY_H

/*
 * Growable arrays: a pointer, a count and a capacity that the caller keeps;
 * cp_array_reserve() makes room for more elements, doubling the capacity.
 */

#include <stddef.h>

/* Room in *@arr (*@cap elements of @size, @nr used) for @more more: 0 or -ENOMEM. */
int cp_array_reserve(void *arr, size_t *cap, size_t nr, size_t more, size_t size);

/* CP_RESERVE(ptr, cap, nr, more): the same, the element size taken from ptr. */
#define CP_RESERVE(ptr, cap, nr, more) \
	cp_array_reserve(&(ptr), &(cap), (nr), (more), sizeof(*(ptr)))

#endif /* CPROF_ARRAY_H */
