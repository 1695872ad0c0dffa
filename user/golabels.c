// SPDX-License-Identifier: GPL-2.0
/*
 * Go programs' pprof labels, on cprof's side (golabels.h); the module's
 * side is kmod/golabels.c.
 *
 * The layout: the module finds the running thread's g at a fixed offset
 * below the FS base, then g.m.curg.labels. The offsets of runtime.g's m and
 * labels and of runtime.m's curg come from the executable's DWARF when it
 * has some, else from a table of the Go versions measured (a stripped
 * build, -ldflags='-s -w', has none): the same program built by each is in
 * tests/targets/golabels.go, and golabels_test checks both builds. Go 1.24
 * keeps labels in a sorted slice and its maps are Swiss tables: refused,
 * as is any Go whose version cannot be read (before 1.18).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "elffile.h"
#include "golabels.h"
#include "gopclntab.h"

/* Go's own linker puts g right below the FS base; so does an external one
 * when the executable's TLS block holds only runtime.tlsg. */
#define GO_TLS_G	(-8)

/* Offsets of a stripped build, by Go minor version, measured from DWARF. */
static const struct {
	unsigned int minor;
	uint32_t g_m, m_curg, g_labels;
} go_table[] = {
	{ 19, 48, 192, 360 },
	{ 23, 48, 192, 352 },
};

/* The minor version of "go1.N..." or 0. */
static unsigned int go_minor(const char *v)
{
	unsigned int minor;
	int n = 0;

	if (sscanf(v, "go1.%u%n", &minor, &n) != 1 || (v[n] && v[n] != '.' && v[n] != 'r' &&
						     v[n] != 'b' && v[n] != ' '))
		return 0;
	return minor;
}

/* The member @name's offset in the structure @st: 0 or -ENOENT. */
static int member_offset(Dwarf_Die *st, const char *name, uint32_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Die m;
	const char *n;

	if (dwarf_child(st, &m))
		return -ENOENT;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (!n || strcmp(n, name))
			continue;
		if (!dwarf_attr(&m, DW_AT_data_member_location, &attr) ||
		    dwarf_formudata(&attr, &w) || w > UINT32_MAX)
			return -ENOENT;
		*off = w;
		return 0;
	} while (!dwarf_siblingof(&m, &m));
	return -ENOENT;
}

/* The offsets from the DWARF of @elf: 0, or -ENOENT without them. */
static int dwarf_offsets(Elf *elf, struct cp_go_layout *l)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu, die;
	bool g = false, m = false;
	size_t hsize;
	Dwarf *dw;
	const char *name;

	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return -ENOENT;
	for (; !(g && m) && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL);
	     off = next) {
		if (!dwarf_offdie(dw, off + hsize, &cu) || dwarf_child(&cu, &die))
			continue;
		do {
			if (dwarf_tag(&die) != DW_TAG_structure_type)
				continue;
			name = dwarf_diename(&die);
			if (!name)
				continue;
			if (!g && !strcmp(name, "runtime.g"))
				g = !member_offset(&die, "m", &l->g_m) &&
				    !member_offset(&die, "labels", &l->g_labels);
			else if (!m && !strcmp(name, "runtime.m"))
				m = !member_offset(&die, "curg", &l->m_curg);
		} while (!(g && m) && !dwarf_siblingof(&die, &die));
	}
	dwarf_end(dw);
	return g && m ? 0 : -ENOENT;
}

int cp_go_layout_read(const char *path, struct cp_go_layout *l, char *err, size_t errlen)
{
	unsigned int minor, i;
	GElf_Ehdr eh;
	Elf *elf;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = cp_elf_open(path, &elf, err, errlen);
	if (ret)
		return ret;
	ret = -ENODATA;
	if (cp_go_build_version(elf, l->version, sizeof(l->version)))
		goto out;
	ret = -EOPNOTSUPP;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: Go labels are read on x86-64 only", path);
		goto out;
	}
	minor = go_minor(l->version);
	if (minor < 18 || minor > 23) {
		snprintf(err, errlen, "%s: built by %s: cprof reads the labels of Go 1.18 to 1.23 (1.19 and 1.23 when stripped)",
			 path, l->version);
		goto out;
	}
	l->format = CAUSALPROF_GO_FORMAT_MAP;
	l->tls_g = GO_TLS_G;
	if (!dwarf_offsets(elf, l)) {
		l->dwarf = true;
		ret = 0;
		goto out;
	}
	for (i = 0; i < sizeof(go_table) / sizeof(go_table[0]); i++) {
		if (go_table[i].minor != minor)
			continue;
		l->g_m = go_table[i].g_m;
		l->m_curg = go_table[i].m_curg;
		l->g_labels = go_table[i].g_labels;
		ret = 0;
		goto out;
	}
	snprintf(err, errlen, "%s: built by %s without DWARF: cprof knows where a stripped Go 1.19 or 1.23 keeps its labels, not %s (build without -w)",
		 path, l->version, l->version);
out:
	if (ret)
		l->format = CAUSALPROF_GO_FORMAT_UNSPEC;
	elf_end(elf);
	return ret;
}

static int label_cmp(const void *a, const void *b)
{
	const struct cp_go_label *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, n);

	if (c || x->key_len != y->key_len)
		return c ? c : x->key_len < y->key_len ? -1 : 1;
	n = x->value_len < y->value_len ? x->value_len : y->value_len;
	c = memcmp(x->value, y->value, n);
	if (c || x->value_len == y->value_len)
		return c;
	return x->value_len < y->value_len ? -1 : 1;
}

int cp_go_labels(const struct causalprof_sample *s, struct cp_go_label *out, bool *cut)
{
	size_t used = sizeof(*s) + ((size_t)s->nr_kernel + s->nr_user) * sizeof(s->ips[0]);
	const struct causalprof_go_labels *b;
	const char *str, *end;
	unsigned int i;

	*cut = false;
	if (!(s->sflags & CAUSALPROF_SAMPLE_F_GO_LABELS))
		return 0;
	if (s->hdr.size < used || s->hdr.size - used < sizeof(*b))
		return -EBADMSG;
	b = (const void *)((const char *)s + used);
	if (b->nr > CAUSALPROF_GO_LABELS_MAX || b->len > CAUSALPROF_GO_LABELS_BYTES ||
	    s->hdr.size - used - sizeof(*b) < 2 * b->nr * sizeof(b->lens[0]) + b->len)
		return -EBADMSG;
	str = (const char *)&b->lens[2 * b->nr];
	end = str + b->len;
	for (i = 0; i < b->nr; i++) {
		out[i].key_len = b->lens[2 * i];
		out[i].value_len = b->lens[2 * i + 1];
		if ((size_t)(end - str) < (size_t)out[i].key_len + out[i].value_len)
			return -EBADMSG;
		out[i].key = str;
		out[i].value = str + out[i].key_len;
		str += out[i].key_len + out[i].value_len;
	}
	if (str != end)
		return -EBADMSG;
	*cut = b->flags & CAUSALPROF_GO_LABELS_F_CUT;
	qsort(out, b->nr, sizeof(*out), label_cmp);
	return b->nr;
}

int cp_go_tag_parse(const char *spec, struct cp_go_tag *tag)
{
	const char *eq = strchr(spec, '=');

	if (!eq || eq == spec)
		return -EINVAL;
	tag->key = spec;
	tag->key_len = eq - spec;
	tag->value = eq + 1;
	tag->value_len = strlen(eq + 1);
	return 0;
}

bool cp_go_tag_match(const struct cp_go_tag *tag, const struct cp_go_label *l, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (l[i].key_len == tag->key_len && !memcmp(l[i].key, tag->key, tag->key_len) &&
		    l[i].value_len == tag->value_len &&
		    !memcmp(l[i].value, tag->value, tag->value_len))
			return true;
	return false;
}
