// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's side of Go's pprof labels (user/golabels.c), no module needed:
 * the labels block of a recorded sample (struct causalprof_go_labels) read
 * back sorted, and every way a block may not fit its record refused; the
 * --tag KEY=VALUE spec and its match; and where tests/targets/golabels.go
 * keeps its labels, built by each Go installed: the stripped build's
 * offsets (from cprof's table) must be its DWARF's (the other build's).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "golabels.h"
#include "helpers/path.h"

/* A SAMPLE of @nu user frames, then a block of @nr labels @kv (key, value, ...). */
static struct causalprof_sample *make_sample(unsigned int nu, unsigned int nr,
					     const char *const *kv, uint8_t flags)
{
	size_t len = 0, fixed, size;
	struct causalprof_go_labels *b;
	struct causalprof_sample *s;
	unsigned int i;
	char *p;

	for (i = 0; i < 2 * nr; i++)
		len += strlen(kv[i]);
	fixed = sizeof(*s) + nu * sizeof(s->ips[0]);
	size = fixed + sizeof(*b) + 2 * nr * sizeof(b->lens[0]) + len;
	size = (size + 7) & ~(size_t)7;
	s = calloc(1, size);
	s->hdr.type = CAUSALPROF_REC_SAMPLE;
	s->hdr.size = size;
	s->nr_user = nu;
	s->sflags = CAUSALPROF_SAMPLE_F_USER | CAUSALPROF_SAMPLE_F_GO_LABELS;
	b = (void *)((char *)s + fixed);
	b->nr = nr;
	b->flags = flags;
	b->len = len;
	p = (char *)&b->lens[2 * nr];
	for (i = 0; i < 2 * nr; i++) {
		b->lens[i] = strlen(kv[i]);
		memcpy(p, kv[i], b->lens[i]);
		p += b->lens[i];
	}
	return s;
}

static struct causalprof_go_labels *block(struct causalprof_sample *s)
{
	return (void *)&s->ips[s->nr_kernel + s->nr_user];
}

static bool label_is(const struct cp_go_label *l, const char *key, const char *value)
{
	return l->key_len == strlen(key) && !memcmp(l->key, key, l->key_len) &&
	       l->value_len == strlen(value) && !memcmp(l->value, value, l->value_len);
}

/* Read back sorted by key, the cut flag told. */
TEST(labels_sorted)
{
	static const char *const kv[] = { "zone", "eu", "handler", "/a", "kind", "" };
	struct cp_go_label l[CAUSALPROF_GO_LABELS_MAX];
	struct causalprof_sample *s = make_sample(3, 3, kv, 0);
	bool cut = true;

	ASSERT_EQ(3, cp_go_labels(s, l, &cut));
	EXPECT_FALSE(cut);
	EXPECT_TRUE(label_is(&l[0], "handler", "/a"));
	EXPECT_TRUE(label_is(&l[1], "kind", ""));
	EXPECT_TRUE(label_is(&l[2], "zone", "eu"));
	free(s);

	s = make_sample(0, 1, kv, CAUSALPROF_GO_LABELS_F_CUT);
	ASSERT_EQ(1, cp_go_labels(s, l, &cut));
	EXPECT_TRUE(cut);
	free(s);
}

/* No flag, no labels, whatever follows the frames. */
TEST(no_flag)
{
	static const char *const kv[] = { "k", "v" };
	struct cp_go_label l[CAUSALPROF_GO_LABELS_MAX];
	struct causalprof_sample *s = make_sample(2, 1, kv, 0);
	bool cut;

	s->sflags &= ~CAUSALPROF_SAMPLE_F_GO_LABELS;
	EXPECT_EQ(0, cp_go_labels(s, l, &cut));
	free(s);
}

/* The ways a block may not fit its record, or say more than the bounds. */
enum damage {
	SHORT_HEADER,	/* the record ends before the block's header */
	SHORT_STRINGS,	/* ... before its strings */
	TOO_MANY,	/* more labels than the module ever sends */
	LENS_LONG,	/* the lengths run past the strings */
	LENS_SHORT,	/* ... or fall short of them */
	TOO_LONG,	/* more bytes than the bound */
	NR_DAMAGES
};

static int read_damaged(enum damage how)
{
	static const char *const kv[] = { "handler", "/a", "kind", "work" };
	struct causalprof_sample *s = make_sample(1, 2, kv, 0);
	struct cp_go_label l[CAUSALPROF_GO_LABELS_MAX];
	bool cut;
	int ret;

	switch (how) {
	case SHORT_HEADER:
		s->hdr.size = sizeof(*s) + 8;
		break;
	case SHORT_STRINGS:
		block(s)->len += 64;
		break;
	case TOO_MANY:
		block(s)->nr = CAUSALPROF_GO_LABELS_MAX + 1;
		break;
	case LENS_LONG:
		block(s)->lens[3] = 200;
		break;
	case LENS_SHORT:
		block(s)->lens[3] = 1;
		break;
	default:
		block(s)->len = CAUSALPROF_GO_LABELS_BYTES + 1;
		break;
	}
	ret = cp_go_labels(s, l, &cut);
	free(s);
	return ret;
}

TEST(malformed)
{
	enum damage how;

	for (how = 0; how < NR_DAMAGES; how++)
		EXPECT_EQ(-EBADMSG, read_damaged(how)) TH_LOG("damage %d", how);
}

TEST(tag)
{
	static const char *const kv[] = { "handler", "/a", "kind", "a=b" };
	struct cp_go_label l[CAUSALPROF_GO_LABELS_MAX];
	struct causalprof_sample *s = make_sample(0, 2, kv, 0);
	struct cp_go_tag t;
	bool cut;
	int nr;

	nr = cp_go_labels(s, l, &cut);
	ASSERT_EQ(2, nr);
	ASSERT_EQ(0, cp_go_tag_parse("handler=/a", &t));
	EXPECT_TRUE(cp_go_tag_match(&t, l, nr));
	ASSERT_EQ(0, cp_go_tag_parse("handler=/b", &t));
	EXPECT_FALSE(cp_go_tag_match(&t, l, nr));
	ASSERT_EQ(0, cp_go_tag_parse("handler=/", &t));
	EXPECT_FALSE(cp_go_tag_match(&t, l, nr));
	ASSERT_EQ(0, cp_go_tag_parse("hand=/a", &t));
	EXPECT_FALSE(cp_go_tag_match(&t, l, nr));
	/* The first '=' splits: a value may hold more. */
	ASSERT_EQ(0, cp_go_tag_parse("kind=a=b", &t));
	EXPECT_TRUE(cp_go_tag_match(&t, l, nr));
	EXPECT_FALSE(cp_go_tag_match(&t, l, 0));
	EXPECT_EQ(-EINVAL, cp_go_tag_parse("handler", &t));
	EXPECT_EQ(-EINVAL, cp_go_tag_parse("=/a", &t));
	EXPECT_EQ(-EINVAL, cp_go_tag_parse("", &t));
	free(s);
}

FIXTURE(layout) {
	char full[PATH_MAX], stripped[PATH_MAX];
};

FIXTURE_VARIANT(layout) {
	const char *go;		/* golabels-GO[-s] */
	const char *version;	/* what it must say it is */
};

FIXTURE_VARIANT_ADD(layout, go) { .go = "go", .version = "go1.19" };
FIXTURE_VARIANT_ADD(layout, go123) { .go = "go1.23", .version = "go1.23" };

FIXTURE_SETUP(layout)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "targets/golabels-%s", variant->go);
	if (cp_build_path(rel, self->full, sizeof(self->full)))
		self->full[0] = '\0';
	snprintf(rel, sizeof(rel), "targets/golabels-%s-s", variant->go);
	if (cp_build_path(rel, self->stripped, sizeof(self->stripped)))
		self->stripped[0] = '\0';
}

FIXTURE_TEARDOWN(layout)
{
}

/* The table's offsets for a stripped build are the DWARF's of the other. */
TEST_F(layout, stripped_as_dwarf)
{
	struct cp_go_layout full, stripped;
	char err[512];

	if (!self->full[0] || !self->stripped[0])
		SKIP(return, "no build/tests/targets/golabels-%s (that go not installed at build time)",
		     variant->go);
	ASSERT_EQ(0, cp_go_layout_read(self->full, &full, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, cp_go_layout_read(self->stripped, &stripped, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_TRUE(full.dwarf);
	EXPECT_FALSE(stripped.dwarf);
	EXPECT_EQ(0, strncmp(full.version, variant->version, strlen(variant->version)))
		TH_LOG("%s", full.version);
	EXPECT_STREQ(full.version, stripped.version);
	EXPECT_EQ(CAUSALPROF_GO_FORMAT_MAP, full.format);
	EXPECT_EQ(-8, full.tls_g);
	EXPECT_EQ(full.g_m, stripped.g_m);
	EXPECT_EQ(full.m_curg, stripped.m_curg);
	EXPECT_EQ(full.g_labels, stripped.g_labels);
	TH_LOG("%s: g.m %u, m.curg %u, g.labels %u", full.version, full.g_m, full.m_curg,
	       full.g_labels);
}

/* A program that is not Go has no layout, and no message. */
TEST(not_go)
{
	struct cp_go_layout l;
	char err[512];

	EXPECT_EQ(-ENODATA, cp_go_layout_read("/proc/self/exe", &l, err, sizeof(err)));
	EXPECT_NE(0, cp_go_layout_read("/nonexistent/golabels", &l, err, sizeof(err)));
}

TEST_HARNESS_MAIN
