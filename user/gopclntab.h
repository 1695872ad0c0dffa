/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_GOPCLNTAB_H
#define CPROF_GOPCLNTAB_H

/*
 * The table the Go runtime keeps in every Go binary, stripped or not
 * (.gopclntab): functions by entry address, and for each of its addresses
 * the source file, the line and the functions inlined there. Formats of Go
 * 1.16 (names, files, lines), 1.18/1.19 and 1.20+ (and inline frames).
 *
 * Addresses are the ELF file's virtual addresses. Strings point into the
 * file's image: valid while the Elf it was opened from is.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct cp_gopcln;

/* One function of an address; for an inlined one, where it was inlined. */
struct cp_go_frame {
	const char *func;
	const char *file;	/* of the address (or of the call), or NULL */
	int line;		/* and its line there, or 0 */
	int start_line;		/* where the function starts (Go 1.20+), or 0 */
};

/*
 * The table of @elf: 0, -ENODATA (no Go table, or of a version not read),
 * -EINVAL (a damaged one: the message in @err), -ENOMEM.
 */
int cp_gopcln_open(Elf *elf, struct cp_gopcln **out, char *err, size_t errlen);
void cp_gopcln_free(struct cp_gopcln *t);

/*
 * The Go version that built @elf ("go1.19.8") into @out (@len bytes): 0,
 * or -ENODATA (not Go, or a Go before 1.18).
 */
int cp_go_build_version(Elf *elf, char *out, size_t len);

/* "1.16", "1.18", "1.20": the format, as the first Go version that wrote it. */
const char *cp_gopcln_format(const struct cp_gopcln *t);
/* Whether inline frames are known (the runtime's module data was found). */
bool cp_gopcln_has_inline(const struct cp_gopcln *t);

/*
 * The functions at address @pc, innermost first, into @frames (room for
 * @max): their number, 0 when no Go function has code there.
 */
int cp_gopcln_lookup(const struct cp_gopcln *t, uint64_t pc, struct cp_go_frame *frames,
		     int max);

/*
 * Whether function @name is inlined into another anywhere: 1 with the
 * entry of one that inlines it in *@in, 0, or -ENODATA when the inline
 * trees are not known.
 */
int cp_gopcln_inlined(const struct cp_gopcln *t, const char *name, uint64_t *in);
/* How many functions there are, and the @i-th: its entry and name (0, -ENOENT). */
size_t cp_gopcln_count(const struct cp_gopcln *t);
int cp_gopcln_func(const struct cp_gopcln *t, size_t i, uint64_t *entry, const char **name);
/* Where the @i-th starts and ends (the next one's entry, or the table's end): 0, -ENOENT. */
int cp_gopcln_extent(const struct cp_gopcln *t, size_t i, uint64_t *entry, uint64_t *end);

/*
 * Calls @fn for every run of addresses [start, end) of one source line (of
 * the innermost function there), function by function: 0, or what @fn
 * returned first if not 0.
 */
int cp_gopcln_rows(const struct cp_gopcln *t,
		   int (*fn)(uint64_t start, uint64_t end, const char *file, int line, void *arg),
		   void *arg);

#endif /* CPROF_GOPCLNTAB_H */
