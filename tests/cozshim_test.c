// SPDX-License-Identifier: GPL-2.0
/*
 * libcprof-coz.so and cprof's reader of its counters (user/cozshim.c,
 * user/cozcount.c), without the module: a program built with Coz's coz.h
 * (tests/targets/cozcount) run with the environment cprof gives it counts
 * exactly into the shared region, from several threads and a forked child;
 * without that environment it counts nothing and still runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cozcount.h"

#define PROG	"/build/tests/targets/cozcount"

static char repo[4096];
static char lib[4096 + 64];

/* Runs cozcount THREADS N, with the region's environment when @c; its exit status. */
static int run(const struct cp_coz *c, const char *threads, const char *n)
{
	char prog[sizeof(repo) + 64];
	int status;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s%s", repo, PROG);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (c && cp_coz_putenv(c))
			_exit(126);
		execl(prog, prog, threads, n, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The count of (@type, @name) in @snap, or -1. */
static long long count_of(const struct cp_coz_count *snap, size_t n, int type, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (snap[i].type == type && !strcmp(snap[i].name, name))
			return snap[i].count;
	return -1;
}

static void find_repo(struct __test_metadata *_metadata)
{
	const char *r = getenv("CAUSALPROF_REPO");
	char exe[4096], *p;
	ssize_t len;

	if (r) {
		snprintf(repo, sizeof(repo), "%s", r);
		snprintf(lib, sizeof(lib), "%s/user/libcprof-coz.so", repo);
		return;
	}
	/* build/tests/cozshim_test: the repository is two levels up. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(len, 0);
	exe[len] = '\0';
	for (int i = 0; i < 3 && (p = strrchr(exe, '/')); i++)
		*p = '\0';
	snprintf(repo, sizeof(repo), "%s", exe);
	snprintf(lib, sizeof(lib), "%s/user/libcprof-coz.so", repo);
}

TEST(exact_counts)
{
	struct cp_coz_count snap[64];
	struct cp_coz c = { 0 };
	char err[512];
	size_t n;

	find_repo(_metadata);
	ASSERT_EQ(0, cp_coz_open(&c, lib, 0, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	ASSERT_EQ(0, run(&c, "4", "10000"));
	n = cp_coz_snapshot(&c, snap, 64);
	EXPECT_EQ(40000, count_of(snap, n, CP_COZ_THROUGHPUT, "items"));
	EXPECT_EQ(40000, count_of(snap, n, CP_COZ_BEGIN, "req"));
	EXPECT_EQ(40000, count_of(snap, n, CP_COZ_END, "req"));
	EXPECT_EQ(10000, count_of(snap, n, CP_COZ_THROUGHPUT, "child"));
	EXPECT_EQ(4, n);
	EXPECT_EQ(0, cp_coz_refused(&c));
	/* A second run adds to the same slots. */
	ASSERT_EQ(0, run(&c, "1", "5"));
	n = cp_coz_snapshot(&c, snap, 64);
	EXPECT_EQ(40005, count_of(snap, n, CP_COZ_THROUGHPUT, "items"));
	EXPECT_EQ(4, n);
	cp_coz_close(&c);
}

TEST(without_cprof)
{
	find_repo(_metadata);
	/* No region named: coz.h gets no counter, and the program runs as usual. */
	unsetenv(CP_COZ_ENV);
	ASSERT_EQ(0, run(NULL, "2", "1000"));
}

TEST(full_region)
{
	struct cp_coz_count snap[8];
	struct cp_coz c = { 0 };
	char err[512];
	size_t n;

	find_repo(_metadata);
	/* Room for two of the four counters: the others get none, and are counted. */
	ASSERT_EQ(0, cp_coz_open(&c, lib, 2, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	ASSERT_EQ(0, run(&c, "2", "100"));
	n = cp_coz_snapshot(&c, snap, 8);
	EXPECT_EQ(2, n);
	EXPECT_LT(0, cp_coz_refused(&c));
	cp_coz_close(&c);
}

TEST_HARNESS_MAIN
