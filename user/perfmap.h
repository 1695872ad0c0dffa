/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_PERFMAP_H
#define CPROF_PERFMAP_H

/*
 * The names a JIT gives its code in /tmp/perf-PID.map, perf's convention
 * (Node's --perf-basic-prof, Java's perf-map-agent, Python 3.12's -X perf,
 * LuaJIT, .NET): one line per piece of code, "START SIZE NAME", START and
 * SIZE in hex. Code a later line names over an earlier one's bytes is the
 * later line's (the JIT reused the memory).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "recording.h"

/* Larger maps are not copied into recordings. */
#define CP_PERFMAP_MAX		(256U << 20)

struct cp_jitsym {
	uint64_t start, end;	/* [start, end) */
	uint64_t reach;		/* the largest end of this and the entries before it */
	uint32_t seq;		/* its line's number */
	uint32_t name_len;
	const char *name;	/* into the text, not terminated */
};

struct cp_perfmap {
	uint32_t pid;
	struct cp_jitsym *syms;	/* by start */
	size_t nr;
	size_t bad;		/* lines that are not "START SIZE NAME" */
};

/*
 * Parses @text (@len bytes, which must stay where they are while the map is
 * used): 0 or -ENOMEM. Malformed lines are skipped and counted.
 */
int cp_perfmap_parse(struct cp_perfmap *m, uint32_t pid, const char *text, size_t len);
void cp_perfmap_free(struct cp_perfmap *m);
/* The name of the code at @addr (its length in *@len), or NULL. */
const char *cp_perfmap_find(const struct cp_perfmap *m, uint64_t addr, size_t *len);

/*
 * Copies /tmp/perf-@pid.map into a PERFMAP record of @w, if it is a
 * regular file (not a symbolic link) owned by @uid, the process's user, or
 * by root: 1 if copied, 0 if there is none, -errno (with @err saying why)
 * if it cannot be.
 */
int cp_perfmap_copy(struct cp_rec_writer *w, uint32_t pid, uid_t uid, char *err,
		    size_t errlen);

#endif /* CPROF_PERFMAP_H */
