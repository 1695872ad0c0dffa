// SPDX-License-Identifier: GPL-2.0
/*
 * Where a Go program's scheduler is, for the module's Go hooks
 * (Documentation/go.rst).
 *
 * A Go program is told by its .go.buildinfo section (go build writes it
 * since Go 1.13, stripped or not), or by the runtime's table (.gopclntab).
 * The section starts with "\xff Go buildinf:", the pointer size and flags;
 * since Go 1.18 (flag 2) the version string follows at offset 32, a varint
 * length then its bytes. Before, it is behind pointers: told as "".
 *
 * The hooks are entry probes of the runtime functions below, at the jbe of
 * their stack check (RAX still holds the first argument; the kernel
 * emulates a jbe, where it would step a copy of the body's first
 * instruction out of line; the module ignores the hits that take the
 * branch, the stack growing, CAUSALPROF_GOHOOK_F_STACK_CHECK), or after the
 * check as cprof probes a Go function where there is none to use; and,
 * for a goroutine's creation, newproc's call of runqput (SPAWN_CALLER), or
 * where there is none, the exits of newproc1 (RAX holds its result). Each must exist
 * and must not be inlined anywhere: a call inlined into its caller passes
 * no probe, and the goroutine's hand-off there would go unseen. The
 * inline trees are those of .gopclntab, which every Go binary keeps.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elffile.h"
#include "gohooks.h"
#include "gopclntab.h"
#include "probes.h"

/*
 * Where a new goroutine is queued: runtime.newproc's closure calls
 * newproc1, then runqput(pp, newg, true) (Go 1.17 to 1.23 at least). A
 * probe on that call sees newg in RBX and is emulated; newproc1's exits
 * (its rets, stepped out of line) are the hook where the call is not found.
 */
#define SPAWN_CALLER		"runtime.newproc.func1"
#define SPAWN_CALLEE		"runtime.runqput"

#define BUILDINFO_MAGIC		"\xff Go buildinf:"
#define BUILDINFO_INLINE	2	/* flags: the strings follow the header */

/*
 * The runtime's functions probed. runtime.sysmon, the monitor thread's
 * body, is optional: without it (another runtime) the monitor pays delays
 * as any thread does.
 */
static const struct {
	uint32_t kind;
	const char *spec;
	bool optional;
} hooks[] = {
	{ CAUSALPROF_GO_READY,		"runtime.ready", false },
	{ CAUSALPROF_GO_EXECUTE,	"runtime.execute", false },
	{ CAUSALPROF_GO_PARK,		"runtime.park_m", false },
	{ CAUSALPROF_GO_YIELD,		"runtime.goschedImpl", false },
	{ CAUSALPROF_GO_YIELD,		"runtime.goyield_m", false },
	{ CAUSALPROF_GO_YIELD,		"runtime.exitsyscall0", false },
	{ CAUSALPROF_GO_SPAWN,		"runtime.newproc1%return", false },
	{ CAUSALPROF_GO_MONITOR,	"runtime.sysmon", true },
};

/* The section .go.buildinfo's bytes, or NULL. */
static const uint8_t *buildinfo(Elf *elf, size_t *size)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (!name || strcmp(name, ".go.buildinfo"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* The version string after the header, when the header says it is there. */
static void inline_version(const uint8_t *p, size_t size, char *version, size_t len)
{
	uint64_t n = 0;
	size_t at = 32;
	unsigned int shift;

	if (size < 32 || !(p[15] & BUILDINFO_INLINE))
		return;
	for (shift = 0; at < size && shift < 64; shift += 7) {
		n |= (uint64_t)(p[at] & 0x7f) << shift;
		if (!(p[at++] & 0x80))
			break;
	}
	if (n >= len || n > size - at)
		return;
	memcpy(version, p + at, n);
	version[n] = '\0';
}

int cp_go_detect(Elf *elf, char *version, size_t len)
{
	struct cp_gopcln *t;
	const uint8_t *p;
	size_t size = 0;
	char err[64];

	if (len)
		version[0] = '\0';
	p = buildinfo(elf, &size);
	if (p && size >= 16 && !memcmp(p, BUILDINFO_MAGIC, 14)) {
		inline_version(p, size, version, len);
		return 1;
	}
	if (cp_gopcln_open(elf, &t, err, sizeof(err)))
		return 0;
	cp_gopcln_free(t);
	return 1;
}

/* The minor version of "go1.N...", or -1. */
static int go_minor(const char *version)
{
	char *end;
	long n;

	if (strncmp(version, "go1.", 4))
		return -1;
	n = strtol(version + 4, &end, 10);
	return end == version + 4 ? -1 : (int)n;
}

/* Whether any hook's function is inlined somewhere: 0, or -EEXIST with the message. */
static int inline_check(Elf *elf, const char *exe, const char *go, char *err, size_t errlen)
{
	struct cp_gopcln *t;
	char name[64];
	uint64_t in;
	size_t i;
	int ret;

	ret = cp_gopcln_open(elf, &t, err, errlen);
	if (ret) {
		snprintf(err, errlen, "%s (%s): no runtime table (.gopclntab) to check the Go hooks against",
			 exe, go);
		return ret;
	}
	ret = 0;
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]) && !ret; i++) {
		if (hooks[i].optional)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(hooks[i].spec, "%"),
			 hooks[i].spec);
		if (cp_gopcln_inlined(t, name, &in) == 1) {
			snprintf(err, errlen,
				 "%s (%s): %s is inlined (into the function at 0x%llx): the Go hooks would miss its calls there; record with --no-go",
				 exe, go, name, (unsigned long long)in);
			ret = -EEXIST;
		}
	}
	cp_gopcln_free(t);
	return ret;
}

/* The hooks' sites, resolved as progress points are. */
static int resolve(const char *exe, const char *go, struct cp_go_hooks *h, char *err,
		   size_t errlen)
{
	struct cp_probe *locs;
	char why[512];
	size_t i, max = CAUSALPROF_MAX_GO_HOOKS;
	int n, j, ret = 0;

	locs = calloc(max, sizeof(*locs));
	if (!locs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->nr = 0;
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		if (hooks[i].kind == CAUSALPROF_GO_SPAWN) {
			/* newproc's call of runqput(pp, newg): emulated, newg in RBX */
			n = cp_probe_call_sites(exe, SPAWN_CALLER, SPAWN_CALLEE, locs,
						max - h->nr, why, sizeof(why));
			if (n > 0 && (size_t)n <= max - h->nr) {
				for (j = 0; j < n; j++) {
					h->sites[h->nr].kind = CAUSALPROF_GO_SPAWN;
					h->sites[h->nr].flags = CAUSALPROF_GOHOOK_F_ARG2;
					h->sites[h->nr++].offset = locs[j].offset;
				}
				continue;
			}
		}
		n = cp_probe_resolve(hooks[i].spec, exe, locs, max - h->nr, why, sizeof(why));
		if (n < 0 && hooks[i].optional)
			continue;
		if (n < 0 || (size_t)n > max - h->nr) {
			ret = n < 0 ? n : -E2BIG;
			snprintf(err, errlen, "%s (%s): the Go hooks need %s: %s; record with --no-go",
				 exe, go, hooks[i].spec,
				 n < 0 ? why : "more sites than the module takes");
			break;
		}
		for (j = 0; j < n; j++) {
			h->sites[h->nr].kind = hooks[i].kind;
			/* at the stack check's jbe: emulated, not stepped */
			h->sites[h->nr].flags = locs[j].check ? CAUSALPROF_GOHOOK_F_STACK_CHECK : 0;
			h->sites[h->nr++].offset = locs[j].check ? locs[j].check : locs[j].offset;
		}
	}
	free(locs);
	return ret;
}

int cp_go_hooks_find(const char *exe, struct cp_go_hooks *h, char *err, size_t errlen)
{
	const char *go;
	Elf *elf;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = cp_elf_open(exe, &elf, err, errlen);
	if (ret)
		return ret;
	if (!cp_go_detect(elf, h->version, sizeof(h->version))) {
		elf_end(elf);
		return 0;
	}
	go = h->version[0] ? h->version : "Go of unknown version";
	if (go_minor(h->version) >= 0 && go_minor(h->version) < 17) {
		snprintf(err, errlen,
			 "%s (%s): the Go hooks need Go 1.17 or later (the register ABI); record with --no-go",
			 exe, go);
		ret = -ENOTSUP;
	}
	if (!ret)
		ret = inline_check(elf, exe, go, err, errlen);
	elf_end(elf);
	if (!ret)
		ret = resolve(exe, go, h, err, errlen);
	return ret ? ret : 1;
}
