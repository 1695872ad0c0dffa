/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_KSYMS_H
#define CPROF_KSYMS_H

/*
 * Kernel function names from the text of /proc/kallsyms, as the recording
 * keeps it: the kernel's functions and those of its modules, each module an
 * address range of its own.
 */

#include <stddef.h>
#include <stdint.h>

struct cp_ksyms;

struct cp_kmod {
	const char *name;	/* "" for the kernel itself */
	uint64_t start, end;	/* of its functions */
};

/* NULL if the text has no function with an address (or out of memory). */
struct cp_ksyms *cp_ksyms_new(const char *text, size_t len);
void cp_ksyms_free(struct cp_ksyms *ks);
/*
 * The function @addr is in (*@name, NULL if none) and the index of the
 * module that has it (0: the kernel, also when no function has @addr).
 */
unsigned int cp_ksyms_find(const struct cp_ksyms *ks, uint64_t addr, const char **name);
const struct cp_kmod *cp_ksyms_module(const struct cp_ksyms *ks, unsigned int idx);

/*
 * The whole text of @path (/proc/kallsyms, /proc/modules) into *@out,
 * malloc()ed, and its length: 0 or -errno.
 */
int cp_ksyms_read(const char *path, char **out, size_t *out_len);

#endif /* CPROF_KSYMS_H */
