// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report on damaged input and failing output, no module needed: a
 * recording written by hand (tests/synth.c) cut short or corrupted in the
 * ways a crash, a full disk or a bad copy do it must fail with exit status 2
 * and a message naming the damage and its offset (or, with --force, report
 * what precedes it), never crash or hang; a report that cannot be written
 * fails with status 1.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "helpers/path.h"
#include "profile.pb-c.h"
#include "synth.h"

FIXTURE(input)
{
	char dir[64];
	char good[128];		/* the whole recording */
	char bad[128];		/* damaged copies */
	unsigned char *data;
	size_t len;
	uint64_t offs[512];	/* of the records */
	int nr;
	struct sym_run run;	/* symtarget's mappings and probes */
};

FIXTURE_SETUP(input)
{
	char prog[PATH_MAX], lib[PATH_MAX];
	uint64_t off;
	uint32_t size;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", prog, sizeof(prog)));
	ASSERT_EQ(0, cp_build_path("sym/libsymlib.so", lib, sizeof(lib)));
	ASSERT_EQ(0, synth_probe(prog, lib, &self->run));
	strcpy(self->dir, "/tmp/report_input_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->good, sizeof(self->good), "%s/good.data", self->dir);
	snprintf(self->bad, sizeof(self->bad), "%s/bad.data", self->dir);
	ASSERT_EQ(0, synth_standard(self->good, &self->run, 0));
	ASSERT_EQ(0, synth_slurp(self->good, &self->data, &self->len));
	/* Where the records are, walked here without cprof's reader. */
	for (off = 16; off + 8 <= self->len && self->nr < 512; off += size) {
		memcpy(&size, self->data + off + 4, 4);
		ASSERT_EQ(0, size % 8);
		self->offs[self->nr++] = off;
	}
	ASSERT_EQ(self->len, off);
}

FIXTURE_TEARDOWN(input)
{
	char cmd[128];

	free(self->data);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Runs cprof report on @path with @extra args; the status, its stderr in *@err. */
static int report(const char *path, const char *extra, char **err)
{
	char *argv[] = { "report", "-i", (char *)path, (char *)extra, NULL };

	return synth_cprof(argv, NULL, err);
}

/* The record that contains byte @at. */
static uint64_t record_at(const FIXTURE_DATA(input) *self, uint64_t at)
{
	int i;

	for (i = self->nr - 1; i > 0 && self->offs[i] > at; i--)
		;
	return self->offs[i];
}

TEST_F(input, whole_recording)
{
	char *err = NULL;

	EXPECT_EQ(0, report(self->good, NULL, &err));
	EXPECT_STREQ("", err);
	free(err);
}

/* Cut inside a record (a crash, a full disk): exit 2 naming where. */
TEST_F(input, truncated)
{
	char want[96], *err = NULL;
	uint64_t cuts[] = { self->len - 3, self->offs[self->nr / 2] + 20, self->offs[3] + 4 };
	size_t i;

	for (i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
		ASSERT_EQ(0, write_file(self->bad, self->data, cuts[i]));
		EXPECT_EQ(2, report(self->bad, NULL, &err));
		snprintf(want, sizeof(want), "truncated at offset %llu",
			 (unsigned long long)record_at(self, cuts[i]));
		TH_LOG("cut at %llu: %s", (unsigned long long)cuts[i], err);
		EXPECT_NE(NULL, strstr(err, want));
		EXPECT_NE(NULL, strstr(err, "cut short"));
		EXPECT_NE(NULL, strstr(err, "--force"));
		free(err);
	}
}

/* Cut between records, before END and KALLSYMS (cprof record killed). */
TEST_F(input, cut_at_a_record)
{
	size_t cut = self->offs[self->nr / 2];
	char want[96], *err = NULL;

	ASSERT_EQ(0, write_file(self->bad, self->data, cut));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	snprintf(want, sizeof(want), "truncated at offset %zu", cut);
	EXPECT_NE(NULL, strstr(err, want));
	EXPECT_NE(NULL, strstr(err, "END record"));
	free(err);
}

/* --force: the records before the damage, with a warning; status 0. */
TEST_F(input, force_reports_what_precedes)
{
	size_t cut = self->offs[self->nr - 4] + 12;
	char *argv[] = { "report", "-i", self->bad, "--force", NULL };
	char *out = NULL, *err = NULL;

	ASSERT_EQ(0, write_file(self->bad, self->data, cut));
	EXPECT_EQ(0, synth_cprof(argv, &out, &err));
	EXPECT_NE(NULL, strstr(err, "warning"));
	EXPECT_NE(NULL, strstr(err, "truncated at offset"));
	EXPECT_NE(NULL, strstr(out, "qsort"));
	free(out);
	free(err);
}

static void corrupt_size(struct __test_metadata *_metadata, FIXTURE_DATA(input) *self,
			 uint32_t size, const char *what)
{
	uint64_t off = self->offs[self->nr / 2];
	char want[128], *err = NULL;
	unsigned char *copy = malloc(self->len);

	ASSERT_NE(NULL, copy);
	memcpy(copy, self->data, self->len);
	memcpy(copy + off + 4, &size, 4);
	ASSERT_EQ(0, write_file(self->bad, copy, self->len));
	free(copy);
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	snprintf(want, sizeof(want), "corrupt record at offset %llu: size %u is %s",
		 (unsigned long long)off, size, what);
	EXPECT_NE(NULL, strstr(err, want));
	free(err);
}

TEST_F(input, size_not_a_multiple_of_8)
{
	corrupt_size(_metadata, self, 44, "not a multiple of 8");
}

TEST_F(input, size_zero)
{
	corrupt_size(_metadata, self, 0, "smaller than a record header");
}

/* A sample whose address count does not fit its size, or of an unknown event. */
TEST_F(input, malformed_sample)
{
	struct causalprof_sample s;
	unsigned char *copy = malloc(self->len);
	char want[96], *err = NULL;
	uint64_t off = 0;
	int i;

	ASSERT_NE(NULL, copy);
	for (i = 0; i < self->nr && !off; i++) {
		memcpy(&s, self->data + self->offs[i], sizeof(s));
		if (s.hdr.type == CAUSALPROF_REC_SAMPLE)
			off = self->offs[i];
	}
	ASSERT_NE(0, off);
	snprintf(want, sizeof(want), "corrupt record at offset %llu", (unsigned long long)off);

	memcpy(copy, self->data, self->len);
	s.nr_user = 1000;
	memcpy(copy + off, &s, sizeof(s));
	ASSERT_EQ(0, write_file(self->bad, copy, self->len));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, want));
	EXPECT_NE(NULL, strstr(err, "SAMPLE"));
	free(err);

	memcpy(copy, self->data, self->len);
	memcpy(&s, self->data + off, sizeof(s));
	s.event = 3;
	memcpy(copy + off, &s, sizeof(s));
	ASSERT_EQ(0, write_file(self->bad, copy, self->len));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, want));
	EXPECT_NE(NULL, strstr(err, "event 3"));
	free(err);
	free(copy);
}

/*
 * EXPERIMENT records are listed in the header, with their effective
 * duration (wall - inserted delay); one too short for the ranges and
 * points it announces is corrupt.
 */
TEST_F(input, experiments)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	const struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT,
						 .count = 100 };
	struct causalprof_experiment e = {
		.start_ns = 1, .wall_ns = 2000000000, .inserted_ns = 400000000, .hits = 800,
		.id = 7, .speedup = 250, .nr_ranges = 1, .nr_points = 1,
	};
	char path[160], want[96], *argv[] = { "report", "-i", path, NULL };
	char *out = NULL, *err = NULL;
	unsigned char *data;
	uint64_t off, at = 0;
	struct synth s;
	size_t len;
	uint32_t size;
	uint16_t type, many = 50;

	snprintf(path, sizeof(path), "%s/experiments.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	synth_experiment(&s, &e, 0, &rg, &pt);
	e.id = 8;
	e.nr_points = 0;
	e.wall_ns = 500000000;
	e.inserted_ns = 100000000;
	e.hits = 5;
	synth_experiment(&s, &e, CAUSALPROF_EXP_F_SESSION_END, &rg, NULL);
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(out, "# experiment 7: speedup 25.0%, 1 range, wall 2.000 s, "
				    "inserted delay 0.400 s, effective 1.600 s, 800 hits, "
				    "1 progress point\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# experiment 8: speedup 25.0%, 1 range, wall 0.500 s, "
				    "inserted delay 0.100 s, effective 0.400 s, 5 hits, "
				    "0 progress points (cut by the session's end)\n"));
	free(out);
	free(err);

	/* The first one announces 50 points it does not have. */
	ASSERT_EQ(0, synth_slurp(path, &data, &len));
	for (off = 16; off + 8 <= len && !at; off += size) {
		memcpy(&type, data + off, 2);
		memcpy(&size, data + off + 4, 4);
		ASSERT_LT(0, size);
		if (type == CAUSALPROF_REC_EXPERIMENT)
			at = off;
	}
	ASSERT_NE(0, at);
	memcpy(data + at + offsetof(struct causalprof_experiment, nr_points), &many, sizeof(many));
	ASSERT_EQ(0, write_file(self->bad, data, len));
	free(data);
	snprintf(want, sizeof(want), "corrupt record at offset %llu", (unsigned long long)at);
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, want));
	EXPECT_NE(NULL, strstr(err, "EXPERIMENT"));
	free(err);
}

/* The program speedup the causal report gives @line at 50 %, or NAN. */
static double row_at_50(const char *out, const char *line)
{
	const char *at = strstr(out, line), *row;
	double v;

	if (!at)
		return NAN;
	row = strstr(at, "             50 %  ");
	if (!row || sscanf(row + 19, "%lf", &v) != 1)
		return NAN;
	return v;
}

/*
 * The causal baseline is matched in time: on a machine that runs at half
 * its speed from the middle of the run on (another VM started on its host,
 * say), a line measured only early (truly 25 % faster at 50 %) and one
 * measured only late (truly 0) get their truth, where a pooled baseline
 * would say 44 % and -50 %.
 */
TEST_F(input, causal_baseline_drift)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT };
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 1 };
	char path[160], *argv[] = { "report", "--causal", "-i", path, NULL };
	const char *line;
	char *out = NULL, *err = NULL;
	double period, early, late;
	struct synth s;
	unsigned int k;

	snprintf(path, sizeof(path), "%s/drift.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	for (k = 0; k < 60; k++) {
		/* ns per visit at 0 %: 1 ms, then 2 ms */
		period = k < 30 ? 1e6 : 2e6;
		e.id = k + 1;
		e.start_ns = 1 + k * 100000000ULL;
		e.wall_ns = 100000000;
		if (k % 2 == 0) {
			e.speedup = 0;
			e.inserted_ns = 0;
			pt.count = (uint64_t)(e.wall_ns / period + 0.5);
			line = "/src/a.c:20";
		} else {
			e.speedup = 500;
			e.inserted_ns = 20000000;
			/* a.c:10 makes the program 25 % faster at 50 %, a.c:30 not */
			pt.count = (uint64_t)((e.wall_ns - e.inserted_ns) /
					      (k < 20 ? 0.75 * period : period) + 0.5);
			line = k < 20 ? "/src/a.c:10" : "/src/a.c:30";
		}
		synth_experiment(&s, &e, 0, &rg, &pt);
		synth_causal(&s, e.id, line, "f", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	early = row_at_50(out, "/src/a.c:10");
	late = row_at_50(out, "/src/a.c:30");
	TH_LOG("a.c:10 at 50 %%: %+.1f %% (truth 25), a.c:30: %+.1f %% (truth 0)", early, late);
	EXPECT_TRUE(early > 23.5 && early < 26.5) TH_LOG("%s", out);
	EXPECT_TRUE(late > -1.5 && late < 1.5) TH_LOG("%s", out);
	free(out);
	free(err);
}

/*
 * Spans: a point passed every 10 ms (7.5 ms while a.c:10 is 50 % faster:
 * the program 25 % faster; a.c:30 changes nothing), its experiments'
 * windows falling so that they count one visit too many at 0 % (5 in 45
 * ms) and one too few on a.c:10 (5 in 40 effective ms, the delay spread
 * evenly over the wall time). Counted in windows: 11 % and -11 %; timed
 * from the first hit to the last, as the module's spans give them: 25 and
 * 0 %.
 */
TEST_F(input, causal_spans)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT };
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 1 };
	char path[160], *argv[] = { "report", "--causal", "-i", path, NULL };
	double p, phase, eff, scale, early, late;
	struct causalprof_exp_span sp;
	char *out = NULL, *err = NULL;
	const char *line;
	struct synth s;
	unsigned int k;

	snprintf(path, sizeof(path), "%s/spans.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	for (k = 0; k < 40; k++) {
		e.id = k + 1;
		e.start_ns = 1000000000ULL + k * 100000000ULL;
		if (k % 2 == 0) {
			e.speedup = 0, p = 10e6, phase = 1e6, eff = 45e6, e.inserted_ns = 0;
			line = "/src/a.c:20";
		} else {
			e.speedup = 500, phase = 5e6, eff = 40e6, e.inserted_ns = 15000000;
			p = k % 4 == 1 ? 7.5e6 : 10e6;
			line = k % 4 == 1 ? "/src/a.c:10" : "/src/a.c:30";
			if (k % 4 == 3)
				phase = 1e6;
		}
		e.wall_ns = (uint64_t)eff + e.inserted_ns;
		scale = e.wall_ns / eff;
		pt.count = (uint64_t)((eff - phase) / p) + 1;
		sp = (struct causalprof_exp_span){
			.first_ns = e.start_ns + (uint64_t)(phase * scale),
			.last_ns = e.start_ns + (uint64_t)((phase + (pt.count - 1) * p) * scale),
			.hits = pt.count,
		};
		sp.inserted_ns = sp.last_ns - sp.first_ns - (uint64_t)((pt.count - 1) * p);
		synth_experiment_spans(&s, &e, &rg, &pt, &sp);
		synth_causal(&s, e.id, line, "f", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	early = row_at_50(out, "/src/a.c:10");
	late = row_at_50(out, "/src/a.c:30");
	TH_LOG("a.c:10 at 50 %%: %+.1f %% (truth 25), a.c:30: %+.1f %% (truth 0)", early, late);
	EXPECT_TRUE(early > 24.5 && early < 25.5) TH_LOG("%s", out);
	EXPECT_TRUE(late > -0.5 && late < 0.5) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "hits timed")) TH_LOG("%s", out);
	free(out);
	free(err);
}

/*
 * Visits in bursts: 10 at a time (0.01 ms apart), a burst every 10 ms (7.5
 * ms while a.c:10 is 50 % faster: the program 25 % faster), the 0 %
 * experiments 60 effective ms long (about 6 bursts), a.c:10's 20 (about
 * 3), their windows falling at every phase of the bursts. A span from the
 * first hit to the last covers one gap fewer than its bursts, and counts
 * all their visits: at 0 % 50 ms for 59 visits, on a.c:10 15 ms for 29,
 * about +40 % where the truth is 25 %. The report sees that the spans'
 * period is well below the windows' and counts windows, which the phases
 * average out.
 */
TEST_F(input, causal_bursts)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT };
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 1 };
	char path[160], *argv[] = { "report", "--causal", "-i", path, NULL };
	double gap, phase, eff, scale, span, row;
	struct causalprof_exp_span sp;
	char *out = NULL, *err = NULL;
	unsigned int k, bursts;
	struct synth s;

	snprintf(path, sizeof(path), "%s/bursts.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	for (k = 0; k < 80; k++) {
		e.id = k + 1;
		e.start_ns = 1000000000ULL + k * 100000000ULL;
		if (k % 2 == 0)
			e.speedup = 0, gap = 10e6, eff = 60e6, e.inserted_ns = 0;
		else
			e.speedup = 500, gap = 7.5e6, eff = 20e6, e.inserted_ns = 10000000;
		/* Phases 0, 0.1, ... 0.9 of a gap in turn, each speedup. */
		phase = gap * ((k / 2) % 10) / 10;
		bursts = (unsigned int)((eff - phase - 0.09e6) / gap) + 1;
		e.wall_ns = (uint64_t)eff + e.inserted_ns;
		scale = e.wall_ns / eff;
		pt.count = bursts * 10;
		span = (bursts - 1) * gap + 0.09e6;
		sp = (struct causalprof_exp_span){
			.first_ns = e.start_ns + (uint64_t)(phase * scale),
			.last_ns = e.start_ns + (uint64_t)((phase + span) * scale),
			.hits = pt.count,
		};
		sp.inserted_ns = sp.last_ns - sp.first_ns - (uint64_t)span;
		synth_experiment_spans(&s, &e, &rg, &pt, &sp);
		synth_causal(&s, e.id, k % 2 ? "/src/a.c:10" : "/src/a.c:20", "f", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	row = row_at_50(out, "/src/a.c:10");
	TH_LOG("a.c:10 at 50 %%: %+.1f %% (truth 25)", row);
	EXPECT_TRUE(row > 22 && row < 28) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "hits timed")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "visits in bursts")) TH_LOG("%s", out);
	free(out);
	free(err);
}

/*
 * Rows that are no answer yet: a.c:10 measured 14 times at 50 % (25 %
 * faster), a.c:30 once, wildly (+90 %). a.c:30's row is marked '?' and
 * left out of its impact, so a.c:10 ranks first (with the row counted,
 * a.c:30's impact would be the larger). -v prints each experiment's
 * accounting (with the progress points' traps counted as pauses, where
 * recorded); payments that overslept by more than a quarter of what they
 * asked are warned of.
 */
TEST_F(input, causal_thin_rows_accounting)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT };
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 1 };
	struct causalprof_exp_acct ac = {
		.asked_ns = 10000000, .overshoot_ns = 4000000, .max_overshoot_ns = 1000000,
		.selected_ns = 43210000,
	};
	const struct causalprof_exp_visits vi = { .visits = 107, .visit_ns = 8765000 };
	char path[160], *argv[] = { "report", "--causal", "-v", "-i", path, NULL };
	const char *line, *a10, *a30;
	char *out = NULL, *err = NULL;
	struct synth s;
	unsigned int k;

	snprintf(path, sizeof(path), "%s/thin.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	for (k = 0; k < 31; k++) {
		e.id = k + 1;
		e.start_ns = 1 + k * 100000000ULL;
		e.wall_ns = 100000000;
		if (k % 2 == 0) {
			e.speedup = 0, e.inserted_ns = 0, e.paid_ns = 0;
			pt.count = 100;
			line = "/src/a.c:20";
		} else {
			e.speedup = 500, e.inserted_ns = 20000000, e.paid_ns = 14000000;
			line = k < 29 ? "/src/a.c:10" : "/src/a.c:30";
			pt.count = k < 29 ? 107 : 800;	/* 25 %, and 90 % */
		}
		if (k % 2)
			synth_experiment_visits(&s, &e, &rg, &pt, &ac, &vi);
		else
			synth_experiment_acct(&s, &e, &rg, &pt, &ac);
		synth_causal(&s, e.id, line, "f", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	a10 = strstr(out, "/src/a.c:10 (f)");
	a30 = strstr(out, "/src/a.c:30 (f)");
	ASSERT_NE(NULL, a10) TH_LOG("%s", out);
	ASSERT_NE(NULL, a30) TH_LOG("%s", out);
	EXPECT_LT(a10, a30) TH_LOG("a.c:30's one experiment ranked first:\n%s", out);
	EXPECT_NE(NULL, strstr(a30, "+90.0 % ?")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(a10, "+25.0 % ?")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# ?: 1 rows of fewer than 3")) TH_LOG("%s", out);
	/* -v: the accounting of each experiment, and the overshoot warned of */
	EXPECT_NE(NULL, strstr(out, "# accounting of each experiment")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "   43.2 ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "     8.8  /src/a.c:10")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "     0.0  /src/a.c:20")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# warning: payments slept 40 % longer than they asked"))
		TH_LOG("%s", out);
	free(out);
	free(err);
}

/*
 * A throughput point with two sites (a USDT probe the compiler copied) is
 * two uprobes of one name: one point in the report, their visits added.
 */
TEST_F(input, causal_point_sites)
{
	static const char *const names[] = { "cpu-clock" };
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt[2] = {
		{ .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT },
		{ .id = 2, .kind = CAUSALPROF_PP_THROUGHPUT },
	};
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 2, .wall_ns = 100000000 };
	char path[160], *argv[] = { "report", "--causal", "-i", path, NULL };
	char *out = NULL, *err = NULL;
	struct synth s;
	unsigned int k;

	snprintf(path, sizeof(path), "%s/sites.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	synth_progress(&s, 1, "op", "sdt:cprof:progress__op");
	synth_progress(&s, 2, "op", "sdt:cprof:progress__op");
	for (k = 0; k < 8; k++) {
		e.id = k + 1;
		e.start_ns = 1 + k * 100000000ULL;
		e.speedup = k % 2 ? 500 : 0;
		e.inserted_ns = k % 2 ? 20000000 : 0;
		/* 100 visits per 100 ms, at one site or the other; 25 % faster at 50 % */
		pt[0].count = k % 2 ? 60 : 40;
		pt[1].count = k % 2 ? 46 : 60;
		synth_experiment(&s, &e, 0, &rg, pt);
		synth_causal(&s, e.id, "/src/a.c:10", "f", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(out, "# progress point op (throughput): 824 visits in 8 experiments; "
				    "baseline 1.000 ms per visit (4 experiments at 0 %)"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(strstr(out, "progress point op") + 1, "progress point op"))
		TH_LOG("%s", out);
	/* 80 ms for 106 visits against 1 ms per visit */
	EXPECT_TRUE(fabs(row_at_50(out, "/src/a.c:10") - 24.5) < 0.15) TH_LOG("%s", out);
	free(out);
	free(err);
}

/*
 * The functions of the lines, recorded as their symbols are spelt (C++ and
 * Rust mangled), are shown demangled; pprof keeps the mangled name as the
 * function's system_name.
 */
TEST_F(input, causal_demangled)
{
	static const char *const names[] = { "cpu-clock" };
	static const struct {
		const char *line, *mangled, *plain;
	} fn[] = {
		{ "/src/hot.cc:10", "_Z14accumulate_hotIdET_PKS0_m",
		  "double accumulate_hot<double>(double const*, unsigned long)" },
		{ "/src/main.rs:20", "_ZN7rusthot8hot_loop17h0123456789abcdefE",
		  "rusthot::hot_loop" },
		{ "/src/lib.rs:30", "_RNvMs_NtCs4fqI2P2rA04_7mycrate3fooNtB4_3Bar3baz",
		  "<mycrate::foo::Bar>::baz" },
	};
	const struct causalprof_exp_range rg = { .pid = SYNTH_PID, .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_point pt = { .id = 1, .kind = CAUSALPROF_PP_THROUGHPUT };
	struct causalprof_experiment e = { .nr_ranges = 1, .nr_points = 1, .wall_ns = 100000000 };
	char path[160], pb[176], want[256];
	char *argv[] = { "report", "--causal", "-i", path, NULL };
	char *pprof[] = { "report", "--causal", "-i", path, "--pprof", pb, NULL };
	Perftools__Profiles__Profile *p;
	char *out = NULL, *err = NULL;
	unsigned char *data;
	unsigned int k, i, j, found = 0;
	size_t len;
	struct synth s;

	snprintf(path, sizeof(path), "%s/mangled.data", self->dir);
	snprintf(pb, sizeof(pb), "%s/mangled.pb.gz", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	for (k = 0; k < 12; k++) {
		e.id = k + 1;
		e.start_ns = 1 + k * 100000000ULL;
		e.speedup = k % 2 ? 500 : 0;
		e.inserted_ns = k % 2 ? 20000000 : 0;
		pt.count = k % 2 ? 100 : 80;
		synth_experiment(&s, &e, 0, &rg, &pt);
		synth_causal(&s, e.id, k % 2 ? fn[k / 2 % 3].line : "/src/base.c:1",
			     k % 2 ? fn[k / 2 % 3].mangled : "base", NULL, 0);
	}
	synth_end(&s, 0, 0);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		snprintf(want, sizeof(want), "%s (%s)\n", fn[i].line, fn[i].plain);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("no '%s' in:\n%s", want, out);
		EXPECT_EQ(NULL, strstr(out, fn[i].mangled)) TH_LOG("%s", out);
	}

	free(out);
	free(err);
	ASSERT_EQ(0, synth_cprof(pprof, &out, &err)) TH_LOG("%s", err);
	ASSERT_EQ(0, synth_gunzip(pb, &data, &len));
	p = perftools__profiles__profile__unpack(NULL, len, data);
	free(data);
	ASSERT_NE(NULL, p);
	for (j = 0; j < p->n_function; j++) {
		const char *name = p->string_table[p->function[j]->name];
		const char *sys = p->string_table[p->function[j]->system_name];

		for (i = 0; i < ARRAY_SIZE(fn); i++) {
			if (strcmp(name, fn[i].plain))
				continue;
			EXPECT_STREQ(fn[i].mangled, sys);
			found++;
		}
	}
	EXPECT_EQ(ARRAY_SIZE(fn), found);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(out);
	free(err);
}

/* Not a recording at all. */
/*
 * A mapping made over the start of an older one (mmap(MAP_FIXED) or
 * mprotect() splitting it): the rest of the old one lives on at its own file
 * offsets, so a sample there is still named.
 */
TEST_F(input, mapping_split)
{
	static const char *const names[] = { "cpu-clock" };
	const struct sym_probe *p = synth_find_probe(&self->run, "main");
	const struct sym_probe *libc = synth_find_probe(&self->run, "libc");
	char path[160], *argv[] = { "report", "-i", path, NULL }, *out = NULL, *err = NULL;
	const struct sym_map *m;
	struct sym_map over;
	uint64_t ips[2];
	struct synth s;
	int i;

	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, libc);
	m = synth_find_map(&self->run, p->addr - 1);
	ASSERT_NE(NULL, m);
	ASSERT_LT(m->start + 16, p->addr);
	/* Anonymous code over the mapping, up to just before main's call. */
	over = (struct sym_map){ .start = m->start, .end = p->addr - 16 };
	strcpy(over.path, CAUSALPROF_MMAP_ANON);

	snprintf(path, sizeof(path), "%s/split.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	synth_comm(&s, SYNTH_PID, SYNTH_PID, "symtarget", 0);
	synth_maps(&s, SYNTH_PID, &self->run);
	synth_mmap(&s, SYNTH_PID, &over);
	for (i = 0; i < 20; i++) {
		ips[0] = libc->addr;
		ips[1] = p->addr;
		synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 0, 2, ips);
	}
	synth_end(&s, 20, 0);
	ASSERT_EQ(0, synth_finish(&s));
	EXPECT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, p->outer)) TH_LOG("%s not in:\n%s", p->outer, out);
	free(out);
	free(err);
}

/* Does the row of the table @out that ends in @name start with @flat? */
static bool row_starts(const char *out, const char *name, const char *flat)
{
	char want[128];
	const char *row;

	snprintf(want, sizeof(want), "  %s\n", name);
	row = strstr(out, want);
	if (!row)
		return false;
	while (row > out && row[-1] != '\n')
		row--;
	while (*row == ' ')
		row++;
	return !strncmp(row, flat, strlen(flat)) && row[strlen(flat)] == ' ';
}

/*
 * Threads and processes apart: --threads has a row per thread, by its own
 * name, and a process without mappings has its samples unnamed, not named
 * through another's.
 */
TEST_F(input, threads_and_processes_apart)
{
	static const char *const names[] = { "cpu-clock" };
	const struct sym_probe *p = synth_find_probe(&self->run, "main");
	char path[160], *argv[] = { "report", "-i", path, "--threads", NULL };
	char *out = NULL, *err = NULL;
	const uint32_t other = SYNTH_PID + 100;
	uint64_t ip;
	struct synth s;
	int i;

	ASSERT_NE(NULL, p);

	snprintf(path, sizeof(path), "%s/apart.data", self->dir);
	ASSERT_EQ(0, synth_begin(&s, path, SYNTH_PID, names, 1));
	synth_comm(&s, SYNTH_PID, SYNTH_PID, "alpha", 0);
	synth_comm(&s, SYNTH_PID, SYNTH_PID + 1, "beta", 0);
	synth_comm(&s, other, other, "gamma", 0);
	synth_maps(&s, SYNTH_PID, &self->run);
	ip = p->addr;
	for (i = 0; i < 90; i++)
		synth_sample(&s, SYNTH_PID, i < 60 ? SYNTH_PID : SYNTH_PID + 1, 0, SYNTH_PERIOD,
			     0, 1, &ip);
	for (i = 0; i < 10; i++)
		synth_sample(&s, other, other, 0, SYNTH_PERIOD, 0, 1, &ip);
	synth_end(&s, 100, 0);
	ASSERT_EQ(0, synth_finish(&s));
	EXPECT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "alpha")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "beta")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "gamma")) TH_LOG("%s", out);
	free(out);
	argv[3] = NULL;
	EXPECT_EQ(0, synth_cprof(argv, &out, &err)) TH_LOG("%s", err);
	ASSERT_NE(NULL, out);
	/* The first process's 90 samples named; the other process's 10 not. */
	EXPECT_TRUE(row_starts(out, p->func, "90ms")) TH_LOG("%s", out);
	EXPECT_TRUE(row_starts(out, "<unknown>", "10ms")) TH_LOG("%s", out);
	free(out);
	free(err);
}

TEST_F(input, not_a_recording)
{
	char fifo[160], *err = NULL;

	ASSERT_EQ(0, write_file(self->bad, "CPROFREX\1\0\0\0\20\0\0\0", 16));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "not a cprof recording"));
	free(err);
	ASSERT_EQ(0, write_file(self->bad, "", 0));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "empty"));
	free(err);
	/* A header only: no META. */
	ASSERT_EQ(0, write_file(self->bad, self->data, 16));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	free(err);
	/* A FIFO must not block it. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ(2, report(fifo, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "not a regular file"));
	free(err);
	/* A missing file is a failure, not damage. */
	EXPECT_EQ(1, report("/nonexistent/cprof.data", NULL, &err));
	EXPECT_NE(NULL, strstr(err, "No such file"));
	free(err);
}

/*
 * Cut anywhere: exit 0 (a whole file) or 2, never a crash. About 150 cuts
 * spread over the file (a prime stride, so they land at every offset
 * within a record); each is a whole cprof run, slow in a loaded VM.
 */
TEST_F_TIMEOUT(input, every_cut, 240)
{
	size_t cut, step = 89;
	int rc, n = 0;

	while (self->len / step > 150)
		step = step * 2 + 1;
	for (cut = 0; cut < self->len; cut += step) {
		ASSERT_EQ(0, write_file(self->bad, self->data, cut));
		rc = report(self->bad, NULL, NULL);
		if (rc != 2)
			TH_LOG("cut at %zu: exit %d", cut, rc);
		EXPECT_EQ(2, rc);
		n++;
	}
	TH_LOG("%d cuts", n);
}

/* A report that cannot be written fails, saying so. */
TEST_F(input, write_errors)
{
	char *argv[] = { "report", "-i", self->good, NULL };
	char *pprof[] = { "report", "-i", self->good, "--pprof", "/dev/full", NULL };
	char *nodir[] = { "report", "-i", self->good, "--pprof", "/nonexistent/x.pb.gz", NULL };
	char *err = NULL;
	int fd, pipefd[2], rc;

	fd = open("/dev/full", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, synth_cprof_fd(argv, fd, &err));
	close(fd);
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "No space left"));
	free(err);

	EXPECT_EQ(1, synth_cprof(pprof, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "cannot write /dev/full"));
	free(err);
	/* A half-written profile is removed, never a device. */
	EXPECT_EQ(0, access("/dev/full", F_OK));

	EXPECT_EQ(1, synth_cprof(nodir, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "cannot create"));
	free(err);

	/* A closed pipe: SIGPIPE, or EPIPE where it is ignored. */
	ASSERT_EQ(0, pipe(pipefd));
	close(pipefd[0]);
	rc = synth_cprof_fd(argv, pipefd[1], NULL);
	close(pipefd[1]);
	EXPECT_TRUE(rc == 128 + SIGPIPE || rc == 1);
}

TEST_F(input, usage_errors)
{
	char *both[] = { "report", "-i", self->good, "--lines", "--threads", NULL };
	char *bad[] = { "report", "--no-such-option", NULL };
	char *event[] = { "report", "-i", self->good, "--event", "cycles", NULL };
	char *err = NULL;

	EXPECT_EQ(2, synth_cprof(both, NULL, &err));
	free(err);
	EXPECT_EQ(2, synth_cprof(bad, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "usage"));
	free(err);
	EXPECT_EQ(2, synth_cprof(event, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "0 (cpu-clock)"));
	free(err);
}

/*
 * The recording aggregated as the module does it (CAUSALPROF_F_AGGREGATE):
 * every SAMPLE becomes a COUNT of its (tid, event, stack) at the place of
 * the key's first sample, preceded by the stack's STACK the first time
 * (unless @no_stacks). Into a malloc'ed buffer: its length, or 0.
 */
static size_t aggregate(const FIXTURE_DATA(input) *self, unsigned char **out, bool no_stacks)
{
	struct key {
		const struct causalprof_sample *s;
		size_t at;	/* its COUNT in *out */
	} keys[512];
	const struct causalprof_sample *s, *k;
	struct causalprof_count *c;
	struct causalprof_stack *st;
	unsigned char *o = calloc(1, 4 * self->len);
	size_t len = 16, n, nkeys = 0, i, j;
	int r;

	if (!o)
		return 0;
	memcpy(o, self->data, 16);
	for (r = 0; r < self->nr; r++) {
		const struct causalprof_record_hdr *h = (const void *)(self->data + self->offs[r]);

		if (h->type != CAUSALPROF_REC_SAMPLE) {
			memcpy(o + len, h, h->size);
			len += h->size;
			continue;
		}
		s = (const void *)h;
		n = s->nr_kernel + s->nr_user;
		for (i = 0; i < nkeys; i++) {
			k = keys[i].s;
			if (k->tid == s->tid && k->event == s->event &&
			    k->nr_kernel == s->nr_kernel && k->nr_user == s->nr_user &&
			    k->sflags == s->sflags && !memcmp(k->ips, s->ips, n * 8))
				break;
		}
		if (i < nkeys) {
			c = (void *)(o + keys[i].at);
			c->count++;
			c->weight += s->period;
			continue;
		}
		/* A new key; a new stack unless another key had it. */
		for (j = 0; j < nkeys; j++) {
			k = keys[j].s;
			if (k->nr_kernel == s->nr_kernel && k->nr_user == s->nr_user &&
			    k->sflags == s->sflags && !memcmp(k->ips, s->ips, n * 8))
				break;
		}
		if (j == nkeys && !no_stacks) {
			st = (void *)(o + len);
			st->hdr.type = CAUSALPROF_REC_STACK;
			st->hdr.size = sizeof(*st) + n * 8;
			st->id = 0x5eed0000 + nkeys;
			st->sflags = s->sflags;
			st->nr_kernel = s->nr_kernel;
			st->nr_user = s->nr_user;
			memcpy(st->ips, s->ips, n * 8);
			len += st->hdr.size;
		}
		c = (void *)(o + len);
		c->hdr.type = CAUSALPROF_REC_COUNT;
		c->hdr.size = sizeof(*c);
		c->time_ns = s->time_ns;
		c->stack = 0x5eed0000 + (j == nkeys ? nkeys : j);
		/* Keys of a stack seen before name that stack's id. */
		if (j < nkeys)
			c->stack = ((struct causalprof_count *)(o + keys[j].at))->stack;
		c->count = 1;
		c->weight = s->period;
		c->pid = s->pid;
		c->tid = s->tid;
		c->cpu = s->cpu;
		c->event = s->event;
		keys[nkeys++] = (struct key){ .s = s, .at = len };
		len += sizeof(*c);
	}
	*out = o;
	return len;
}

/* Runs cprof @argv, its stdout into *out; the status. */
static int run_out(char *const argv[], char **out)
{
	return synth_cprof(argv, out, NULL);
}

/*
 * An aggregated recording (STACK and COUNT records) reports the same as
 * the raw one of the same samples: the top table, --lines and the pprof.
 */
TEST_F(input, aggregated_same_report)
{
	char raw_pb[160], agg_pb[160], *a = NULL, *b = NULL;
	const char *modes[] = { NULL, "--lines", "--threads" };
	char *ra[] = { "report", "-i", self->bad, "--pprof", raw_pb, NULL };
	char *aa[] = { "report", "-i", self->bad, "--pprof", agg_pb, NULL };
	unsigned char *o, *pa, *pb;
	size_t len, la, lb;
	unsigned int i;

	len = aggregate(self, &o, false);
	ASSERT_LT(0, len);
	ASSERT_GT(self->len, len) TH_LOG("aggregated is not smaller");
	/* Both read from the same path: the report names it. */
	for (i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		char *argv[] = { "report", "-i", self->bad, (char *)modes[i], NULL };

		ASSERT_EQ(0, write_file(self->bad, self->data, self->len));
		ASSERT_EQ(0, run_out(argv, &a));
		ASSERT_EQ(0, write_file(self->bad, o, len));
		ASSERT_EQ(0, run_out(argv, &b));
		EXPECT_STREQ(a, b) TH_LOG("%s", modes[i] ? modes[i] : "top table");
		if (!i)
			TH_LOG("%s", b);
		free(a);
		free(b);
	}
	snprintf(raw_pb, sizeof(raw_pb), "%s/raw.pb.gz", self->dir);
	snprintf(agg_pb, sizeof(agg_pb), "%s/agg.pb.gz", self->dir);
	ASSERT_EQ(0, write_file(self->bad, self->data, self->len));
	ASSERT_EQ(0, run_out(ra, NULL));
	ASSERT_EQ(0, write_file(self->bad, o, len));
	ASSERT_EQ(0, run_out(aa, NULL));
	free(o);
	ASSERT_EQ(0, synth_gunzip(raw_pb, &pa, &la));
	ASSERT_EQ(0, synth_gunzip(agg_pb, &pb, &lb));
	EXPECT_EQ(la, lb);
	EXPECT_EQ(0, la == lb ? memcmp(pa, pb, la) : 1) TH_LOG("the pprofs differ");
	free(pa);
	free(pb);
}

/* A COUNT of a stack no STACK gave is corrupt: exit 2, or skipped with --force. */
TEST_F(input, count_without_stack)
{
	unsigned char *o;
	char *err = NULL;
	size_t len;

	len = aggregate(self, &o, true);
	ASSERT_LT(0, len);
	ASSERT_EQ(0, write_file(self->bad, o, len));
	free(o);
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "which no STACK before it has"));
	free(err);
	EXPECT_EQ(0, report(self->bad, "--force", &err));
	free(err);
}

/*
 * Off-CPU waits (cprof record --off-cpu): an OFF_CPU_COUNT of a stack no
 * STACK gave, one of 0 waits, and an OFF_CPU too short for its addresses
 * are corrupt: exit 2 naming them, or skipped with --force.
 */
TEST_F(input, off_cpu_records)
{
	static const char *const names[] = { "cpu-clock" };
	static const char *const why[] = {
		"an OFF_CPU_COUNT of stack 0x9, which no STACK before it has",
		"an OFF_CPU_COUNT of 0 waits",
		"an OFF_CPU of 48 bytes is too short for its header and addresses",
	};
	uint64_t ips[2] = { SYNTH_KIP1, SYNTH_UNKNOWN };
	char *err = NULL;
	struct synth s;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, synth_begin(&s, self->bad, SYNTH_PID, names, 1));
		synth_stack(&s, 7, 1, 1, ips);
		synth_off_cpu_count(&s, SYNTH_PID, SYNTH_PID, 7, 2, 1000, 10,
				    CAUSALPROF_OFF_CPU_FUTEX);
		if (i == 0)
			synth_off_cpu_count(&s, SYNTH_PID, SYNTH_PID, 9, 1, 1000, 10, 0);
		else if (i == 1)
			synth_off_cpu_count(&s, SYNTH_PID, SYNTH_PID, 7, 0, 0, 0, 0);
		else
			synth_off_cpu(&s, SYNTH_PID, SYNTH_PID, 1000, 10, 0, 0, 0, NULL);
		synth_end_waits(&s, 0, 3, 0, 0);
		synth_kallsyms(&s, SYNTH_KALLSYMS);
		ASSERT_EQ(0, synth_finish(&s));
		if (i == 2) {
			/* Its addresses said to be there, and not. */
			struct causalprof_off_cpu w;
			unsigned char *d;
			size_t len, off;

			ASSERT_EQ(0, synth_slurp(self->bad, &d, &len));
			for (off = 16; off < len; off += ((struct causalprof_record_hdr *)(d + off))->size)
				if (((struct causalprof_record_hdr *)(d + off))->type == CAUSALPROF_REC_OFF_CPU)
					break;
			ASSERT_LT(off, len);
			memcpy(&w, d + off, sizeof(w));
			w.nr_user = 1;
			memcpy(d + off, &w, sizeof(w));
			ASSERT_EQ(0, write_file(self->bad, d, len));
			free(d);
		}
		EXPECT_EQ(2, report(self->bad, NULL, &err));
		EXPECT_NE(NULL, strstr(err, why[i])) TH_LOG("%s", err);
		free(err);
		EXPECT_EQ(0, report(self->bad, "--force", &err));
		free(err);
	}
}

/* Version 1 recordings (before STACK and COUNT) still read; version 3 does not. */
TEST_F(input, format_versions)
{
	char *a = NULL, *b = NULL, *err = NULL;
	char *rb[] = { "report", "-i", self->bad, NULL };
	uint32_t version;

	memcpy(&version, self->data + 8, 4);
	EXPECT_EQ(2, version);
	ASSERT_EQ(0, write_file(self->bad, self->data, self->len));
	ASSERT_EQ(0, run_out(rb, &a));
	version = 1;
	memcpy(self->data + 8, &version, 4);
	ASSERT_EQ(0, write_file(self->bad, self->data, self->len));
	ASSERT_EQ(0, run_out(rb, &b));
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
	version = 3;
	memcpy(self->data + 8, &version, 4);
	ASSERT_EQ(0, write_file(self->bad, self->data, self->len));
	EXPECT_EQ(2, report(self->bad, NULL, &err));
	EXPECT_NE(NULL, strstr(err, "version 3")) TH_LOG("%s", err);
	free(err);
}

TEST_HARNESS_MAIN
