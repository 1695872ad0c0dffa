/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_GOLABELS_H
#define CPROF_GOLABELS_H

/*
 * The pprof labels of Go programs' samples: where a Go executable keeps
 * them (for cprof record to tell the module, CAUSALPROF_A_GO_LABELS), the
 * labels a recorded sample carries (struct causalprof_go_labels), and
 * cprof report's --tag KEY=VALUE filter.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

struct cp_go_layout {
	uint32_t format;		/* enum causalprof_go_format */
	int32_t tls_g;
	uint32_t g_m, m_curg, g_labels;
	char version[32];		/* "go1.19.8" */
	bool dwarf;			/* the offsets are the DWARF's, not the table's */
};

/*
 * Where the Go executable @path keeps its goroutines' labels: 0; -ENODATA
 * when it is not a Go program (or not one cprof can tell the version of);
 * -EOPNOTSUPP, with the reason in @err, for a Go whose labels cprof cannot
 * read (Go 1.24 and later, a stripped build of a version not in the table,
 * not x86-64); another -errno when the file cannot be read.
 */
int cp_go_layout_read(const char *path, struct cp_go_layout *l, char *err, size_t errlen);

struct cp_go_label {
	const char *key, *value;	/* not terminated */
	uint16_t key_len, value_len;
};

/*
 * The Go labels of sample @s into @out (room for CAUSALPROF_GO_LABELS_MAX),
 * sorted by key then value: how many (0: none), or -EBADMSG when the block
 * does not fit the record. *@cut: the module cut the set.
 */
int cp_go_labels(const struct causalprof_sample *s, struct cp_go_label *out, bool *cut);

/* cprof report --tag KEY=VALUE */
struct cp_go_tag {
	const char *key, *value;
	size_t key_len, value_len;
};

/* @spec as KEY=VALUE (KEY not empty): 0 or -EINVAL. Points into @spec. */
int cp_go_tag_parse(const char *spec, struct cp_go_tag *tag);
/* Whether labels @l (@nr of them) have @tag's key with its value. */
bool cp_go_tag_match(const struct cp_go_tag *tag, const struct cp_go_label *l, int nr);

#endif /* CPROF_GOLABELS_H */
