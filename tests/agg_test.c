// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregated sessions (CAUSALPROF_F_AGGREGATE): the samples come as COUNT
 * records of (tid, event, stack), each stack's frames in a STACK record
 * of the same CPU before the first COUNT that names it, and nothing is
 * lost silently: the COUNTs' samples plus the SAMPLE records are END's
 * samples, a full table falls back to SAMPLE records counted in END's
 * fallback and in agg_fallback, and samples + lost == overflows per CPU.
 * Without the flag the session streams SAMPLE records only. A bad
 * CAUSALPROF_A_AGG_ENTRIES is -EINVAL with an extack message. Stack ids
 * are keyed: a process that forges frame chains colliding under an unkeyed
 * hash gets its samples counted on its own frames. The tables are charged
 * to the starter's memory cgroup. The module is reloaded (fresh counters)
 * for each test, with its defaults at the end.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define MAX_STACKS	65536

FIXTURE(agg) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char spin[PATH_MAX];
};

FIXTURE_SETUP(agg)
{
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_module_reload(""));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(agg)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
}

struct seen {
	uint16_t cpu;
	uint64_t id;
	const struct causalprof_stack *st;
};

static const struct causalprof_stack *find(const struct seen *v, size_t n, uint16_t cpu,
					   uint64_t id, bool any_cpu)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == id && (any_cpu || v[i].cpu == cpu))
			return v[i].st;
	return NULL;
}

struct tally {
	size_t stacks, dup_stacks, counts, orphans, mismatched, sample_records;
	uint64_t counted, weight;
};

/*
 * Walks the stream in arrival order: every COUNT's stack came before it
 * from its CPU; STACKs of one id have the same frames.
 */
static void walk(struct __test_metadata *_metadata, const struct cp_stream *s, struct tally *t)
{
	struct seen *v = calloc(MAX_STACKS, sizeof(*v));
	const struct causalprof_record_hdr *h;
	const struct causalprof_stack *st, *other;
	const struct causalprof_count *c;
	size_t off, n = 0;

	ASSERT_NE(NULL, v);
	memset(t, 0, sizeof(*t));
	cp_stream_for_each(s, h, off) {
		if (cp_rec_sample(h)) {
			t->sample_records++;
		} else if ((st = cp_rec_stack(h))) {
			t->stacks++;
			if (find(v, n, st->cpu, st->id, false))
				t->dup_stacks++;
			other = find(v, n, 0, st->id, true);
			if (other && (other->nr_kernel != st->nr_kernel ||
				      other->nr_user != st->nr_user || other->sflags != st->sflags ||
				      memcmp(other->ips, st->ips,
					     (st->nr_kernel + st->nr_user) * sizeof(st->ips[0]))))
				t->mismatched++;
			ASSERT_GT(MAX_STACKS, n);
			v[n++] = (struct seen){ .cpu = st->cpu, .id = st->id, .st = st };
		} else if ((c = cp_rec_count(h))) {
			t->counts++;
			t->counted += c->count;
			t->weight += c->weight;
			if (!find(v, n, c->cpu, c->stack, false))
				t->orphans++;
		}
	}
	free(v);
	TH_LOG("%zu STACK (%zu again on their CPU), %zu COUNT of %llu samples, %zu SAMPLE; END: %llu samples, %llu lost, %llu fallback",
	       t->stacks, t->dup_stacks, t->counts, (unsigned long long)t->counted,
	       t->sample_records, (unsigned long long)s->end.samples,
	       (unsigned long long)s->end.lost, (unsigned long long)s->end.fallback);
}

/* Per CPU samples + lost == overflows; their sums are END's. */
static void check_cpus(struct __test_metadata *_metadata, const struct cp_stream *s)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
	uint64_t samples, lost, overflows, sum_samples = 0, sum_lost = 0;

	for (cpu = 0; cpu < ncpus; cpu++) {
		ASSERT_EQ(0, cp_cpu_counts(cpu, &samples, &lost, &overflows)) TH_LOG("cpu%ld", cpu);
		EXPECT_EQ(overflows, samples + lost) TH_LOG("cpu%ld", cpu);
		sum_samples += samples;
		sum_lost += lost;
	}
	EXPECT_EQ(s->end.samples, sum_samples);
	EXPECT_EQ(s->end.lost, sum_lost);
}

/* Counts, stacks before their counts, and totals that add up. */
TEST_F_TIMEOUT(agg, counts_add_up, 90)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "2", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct tally t;
	const char *why;
	uint64_t val;

	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv,
			       CP_F_STACKS | CAUSALPROF_F_AGGREGATE, &ev, 1, 60000))
		TH_LOG("extack: '%s'", self->nl.extack);
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	walk(_metadata, &self->stream, &t);

	ASSERT_LT(100, t.counted) TH_LOG("too few samples counted");
	EXPECT_LT(0, t.stacks);
	EXPECT_EQ(0, t.orphans) TH_LOG("COUNTs before their STACK");
	EXPECT_EQ(0, t.dup_stacks) TH_LOG("a CPU sent a stack twice");
	EXPECT_EQ(0, t.mismatched) TH_LOG("one id, different frames");
	/* Fewer records than samples: that is the point. */
	EXPECT_GT(t.counted / 2, t.counts);
	/* A roomy table: nothing falls back. */
	EXPECT_EQ(0, self->stream.end.fallback);
	EXPECT_EQ(t.sample_records, self->stream.end.fallback);
	EXPECT_EQ(self->stream.end.samples, t.counted + t.sample_records);
	/* cpu-clock: the weights are ns, about 1 ms each. */
	EXPECT_LT(t.counted * 500000ULL, t.weight);
	EXPECT_GT(t.counted * 2000000ULL, t.weight);
	check_cpus(_metadata, &self->stream);
	ASSERT_EQ(0, cp_status_u64("agg_fallback", &val));
	EXPECT_EQ(0, val);
}

/*
 * The smallest table (16 entries), 24 threads and an owner that stops
 * reading for a while (its table stays unsent, the other fills): samples
 * fall back to SAMPLE records, all counted, none lost silently. A key is
 * (thread, stack) and hot_spin()'s loop has two or three addresses: with
 * 8 threads, four to a CPU, a CPU's keys could stay below 16 (the table
 * never filled once in a full run); 24 threads give each CPU of two at
 * least twice that.
 */
TEST_F_TIMEOUT(agg, table_full_falls_back, 90)
{
	char *argv[] = { self->spin, "-t", "24", "-s", "3", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct timespec stall = { 1, 500000000L };
	struct tally t;
	const char *why;
	uint64_t id, val;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, self->target.pid,
				     CP_F_STACKS | CAUSALPROF_F_AGGREGATE, &ev, 1, 16, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 0));
	ASSERT_EQ(0, cp_target_release(&self->target));
	nanosleep(&stall, NULL);
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	walk(_metadata, &self->stream, &t);

	EXPECT_LT(0, t.counted);
	EXPECT_EQ(0, t.orphans) TH_LOG("COUNTs before their STACK");
	EXPECT_EQ(0, t.mismatched) TH_LOG("one id, different frames");
	ASSERT_LT(0, self->stream.end.fallback) TH_LOG("the table never filled");
	EXPECT_EQ(t.sample_records, self->stream.end.fallback);
	EXPECT_EQ(self->stream.end.samples, t.counted + t.sample_records);
	check_cpus(_metadata, &self->stream);
	ASSERT_EQ(0, cp_status_u64("agg_fallback", &val));
	EXPECT_EQ(self->stream.end.fallback, val);
}

/*
 * The smallest set of sent stacks (16 entries: 128 ids a CPU) and a
 * hundred short children, each with addresses of its own: the STACKs a
 * CPU could not remember come flagged CAUSALPROF_STACK_F_AGAIN, and a
 * CPU sends an id again only after it flagged it so (a reader that
 * forgets those, as cprof record --every does, loses none it needs).
 */
TEST_F_TIMEOUT(agg, unremembered_stacks_flagged, 120)
{
	char forker[PATH_MAX], *argv[] = {
		forker, "100", "/usr/bin/sha256sum", "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL,
	};
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct seen *v = calloc(MAX_STACKS, sizeof(*v));
	const struct causalprof_record_hdr *h;
	const struct causalprof_stack *st;
	size_t off, n = 0, i, again = 0, resent = 0, bad = 0;
	const char *why;
	uint64_t id;

	ASSERT_NE(NULL, v);
	if (access(argv[2], X_OK) || access(argv[3], R_OK))
		SKIP(free(v); return, "no %s or %s", argv[2], argv[3]);
	ASSERT_EQ(0, cp_target_path("forker", forker, sizeof(forker)));
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, self->target.pid,
				     CP_F_STACKS | CAUSALPROF_F_AGGREGATE, &ev, 1, 16, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 100000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);

	/* v: the last STACK of each (cpu, id), in arrival order. */
	cp_stream_for_each(&self->stream, h, off) {
		st = cp_rec_stack(h);
		if (!st)
			continue;
		if (h->flags & CAUSALPROF_STACK_F_AGAIN)
			again++;
		for (i = 0; i < n; i++)
			if (v[i].cpu == st->cpu && v[i].id == st->id)
				break;
		if (i < n) {
			resent++;
			if (!(v[i].st->hdr.flags & CAUSALPROF_STACK_F_AGAIN))
				bad++;
			v[i].st = st;
			continue;
		}
		ASSERT_GT(MAX_STACKS, n);
		v[n++] = (struct seen){ .cpu = st->cpu, .id = st->id, .st = st };
	}
	free(v);
	TH_LOG("%zu ids by CPU, %zu STACKs flagged again, %zu sent again", n, again, resent);
	EXPECT_LT(0, again) TH_LOG("the set never filled");
	EXPECT_EQ(0, bad) TH_LOG("a CPU sent again an id it had not flagged");
}

/*
 * Stopped while the drain's table waits for an owner that does not read
 * and the handler's table holds more: the last drain sends both before
 * the END.
 */
TEST_F_TIMEOUT(agg, stop_sends_every_count, 90)
{
	char *argv[] = { self->spin, "-t", "4", "-s", "0", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct timespec pause = { 0, 400000000L };
	struct tally t;
	const char *why;
	uint64_t id;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, self->target.pid,
				     CP_F_STACKS | CAUSALPROF_F_AGGREGATE, &ev, 1, 0, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 300));
	/* The next message finds no room: its counts stay in the drain's table. */
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 0));
	nanosleep(&pause, NULL);
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	walk(_metadata, &self->stream, &t);
	EXPECT_LT(0, t.counted);
	EXPECT_EQ(0, t.orphans);
	EXPECT_EQ(self->stream.end.samples, t.counted + t.sample_records);
	check_cpus(_metadata, &self->stream);
}

/* Without CAUSALPROF_F_AGGREGATE: one SAMPLE record per sample, as before. */
TEST_F_TIMEOUT(agg, raw_gives_samples, 90)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "1", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct tally t;
	const char *why;

	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv, CP_F_STACKS, &ev, 1, 60000))
		TH_LOG("extack: '%s'", self->nl.extack);
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	walk(_metadata, &self->stream, &t);
	EXPECT_LT(50, t.sample_records);
	EXPECT_EQ(0, t.stacks);
	EXPECT_EQ(0, t.counts);
	EXPECT_EQ(0, self->stream.end.fallback);
	EXPECT_EQ(self->stream.end.samples, t.sample_records);
	check_cpus(_metadata, &self->stream);
}

/* CAUSALPROF_A_AGG_ENTRIES out of range, or without the flag: -EINVAL, said why. */
TEST_F(agg, bad_entries)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const uint32_t flags = CP_F_STACKS | CAUSALPROF_F_AGGREGATE;
	char attrs[64] __attribute__((aligned(4)));
	pid_t pid = getpid();
	uint16_t shorty = 64;
	uint64_t id;
	size_t len;

	EXPECT_EQ(-EINVAL, cp_nl_start_agg(&self->nl, pid, flags, &ev, 1, 8, &id));
	EXPECT_NE(NULL, strstr(self->nl.extack, "not within 16 to 65536")) TH_LOG("'%s'",
										   self->nl.extack);
	EXPECT_EQ(-EINVAL, cp_nl_start_agg(&self->nl, pid, flags, &ev, 1, 65537, &id));
	EXPECT_NE(NULL, strstr(self->nl.extack, "CAUSALPROF_A_AGG_ENTRIES"));
	EXPECT_EQ(-EINVAL, cp_nl_start_agg(&self->nl, pid, CP_F_STACKS, &ev, 1, 1024, &id));
	EXPECT_NE(NULL, strstr(self->nl.extack, "needs CAUSALPROF_F_AGGREGATE")) TH_LOG("'%s'",
											 self->nl.extack);
	/* The policy: a u16 where a u32 goes. */
	len = cp_nla_put(attrs, 0, CAUSALPROF_A_TARGET_PID, &pid, sizeof(pid));
	len = cp_nla_put(attrs, len, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	len = cp_nla_put(attrs, len, CAUSALPROF_A_AGG_ENTRIES, &shorty, sizeof(shorty));
	EXPECT_EQ(-EINVAL, cp_nl_request(&self->nl, CAUSALPROF_CMD_SESSION_START, attrs, len,
					 NULL, 0));
	EXPECT_STRNE("", self->nl.extack);
	TH_LOG("'%s'", self->nl.extack);
	/* The edges are fine. */
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, pid, flags, &ev, 1, 16, &id))
		TH_LOG("'%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	cp_stream_free(&self->stream);
	memset(&self->stream, 0, sizeof(self->stream));
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, pid, flags, &ev, 1, 65536, &id))
		TH_LOG("'%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	EXPECT_EQ(NULL, cp_stream_problem(&self->stream));
}

/* Which forged thread of tests/targets/forge a stack's frames are, or 0. */
static int forged_thread(const struct causalprof_stack *st)
{
	uint64_t first;

	if (st->nr_kernel || st->nr_user != 5)
		return 0;
	first = st->ips[1] & ~0xfffULL;
	return first == 0x400000a000ULL ? 1 : first == 0x400000b000ULL ? 2 : 0;
}

/*
 * A profiled process forges frame chains (data on its stack) whose ids met
 * under the unkeyed hash the module once used: two threads, two different
 * stacks. Each id must name one stack (on every CPU), and the COUNTs of
 * each thread must name its own frames.
 */
TEST_F_TIMEOUT(agg, forged_stacks_keep_their_ids, 90)
{
	char forge[PATH_MAX], *argv[] = { forge, "-s", "3", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct { pid_t tid; int forged; uint64_t count; } tids[8] = {};
	const struct causalprof_record_hdr *h;
	const struct causalprof_stack *st;
	const struct causalprof_count *c;
	struct seen *v;
	struct tally t;
	size_t off, n = 0, i;
	int forged;

	ASSERT_EQ(0, cp_target_path("forge", forge, sizeof(forge)));
	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv,
			       CP_F_STACKS | CAUSALPROF_F_AGGREGATE, &ev, 1, 60000))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	walk(_metadata, &self->stream, &t);
	EXPECT_EQ(0, t.mismatched) TH_LOG("one id, different frames");
	EXPECT_EQ(0, t.orphans);

	v = calloc(MAX_STACKS, sizeof(*v));
	ASSERT_NE(NULL, v);
	cp_stream_for_each(&self->stream, h, off) {
		if ((st = cp_rec_stack(h)) && n < MAX_STACKS) {
			v[n++] = (struct seen){ .cpu = st->cpu, .id = st->id, .st = st };
		} else if ((c = cp_rec_count(h))) {
			st = find(v, n, c->cpu, c->stack, false);
			forged = st ? forged_thread(st) : 0;
			if (!forged)
				continue;
			for (i = 0; i < ARRAY_SIZE(tids) && tids[i].tid && tids[i].tid != c->tid; i++)
				;
			ASSERT_GT(ARRAY_SIZE(tids), i);
			if (tids[i].tid && tids[i].forged != forged)
				tids[i].forged = -1;	/* both threads' frames */
			else
				tids[i].forged = forged;
			tids[i].tid = c->tid;
			tids[i].count += c->count;
		}
	}
	free(v);
	for (i = 0; i < ARRAY_SIZE(tids) && tids[i].tid; i++)
		TH_LOG("tid %d: %llu samples on thread %d's frames", tids[i].tid,
		       (unsigned long long)tids[i].count, tids[i].forged);
	ASSERT_EQ(2, i) TH_LOG("not both forged threads were counted");
	EXPECT_LT(0, tids[0].forged) TH_LOG("a thread counted on both stacks");
	EXPECT_LT(0, tids[1].forged) TH_LOG("a thread counted on both stacks");
	EXPECT_NE(tids[0].forged, tids[1].forged) TH_LOG("both threads counted on one's frames");
}

/*
 * The count tables (about 13 MiB a CPU at 65536 entries) are charged to
 * the starter's memory cgroup and fail there, cleanly: from a cgroup held
 * to 8 MiB, the start is ENOMEM with an extack message (no OOM kill, no
 * allocation warning), and the module starts the next session.
 */
TEST_F_TIMEOUT(agg, tables_charged_to_the_starter, 90)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const char *cg = "/sys/fs/cgroup/cprof-agg-test";
	struct { int ret; char extack[256]; } res;
	char path[PATH_MAX];
	int pipefd[2], status;
	uint64_t id;
	pid_t child;

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		ASSERT_EQ(0, mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL));
	if (cp_write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	ASSERT_TRUE(!mkdir(cg, 0755) || errno == EEXIST);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, cp_write_str(path, "8M"));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	ASSERT_EQ(0, pipe(pipefd));

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		struct cp_nl nl;

		memset(&res, 0, sizeof(res));
		res.ret = cp_write_str(path, "0");
		if (!res.ret)
			res.ret = cp_nl_open(&nl);
		if (!res.ret) {
			res.ret = cp_nl_start_agg(&nl, getpid(), CP_F_STACKS | CAUSALPROF_F_AGGREGATE,
						  &ev, 1, 65536, &id);
			snprintf(res.extack, sizeof(res.extack), "%s", nl.extack);
			cp_nl_close(&nl);
		}
		_exit(write(pipefd[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(res), read(pipefd[0], &res, sizeof(res)));
	close(pipefd[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("the starter was killed: status %#x", status);
	rmdir(cg);
	EXPECT_EQ(-ENOMEM, res.ret) TH_LOG("'%s'", res.extack);
	EXPECT_NE(NULL, strstr(res.extack, "count tables")) TH_LOG("'%s'", res.extack);

	/* Out of the cgroup, the same start works. */
	ASSERT_EQ(0, cp_wait_state("idle", 5000));
	ASSERT_EQ(0, cp_nl_start_agg(&self->nl, getpid(), CP_F_STACKS | CAUSALPROF_F_AGGREGATE,
				     &ev, 1, 65536, &id))
		TH_LOG("'%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
}

TEST_HARNESS_MAIN
