/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_SYMBOLIZE_H
#define CPROF_SYMBOLIZE_H

/*
 * Code addresses of ELF files to source: the function, and with DWARF the
 * file and line, and the functions inlined there, innermost first. Files
 * are the ones mapped at recording time, opened as they are now (under a
 * --symfs root), with their separate debug information when installed, or
 * ELF images the recording carries (the vDSO). Built on elfutils' libdwfl,
 * and on the Go runtime's table for Go programs without DWARF.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CP_BUILD_ID_MAX		64
#define CP_SYM_MAX_FRAMES	32

/* One function of an address; for an inlined one, where it was inlined. */
struct cp_sym_frame {
	const char *func;	/* its name */
	const char *sysname;	/* the symbol it is known as (maybe mangled) */
	const char *file;	/* source file of the address, or NULL */
	int line;		/* and its line there, or 0 */
	const char *decl_file;	/* where the function is defined, or NULL */
	int decl_line;
};

/* What a file's lookups found, as pprof's Mapping.has_* fields want it. */
enum {
	CP_SYM_FUNCTIONS	= 1 << 0,
	CP_SYM_FILENAMES	= 1 << 1,
	CP_SYM_LINES		= 1 << 2,
	CP_SYM_INLINE		= 1 << 3,
};

struct cp_symbolizer;
struct cp_sym_file;

/*
 * @symfs: a directory to find the files under, "" or NULL for "/"; @warn:
 * where to say that a file cannot be used (once per file), or NULL.
 */
struct cp_symbolizer *cp_sym_new(const char *symfs, FILE *warn);
void cp_sym_free(struct cp_symbolizer *s);
/* The build id @path had when it was recorded: a file that differs is not used. */
int cp_sym_expect(struct cp_symbolizer *s, const char *path, const uint8_t *id, size_t len);
/* @name ("[vdso]") is this ELF image; @data is copied. */
int cp_sym_add_image(struct cp_symbolizer *s, const char *name, const void *data, size_t len);
/* The file (or image) @path, opened on its first lookup; NULL when out of memory. */
struct cp_sym_file *cp_sym_file(struct cp_symbolizer *s, const char *path);
/*
 * The functions at file offset @off of @f, innermost first, into @frames
 * (room for @max): their number, 0 when nothing is known there. The strings
 * stay valid until cp_sym_trim() or cp_sym_free().
 */
int cp_sym_lookup(struct cp_sym_file *f, uint64_t off, struct cp_sym_frame *frames, int max);
/*
 * For code the file names no function of: the file offset where the
 * function of @off starts, from its unwind table (.eh_frame and the search
 * table of .eh_frame_hdr, which strip keeps): 0, or -ENOENT when the file
 * has no entry for it.
 */
int cp_sym_func_start(struct cp_sym_file *f, uint64_t off, uint64_t *start);
/*
 * @name demangled (C++, Rust legacy and v0), or @name itself when it is not
 * a mangled name; valid until cp_sym_trim() or cp_sym_free().
 */
const char *cp_sym_demangle(struct cp_symbolizer *s, const char *name);
/* CP_SYM_* that the file offers, once it was looked into. */
unsigned int cp_sym_caps(const struct cp_sym_file *f);
/* Its build id (the recorded one, else the file's): length, 0 if none. */
size_t cp_sym_build_id(const struct cp_sym_file *f, const uint8_t **id);

/*
 * Kept from one report to the next (cprof record --every): the files
 * opened, their tables, the demangled names. cp_sym_trim(), between two
 * reports, bounds them to the cap: the files no report asked for since
 * the last trim and never opened are forgotten, then the opened files
 * least recently asked for are closed until what is kept weighs no more
 * than the cap (by estimate: the tables built, and the symbol, string and
 * debug sections of the file and of its debug file), then the demangled
 * names are dropped if they alone weigh an eighth of it. Pointers to the
 * files (cp_sym_file()) and the strings of lookups are valid until then.
 */
struct cp_sym_stats {
	size_t files;		/* opened files kept, after the last trim */
	size_t bytes;		/* their estimate, with the names */
	uint64_t opens;		/* files opened, in all */
	uint64_t evictions;	/* opened files closed for the cap */
	uint64_t names_dropped;	/* demangled names dropped for the cap */
};

/*
 * Makes it a cache, with a cap in bytes (0: none): lookups are kept with
 * their file too (with room for CP_SYM_MAX_FRAMES frames).
 */
void cp_sym_set_cap(struct cp_symbolizer *s, size_t bytes);
/* 0, or -ENOMEM (then nothing is kept). */
int cp_sym_trim(struct cp_symbolizer *s);
void cp_sym_get_stats(const struct cp_symbolizer *s, struct cp_sym_stats *st);
/*
 * Never open a file: lookups find nothing, caps are 0, build ids are the
 * recorded ones (cprof record --no-symbolize).
 */
void cp_sym_set_offline(struct cp_symbolizer *s);

/*
 * The GNU build id of the ELF file at @path into @id: its length, 0 if the
 * file has none, or -errno (-ENOEXEC: not ELF).
 */
int cp_elf_build_id(const char *path, uint8_t *id, size_t size);

#endif /* CPROF_SYMBOLIZE_H */
