/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_SYMBOLS_H
#define CPROF_SYMBOLS_H

/*
 * Function names for sampled addresses: kernel addresses from the text of
 * /proc/kallsyms, user addresses from the ELF files the process had mapped
 * (libdwfl, with separate debuginfo when installed).
 */

#include <stddef.h>
#include <stdint.h>

#define CP_BUILD_ID_MAX		64

/*
 * The GNU build id of the ELF file at @path into @id: its length, 0 if the
 * file has none, or -errno (-ENOEXEC: not ELF).
 */
int cp_elf_build_id(const char *path, uint8_t *id, size_t size);

struct cp_ksyms;

/* Kernel symbols from kallsyms text; NULL if there are none with addresses. */
struct cp_ksyms *cp_ksyms_new(const char *text, size_t len);
/*
 * The function @addr is in, or NULL; *@module is the kernel module that has
 * it, or NULL for the kernel itself.
 */
const char *cp_ksyms_find(const struct cp_ksyms *ks, uint64_t addr, const char **module);
void cp_ksyms_free(struct cp_ksyms *ks);

struct cp_usyms;

struct cp_usyms *cp_usyms_new(void);
/*
 * The build id @path had when it was recorded: cp_usyms_find() names no
 * function of a file that has changed since, and warns once about it.
 */
int cp_usyms_expect(struct cp_usyms *us, const char *path, const uint8_t *id, size_t len);
/* The function at file offset @off of @path, or NULL. */
const char *cp_usyms_find(struct cp_usyms *us, const char *path, uint64_t off);
void cp_usyms_free(struct cp_usyms *us);

#endif /* CPROF_SYMBOLS_H */
