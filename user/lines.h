/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_LINES_H
#define CPROF_LINES_H

/*
 * The source lines of one ELF file and the code of each, in file offsets,
 * from its DWARF line table: what causal experiments speed up, and where
 * FILE:LINE progress points go.
 *
 * A line is a distinct (source file, line number); its id is a small int,
 * valid for the table it came from. Its code is every range of the line
 * table's rows for it, inlined copies included (the code of an inlined
 * function belongs to the callee's lines, as the line table says). Strings
 * returned stay valid until cp_lines_free().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_lines;

/* File offsets, end exclusive. */
struct cp_off_range {
	uint64_t start, end;
};

/*
 * The line table of the ELF file @path (or of its separate debuginfo):
 * 0, -ENOENT and the like, -ENOEXEC (not ELF), -ENODATA (no DWARF line
 * table), -ENOMEM; the message in @err.
 */
int cp_lines_open(const char *path, struct cp_lines **out, char *err, size_t errlen);
void cp_lines_free(struct cp_lines *l);

/* How many lines there are: ids go from 0 to this, less one. */
int cp_lines_count(const struct cp_lines *l);
/* The line whose code holds file offset @off, or -1. */
int cp_lines_at(const struct cp_lines *l, uint64_t off);
/* Its source file as the line table names it, made absolute with the CU's comp_dir. */
const char *cp_lines_file(const struct cp_lines *l, int id);
int cp_lines_number(const struct cp_lines *l, int id);
/* The (not inlined) function that holds its first range, "" when unknown. */
const char *cp_lines_function(const struct cp_lines *l, int id);
/*
 * Every range of its code, sorted, adjacent ones merged, into @r (room for
 * @max): their number, which may be more than @max.
 */
size_t cp_lines_ranges(const struct cp_lines *l, int id, struct cp_off_range *r, size_t max);
/*
 * Where a debugger would break on it: the lowest of its is_stmt rows (the
 * lowest row when it has none), as a file offset.
 */
uint64_t cp_lines_first(const struct cp_lines *l, int id);

/*
 * FILE:LINE, FILE being a source file's name or a suffix of it that starts
 * after a '/': the id, or -ENOENT (no such file, or that line has no code:
 * the message names the nearest lines that have), -EEXIST (FILE names
 * several source files: the message names them).
 */
int cp_lines_find(const struct cp_lines *l, const char *file, int line, char *err,
		  size_t errlen);
/* Whether @file names at least one of its source files, as cp_lines_find() matches. */
bool cp_lines_has_file(const struct cp_lines *l, const char *file);

#endif /* CPROF_LINES_H */
