// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from a copy of /proc/kallsyms: its text functions sorted by
 * address, and the address range of the kernel and of every module.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"

/*
 * kallsyms has no sizes: a function ends where the next symbol starts, and is
 * no longer than this (beyond the last one, or in a gap between modules).
 */
#define MAX_KSYM_SIZE	(64 * 1024)

struct ksym {
	uint64_t addr;
	const char *name;
	unsigned int module;
};

struct cp_ksyms {
	char *text;		/* a copy, cut into the names */
	struct ksym *syms;
	size_t nr;
	struct cp_kmod *mods;	/* [0]: the kernel */
	unsigned int nr_mods;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;	/* keep the file's order */
}

/* The index of module @name, added if new; -1 when out of memory. */
static int module_index(struct cp_ksyms *ks, const char *name)
{
	struct cp_kmod *mods;
	unsigned int i;

	if (!*name && ks->nr_mods)
		return 0;
	/* Modules come in runs: the last one is the likely one. */
	for (i = ks->nr_mods; i-- > 0;)
		if (!strcmp(ks->mods[i].name, name))
			return i;
	mods = realloc(ks->mods, (ks->nr_mods + 1) * sizeof(*mods));
	if (!mods)
		return -1;
	ks->mods = mods;
	mods[ks->nr_mods] = (struct cp_kmod){ .name = name, .start = UINT64_MAX };
	return ks->nr_mods++;
}

/*
 * One line: "ffffffff81000000 T _stext" or "... t name\t[module]". Returns
 * 1 for a text symbol, 0 for another line, -1 when out of memory.
 */
static int parse_ksym(struct cp_ksyms *ks, char *line, struct ksym *sym)
{
	char *p = line, *end, *mod;
	const char *modname = "";
	char type;
	int idx;

	sym->addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !sym->addr)
		return 0;
	p = end + 1;
	type = *p;
	if (!type || p[1] != ' ')
		return 0;
	/* Text only: t, T and weak w, W. */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	p += 2;
	end = p + strcspn(p, " \t");
	if (end == p)
		return 0;
	sym->name = p;
	if (*end) {
		*end = '\0';
		mod = end + 1 + strspn(end + 1, " \t");
		if (*mod == '[') {
			mod++;
			mod[strcspn(mod, "]")] = '\0';
			modname = mod;
		}
	}
	idx = module_index(ks, modname);
	if (idx < 0)
		return -1;
	sym->module = idx;
	return 1;
}

static void set_ranges(struct cp_ksyms *ks)
{
	struct cp_kmod *m;
	size_t i;

	for (i = 0; i < ks->nr; i++) {
		m = &ks->mods[ks->syms[i].module];
		if (ks->syms[i].addr < m->start)
			m->start = ks->syms[i].addr;
		if (ks->syms[i].addr + MAX_KSYM_SIZE > m->end)
			m->end = ks->syms[i].addr + MAX_KSYM_SIZE;
	}
	for (i = 0; i < ks->nr_mods; i++)
		if (ks->mods[i].start > ks->mods[i].end)
			ks->mods[i].start = ks->mods[i].end = 0;
}

struct cp_ksyms *cp_ksyms_new(const char *text, size_t len)
{
	struct cp_ksyms *ks;
	size_t cap = 0;
	char *line, *next;
	int ret;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	ks->text = malloc(len + 1);
	if (!ks->text || module_index(ks, "") != 0)
		goto err_free;
	memcpy(ks->text, text, len);
	ks->text[len] = '\0';

	for (line = ks->text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (ks->nr == cap) {
			struct ksym *syms;

			cap = cap ? cap * 2 : 4096;
			syms = realloc(ks->syms, cap * sizeof(*syms));
			if (!syms)
				goto err_free;
			ks->syms = syms;
		}
		ret = parse_ksym(ks, line, &ks->syms[ks->nr]);
		if (ret < 0)
			goto err_free;
		ks->nr += ret;
	}
	if (!ks->nr)
		goto err_free;
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp);
	set_ranges(ks);
	return ks;

err_free:
	cp_ksyms_free(ks);
	return NULL;
}

unsigned int cp_ksyms_find(const struct cp_ksyms *ks, uint64_t addr, const char **name)
{
	size_t lo = 0, hi = ks->nr;
	const struct ksym *sym;

	*name = NULL;
	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	sym = &ks->syms[lo - 1];
	if (addr - sym->addr >= MAX_KSYM_SIZE)
		return 0;
	*name = sym->name;
	return sym->module;
}

const struct cp_kmod *cp_ksyms_module(const struct cp_ksyms *ks, unsigned int idx)
{
	return idx < ks->nr_mods ? &ks->mods[idx] : NULL;
}

void cp_ksyms_free(struct cp_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->mods);
	free(ks->syms);
	free(ks->text);
	free(ks);
}

int cp_ksyms_read(const char *path, char **out, size_t *out_len)
{
	size_t len = 0, cap = 1 << 20;
	char *buf, *more;
	ssize_t n = 0;
	int fd, err;

	*out = NULL;
	*out_len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len == cap) {
			more = realloc(buf, cap * 2);
			if (!more) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	err = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		return -err;
	}
	*out = buf;
	*out_len = len;
	return 0;
}
