// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks in samples: a deep user stack is walked frame by frame (and
 * cut at CAUSALPROF_MAX_STACK, flagged), a process busy in a system call
 * gets kernel stacks, and without the stack flags a sample holds the
 * interrupted address alone.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define SECONDS		"2"

/* What both fixtures hold: the owner's socket, what it received, the target. */
struct rec {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char path[PATH_MAX];
};

static void rec_setup(struct __test_metadata *_metadata, struct rec *r, const char *target)
{
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path(target, r->path, sizeof(r->path)));
	ASSERT_EQ(0, cp_nl_open(&r->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&r->nl, 32 << 20));
	r->nl.stream = &r->stream;
}

static void rec_teardown(struct __test_metadata *_metadata, struct rec *r)
{
	cp_target_kill(&r->target);
	cp_nl_close(&r->nl);
	cp_stream_free(&r->stream);
	EXPECT_EQ(0, cp_session_reset());
}

/* Sample the target argv until it exits 0; the stream is whole. */
static void record(struct __test_metadata *_metadata, struct rec *r, char *const argv[],
		   uint32_t flags)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const char *why;

	ASSERT_EQ(0, cp_record(&r->nl, &r->target, argv, flags, &ev, 1, 60000))
		TH_LOG("extack: '%s'", r->nl.extack);
	ASSERT_TRUE(WIFEXITED(r->target.status));
	ASSERT_EQ(0, WEXITSTATUS(r->target.status));
	why = cp_stream_problem(&r->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	ASSERT_LT(0U, r->stream.samples);
}

/* Kernel frames are kernel addresses, user frames user addresses. */
static bool frames_in_place(const struct causalprof_sample *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_kernel; i++)
		if (!CP_KERNEL_ADDR(s->ips[i]))
			return false;
	for (i = 0; i < s->nr_user; i++)
		if (CP_KERNEL_ADDR(cp_sample_user(s)[i]))
			return false;
	return true;
}

FIXTURE(user_stack) {
	struct rec r;
};

FIXTURE_VARIANT(user_stack) {
	int depth;
	bool truncated;		/* deeper than CAUSALPROF_MAX_STACK */
};

/* recurse() 51 times on the stack, main() and libc under it */
FIXTURE_VARIANT_ADD(user_stack, depth50) { .depth = 50, .truncated = false };
FIXTURE_VARIANT_ADD(user_stack, depth200) { .depth = 200, .truncated = true };

FIXTURE_SETUP(user_stack)
{
	rec_setup(_metadata, &self->r, "recurse");
}

FIXTURE_TEARDOWN(user_stack)
{
	rec_teardown(_metadata, &self->r);
}

FIXTURE(kernel_stack) {
	struct rec r;
};

FIXTURE_SETUP(kernel_stack)
{
	rec_setup(_metadata, &self->r, "readzero");
}

FIXTURE_TEARDOWN(kernel_stack)
{
	rec_teardown(_metadata, &self->r);
}

/*
 * The innermost recurse() spins: its samples are in user mode, and walking
 * the frame pointers gives the IP in recurse(), then one return address in
 * recurse() per outer call, then main's. The frames up to the limit are
 * the same, and the sample says it was cut.
 */
TEST_F_TIMEOUT(user_stack, frames, 90)
{
	char depth[16], out[256];
	char *argv[] = { self->r.path, depth, SECONDS, NULL };
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	unsigned long long start, end;
	size_t off, deep = 0, user = 0, kernel_in_user = 0, misplaced = 0, cut = 0, cut_short = 0;
	unsigned int in, want, max_user = 0, i;
	const __u64 *ips;

	snprintf(depth, sizeof(depth), "%d", variant->depth);
	record(_metadata, &self->r, argv, CP_F_STACKS);
	ASSERT_LT(0, cp_target_read(&self->r.target, out, sizeof(out), NULL, CP_WAIT_MS));
	ASSERT_EQ(2, sscanf(out, "range %llx %llx", &start, &end)) TH_LOG("target said: %s", out);
	ASSERT_LT(start, end);

	/* the spinning frame and the return addresses of the inner calls */
	want = variant->depth + 1;
	cp_stream_for_each(&self->r.stream, h, off) {
		s = cp_rec_sample(h);
		if (!s || s->pid != (uint32_t)self->r.target.pid)
			continue;
		if (!frames_in_place(s))
			misplaced++;
		if (!(s->sflags & CAUSALPROF_SAMPLE_F_USER))
			continue;
		user++;
		if (s->nr_kernel)
			kernel_in_user++;
		if (s->nr_user > max_user)
			max_user = s->nr_user;
		if (s->sflags & CAUSALPROF_SAMPLE_F_TRUNCATED) {
			cut++;
			if (s->nr_user != CAUSALPROF_MAX_STACK && !cut_short++)
				TH_LOG("a sample cut at %u user frames", s->nr_user);
		}
		ips = cp_sample_user(s);
		for (in = 0; in < s->nr_user; in++)
			if (ips[in] < start || ips[in] >= end)
				break;
		if (variant->truncated ? in == s->nr_user && s->nr_user == CAUSALPROF_MAX_STACK :
					 in == want && s->nr_user > want) {
			if (!deep++) {
				TH_LOG("a sample with %u user frames, %u in recurse()", s->nr_user,
				       in);
				for (i = want - 2; i < s->nr_user && i < want + 2; i++)
					TH_LOG("  user frame %u: %#llx", i,
					       (unsigned long long)ips[i]);
			}
		}
	}
	TH_LOG("%zu user-mode samples, %zu with the whole stack, deepest %u frames, %zu cut",
	       user, deep, max_user, cut);
	ASSERT_LT(0U, user);
	EXPECT_EQ(0U, misplaced) TH_LOG("kernel addresses among user frames or the reverse");
	EXPECT_EQ(0U, kernel_in_user) TH_LOG("user-mode samples with kernel frames");
	EXPECT_LT(0U, deep);
	EXPECT_EQ(0U, cut_short) TH_LOG("stacks cut below CAUSALPROF_MAX_STACK frames");
	if (variant->truncated) {
		EXPECT_LT(0U, cut);
	} else {
		EXPECT_EQ(0U, cut);
	}
}

/*
 * read() of /dev/zero keeps the target in the kernel: its samples carry the
 * kernel stack (the interrupted kernel address, then its callers) and the
 * user stack of the system call.
 */
TEST_F_TIMEOUT(kernel_stack, kernel, 90)
{
	char *argv[] = { self->r.path, SECONDS, NULL };
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	size_t off, kernel = 0, deep = 0, with_user = 0, misplaced = 0, user_flag = 0;

	record(_metadata, &self->r, argv, CP_F_STACKS);
	cp_stream_for_each(&self->r.stream, h, off) {
		s = cp_rec_sample(h);
		if (!s || s->pid != (uint32_t)self->r.target.pid)
			continue;
		if (!frames_in_place(s))
			misplaced++;
		if (!s->nr_kernel)
			continue;
		kernel++;
		if (s->sflags & CAUSALPROF_SAMPLE_F_USER)
			user_flag++;
		if (s->nr_kernel >= 2)
			deep++;
		if (s->nr_user)
			with_user++;
	}
	TH_LOG("%zu samples: %zu in the kernel, %zu of them with callers, %zu with user frames",
	       self->r.stream.samples, kernel, deep, with_user);
	EXPECT_EQ(0U, misplaced) TH_LOG("kernel addresses among user frames or the reverse");
	EXPECT_EQ(0U, user_flag) TH_LOG("kernel-mode samples flagged user mode");
	ASSERT_LT(0U, kernel);
	EXPECT_LT(0U, deep) TH_LOG("kernel stacks hold the interrupted address alone");
	EXPECT_LT(0U, with_user) TH_LOG("no user stack under the system call");
}

/* Without CAUSALPROF_F_USER_STACK and _KERNEL_STACK: the interrupted address only. */
TEST_F_TIMEOUT(kernel_stack, no_stacks, 90)
{
	char *argv[] = { self->r.path, SECONDS, NULL };
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	size_t off, kernel = 0, user = 0, more = 0;
	bool in_user, alone;

	record(_metadata, &self->r, argv, 0);
	cp_stream_for_each(&self->r.stream, h, off) {
		s = cp_rec_sample(h);
		if (!s)
			continue;
		in_user = s->sflags & CAUSALPROF_SAMPLE_F_USER;
		if (in_user)
			user++;
		else
			kernel++;
		alone = in_user ? !s->nr_kernel && s->nr_user == 1 :
				  s->nr_kernel == 1 && !s->nr_user;
		if (!alone && !more++)
			TH_LOG("a %s-mode sample with %u kernel and %u user frames",
			       in_user ? "user" : "kernel", s->nr_kernel, s->nr_user);
	}
	TH_LOG("%zu kernel-mode and %zu user-mode samples", kernel, user);
	EXPECT_LT(0U, kernel);
	EXPECT_EQ(0U, more);
}

TEST_HARNESS_MAIN
