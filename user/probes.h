/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_PROBES_H
#define CPROF_PROBES_H

/*
 * Progress points as the module places them: a SPEC resolved to uprobe
 * locations, each an ELF file and a file offset in it.
 *
 * SPEC is one of (Documentation/progress-points.rst):
 *   FUNC               a function of the program or of a library it loads
 *                      (in a Go program, after its stack check)
 *   FUNC%return        every exit of the function (its rets, its tail
 *                      calls): several locations, one probe
 *   LIB:FUNC           a function of LIB: a path, or a DT_NEEDED name
 *                      ("libc.so.6" or "libc")
 *   FILE:LINE          a source line (DWARF), FILE a suffix of its path
 *   sdt:PROVIDER:NAME  every site of a USDT probe (sys/sdt.h, cprof.h)
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

/* The most exits FUNC%return may have: the module's sites per probe. */
#define CP_MAX_SITES	CAUSALPROF_MAX_SITES

struct cp_probe {
	char path[PATH_MAX];	/* the ELF file, absolute, links resolved */
	uint64_t offset;	/* file offset of the instruction to probe */
	bool semaphore;		/* a USDT probe guarded by a semaphore (never set by us) */
	unsigned int indirect;	/* %return: the function's jumps through a pointer,
				 * taken as jumps inside it (funcbody.h)
				 */
	uint64_t check;		/* a Go function's entry: the file offset of its
				 * stack check's jbe (cp_go_body_start()), or 0
				 */
	bool calls;		/* one of the calls of a Go function probed there,
				 * not at its entry (cp_probe_resolve_point()):
				 * the function's locations make one probe
				 */
};

/* Calls of one function in another that cp_probe_call_sites() takes, at most. */
#define CP_MAX_CALL_SITES	8

/*
 * The calls (call rel32) of function @callee in function @caller, both of
 * the executable @exe itself (one function of each name), as locations: how
 * many (1 to CP_MAX_CALL_SITES, at most @max written), or -errno with the
 * reason in @err: -ENOENT (no such function, or no such call), -EEXIST
 * (either name more than one function), -E2BIG, -EINVAL (code the decoder
 * does not know). The kernel emulates a probed call: no out-of-line step.
 */
int cp_probe_call_sites(const char *exe, const char *caller, const char *callee,
			struct cp_probe *out, size_t max, char *err, size_t errlen);

/* Whether @spec names a function's exits (FUNC%return): its locations make one probe. */
bool cp_probe_is_return(const char *spec);

/*
 * The locations of @spec for the program @exe (absolute): how many there
 * are (at least 1; more than @max when they do not all fit, @max written),
 * or -errno: -EINVAL (a malformed SPEC), -ENOENT (nothing of that name),
 * -EEXIST (an ambiguous FILE), -ENODATA (FILE:LINE without DWARF),
 * -ENOEXEC, -E2BIG (%return: more exits than CP_MAX_SITES); the message in @err starts with the spec ("foo: no function
 * 'foo' in /usr/bin/prog or its libraries"): the caller says which option.
 */
int cp_probe_resolve(const char *spec, const char *exe, struct cp_probe *out, size_t max,
		     char *err, size_t errlen);

/*
 * The same for a progress point, whose visits are counted: a Go function
 * whose entry the kernel would step out of line (no stack check, its first
 * instruction neither a branch, a nop nor a push) is probed at its calls
 * instead, which it emulates, where they are provably all there is (every
 * reference to the function in the program's code a direct call, and its
 * address nowhere in its data: no function value, no method table). Those
 * locations have calls set, and make one probe. The entry otherwise.
 */
int cp_probe_resolve_point(const char *spec, const char *exe, struct cp_probe *out, size_t max,
			   char *err, size_t errlen);

/*
 * Calls @fn for every site of a USDT probe of @provider in the ELF file
 * @path (not its libraries), in the order of its notes: how many sites, or
 * -errno.
 */
int cp_sdt_list(const char *path, const char *provider,
		void (*fn)(const char *name, uint64_t offset, bool semaphore, void *arg),
		void *arg);

/*
 * Whether the bytes of @path contain @str, e.g. "_coz_get_counter", the
 * symbol that programs built with coz.h look up with dlsym().
 */
bool cp_elf_mentions(const char *path, const char *str);

#endif /* CPROF_PROBES_H */
