// SPDX-License-Identifier: GPL-2.0
/*
 * How cprof finds a Go program's scheduler for the module's Go hooks
 * (user/gohooks.c), no module needed: the Go ground truth gt_chan built by
 * each Go installed (Debian's go 1.19, Go 1.23), stripped, and with
 * runtime.ready renamed in its symbols and its runtime's table (as a Go
 * without that function would be); a C program; and the inline trees of
 * tests/sym/gopcl.go, where main.mix is inlined and main.work is not.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <gelf.h>

#include "kselftest_harness.h"
#include "elffile.h"
#include "gohooks.h"
#include "gopclntab.h"
#include "probes.h"
#include "helpers/path.h"

/* Whether build/tests/REL exists: its path in @path. */
static bool built(const char *rel, char *path, size_t size)
{
	return !cp_build_path(rel, path, size);
}

/* How many sites of @kind @h has. */
static unsigned int of_kind(const struct cp_go_hooks *h, uint32_t kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->nr; i++)
		n += h->sites[i].kind == kind;
	return n;
}

/* The offset of FUNC's stack check's jbe (cp_probe_resolve()), or 0. */
static uint64_t check_offset(const char *exe, const char *spec)
{
	struct cp_probe loc;
	char err[256];

	return cp_probe_resolve(spec, exe, &loc, 1, err, sizeof(err)) == 1 ? loc.check : 0;
}

/* The file's bytes at @off: 0, or -1. */
static int bytes_at(const char *path, uint64_t off, uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (f && !fseek(f, (long)off, SEEK_SET) && fread(b, 1, n, f) == n)
		ret = 0;
	if (f)
		fclose(f);
	return ret;
}

FIXTURE(go) {
	char path[PATH_MAX];
	struct cp_go_hooks h;
	char err[512];
};

FIXTURE_VARIANT(go) {
	const char *prog;	/* under build/tests/targets */
	const char *version;	/* the start of its runtime.buildVersion */
};

FIXTURE_VARIANT_ADD(go, go119) { .prog = "gt_chan-go", .version = "go1.19" };
FIXTURE_VARIANT_ADD(go, go119_stripped) { .prog = "gt_chan-go-s", .version = "go1.19" };
FIXTURE_VARIANT_ADD(go, go123) { .prog = "gt_chan-go1.23", .version = "go1.23" };

FIXTURE_SETUP(go)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "targets/%s", variant->prog);
	if (!built(rel, self->path, sizeof(self->path)))
		self->path[0] = '\0';
}

FIXTURE_TEARDOWN(go)
{
}

/* Every hook found, of each kind (the monitor's too); the version told; entries where a FUNC point would be. */
TEST_F(go, hooks)
{
	char full[PATH_MAX];
	unsigned int i;

	if (!self->path[0])
		SKIP(return, "no build/tests/targets/%s (that go not installed at build time)",
		     variant->prog);
	ASSERT_EQ(1, cp_go_hooks_find(self->path, &self->h, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, strncmp(self->h.version, variant->version, strlen(variant->version)))
		TH_LOG("version '%s'", self->h.version);
	EXPECT_EQ(1, of_kind(&self->h, CAUSALPROF_GO_READY));
	EXPECT_EQ(1, of_kind(&self->h, CAUSALPROF_GO_EXECUTE));
	EXPECT_EQ(1, of_kind(&self->h, CAUSALPROF_GO_PARK));
	EXPECT_EQ(3, of_kind(&self->h, CAUSALPROF_GO_YIELD));
	EXPECT_LE(1, of_kind(&self->h, CAUSALPROF_GO_SPAWN));
	EXPECT_EQ(1, of_kind(&self->h, CAUSALPROF_GO_MONITOR));
	for (i = 0; i < self->h.nr; i++) {
		if (self->h.sites[i].kind == CAUSALPROF_GO_READY)
			EXPECT_EQ(check_offset(self->path, "runtime.ready"), self->h.sites[i].offset);
		if (self->h.sites[i].kind == CAUSALPROF_GO_MONITOR)
			EXPECT_EQ(check_offset(self->path, "runtime.sysmon"), self->h.sites[i].offset);
	}
	/*
	 * Every hook where the kernel emulates the instruction: an entry at
	 * its stack check's jbe, the creation at a call (runqput's, newg in
	 * RBX); none stepped out of line.
	 */
	for (i = 0; i < self->h.nr; i++) {
		const struct cp_go_site *g = &self->h.sites[i];
		uint8_t b[2];

		ASSERT_EQ(0, bytes_at(self->path, g->offset, b, sizeof(b)));
		if (g->kind == CAUSALPROF_GO_SPAWN) {
			EXPECT_EQ(CAUSALPROF_GOHOOK_F_ARG2, g->flags);
			EXPECT_EQ(0xe8, b[0]) TH_LOG("spawn site at 0x%llx", (unsigned long long)g->offset);
		} else {
			EXPECT_EQ(CAUSALPROF_GOHOOK_F_STACK_CHECK, g->flags) TH_LOG("kind %u", g->kind);
			EXPECT_TRUE(b[0] == 0x76 || (b[0] == 0x0f && b[1] == 0x86))
				TH_LOG("kind %u at 0x%llx: %02x %02x", g->kind,
				       (unsigned long long)g->offset, b[0], b[1]);
		}
	}
	/* The stripped build's hooks are the full build's. */
	if (strcmp(variant->prog, "gt_chan-go-s") || !built("targets/gt_chan-go", full, sizeof(full)))
		return;
	{
		struct cp_go_hooks h;

		ASSERT_EQ(1, cp_go_hooks_find(full, &h, self->err, sizeof(self->err)));
		ASSERT_EQ(h.nr, self->h.nr);
		for (i = 0; i < h.nr; i++) {
			EXPECT_EQ(h.sites[i].kind, self->h.sites[i].kind);
			EXPECT_EQ(h.sites[i].flags, self->h.sites[i].flags);
			EXPECT_EQ(h.sites[i].offset, self->h.sites[i].offset);
		}
	}
}

/* A C program is no Go program: no hooks, no error. */
TEST(not_go)
{
	struct cp_go_hooks h;
	char path[PATH_MAX], err[256];

	ASSERT_TRUE(built("targets/gt_pipe", path, sizeof(path)));
	EXPECT_EQ(0, cp_go_hooks_find(path, &h, err, sizeof(err)));
	EXPECT_EQ(0, h.nr);
}

/* A runtime function missing: refused, the function and the Go version named. */
TEST(missing_function)
{
	struct cp_go_hooks h;
	char path[PATH_MAX], err[512];

	if (!built("targets/gt_chan-go-noready", path, sizeof(path)))
		SKIP(return, "no build/tests/targets/gt_chan-go-noready (no go at build time)");
	EXPECT_EQ(-ENOENT, cp_go_hooks_find(path, &h, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "runtime.ready")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "go1.19")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "--no-go")) TH_LOG("%s", err);
}

/* The inline trees: main.mix is inlined (into twice, then add), main.work is not. */
TEST(inlined)
{
	static const char *const builds[] = { "sym/gopcl-go-exe", "sym/gopcl-go1.23-exe" };
	struct cp_gopcln *t;
	char path[PATH_MAX], err[256];
	unsigned int i, tried = 0;
	uint64_t in;
	Elf *elf;

	for (i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		if (!built(builds[i], path, sizeof(path)))
			continue;
		tried++;
		ASSERT_EQ(0, cp_elf_open(path, &elf, err, sizeof(err)));
		ASSERT_EQ(0, cp_gopcln_open(elf, &t, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_EQ(1, cp_gopcln_inlined(t, "main.mix", &in)) TH_LOG("%s", builds[i]);
		EXPECT_EQ(0, cp_gopcln_inlined(t, "main.work", &in)) TH_LOG("%s", builds[i]);
		EXPECT_EQ(0, cp_gopcln_inlined(t, "runtime.ready", &in)) TH_LOG("%s", builds[i]);
		EXPECT_EQ(0, cp_gopcln_inlined(t, "runtime.execute", &in)) TH_LOG("%s", builds[i]);
		cp_gopcln_free(t);
		elf_end(elf);
	}
	if (!tried)
		SKIP(return, "no build/tests/sym/gopcl-*-exe (no go at build time)");
}

TEST_HARNESS_MAIN
