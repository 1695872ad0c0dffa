/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_GOHOOKS_H
#define CPROF_GOHOOKS_H
/*
 * A Go program's scheduler, for the module's Go hooks
 * (CAUSALPROF_CMD_GO_HOOKS, Documentation/go.rst): whether a file is a Go
 * program and of which Go, and where the runtime functions the hooks
 * probe are, each checked to exist and not to be inlined anywhere.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/causalprof.h>

#include <gelf.h>

struct cp_go_site {
	uint32_t kind;		/* enum causalprof_go_hook */
	uint32_t flags;		/* CAUSALPROF_GOHOOK_F_* */
	uint64_t offset;	/* file offset */
};

struct cp_go_hooks {
	char version[32];	/* runtime.buildVersion ("go1.19.8"), or "" */
	unsigned int nr;
	struct cp_go_site sites[CAUSALPROF_MAX_GO_HOOKS];
};

/*
 * Whether @elf is a Go program (a .go.buildinfo section, or the runtime's
 * .gopclntab): 1 with its Go version in @version (room for @len; "" when
 * not told), or 0.
 */
int cp_go_detect(Elf *elf, char *version, size_t len);

/*
 * The hooks of the Go program @exe into @h: 1, 0 when @exe is no Go
 * program, or -errno with the reason in @err, naming the Go version:
 * -ENOTSUP for a Go before 1.17 (not the register ABI), -ENOENT for a
 * runtime function missing, -EEXIST for one inlined (its calls there
 * would not be seen), what resolving or reading the file said otherwise.
 */
int cp_go_hooks_find(const char *exe, struct cp_go_hooks *h, char *err, size_t errlen);

#endif /* CPROF_GOHOOKS_H */
