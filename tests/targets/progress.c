// SPDX-License-Identifier: GPL-2.0
/*
 * A target for the progress point tests: three functions to probe, called
 * on command.
 *
 *	progress CMDFD
 *
 * stdout: "ready PID TP BEGIN END CHECK" (hex: the addresses of tp(),
 * lat_begin(), lat_end() and, on x86-64, gocheck_jbe in this process, 0
 * elsewhere), then one line per command read from file descriptor CMDFD:
 *
 *	call N T	T threads call tp() N times in all, in bursts of 100
 *			with a yield between; "called N"
 *	lat T K MS	T threads start together; thread i runs K pairs
 *			lat_begin(); sleep MS + 2i + 3(j % 3) ms; lat_end();
 *			"lat PAIRS INNER_NS OUTER_NS": the sums, over the pairs,
 *			of the CLOCK_MONOTONIC intervals between the two calls
 *			(inner: after lat_begin() returned, before lat_end() was
 *			called) and around them (outer)
 *	gocheck N M	N calls of gocheck() that pass its Go-like stack check
 *			and M that fail it (its jbe taken, as when a Go
 *			function's stack must grow); "gochecked N M" (x86-64)
 *	begin		lat_begin(); "begun"
 *	end		lat_end(); "ended"
 *	exit		exits with status 0
 *
 * At EOF on CMDFD it exits with status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROBED __attribute__((noinline, used))

static volatile unsigned long calls;

PROBED void tp(void)
{
	calls++;
}

PROBED void lat_begin(void)
{
	__asm__ volatile("" ::: "memory");
}

PROBED void lat_end(void)
{
	__asm__ volatile("" ::: "memory");
}

#ifdef __x86_64__
/*
 * A Go function's stack check, for the Go hooks' CAUSALPROF_GOHOOK_F_STACK_CHECK:
 * gocheck(limit, g) compares %rsp with 16(%r14), as Go's prologue compares
 * it with the goroutine's stack guard, and its jbe (gocheck_jbe) is taken
 * when %rsp <= limit. RAX holds g at the jbe, as a hook's goroutine.
 */
void gocheck(uint64_t limit, uint64_t g);
void gocheck_jbe(void);
__asm__(".pushsection .text\n"
	".globl gocheck\n"
	".type gocheck, @function\n"
	"gocheck:\n"
	"	push %r14\n"
	"	sub $24, %rsp\n"
	"	mov %rdi, 16(%rsp)\n"
	"	mov %rsp, %r14\n"
	"	mov %rsi, %rax\n"
	"	cmp 16(%r14), %rsp\n"
	".globl gocheck_jbe\n"
	"gocheck_jbe:\n"
	"	jbe 1f\n"
	"1:	add $24, %rsp\n"
	"	pop %r14\n"
	"	ret\n"
	".size gocheck, .-gocheck\n"
	".popsection\n");
#define GOCHECK_AT ((unsigned long)gocheck_jbe)
#else
static void gocheck(uint64_t limit, uint64_t g)
{
	(void)limit;
	(void)g;
}
#define GOCHECK_AT 0UL
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

struct worker {
	pthread_t thread;
	int index;
	long n;			/* call: tp() calls; lat: pairs */
	long ms;
	uint64_t inner, outer;
};

static pthread_barrier_t barrier;

static void *caller(void *arg)
{
	struct worker *w = arg;
	long i;

	pthread_barrier_wait(&barrier);
	for (i = 0; i < w->n; i++) {
		tp();
		if (i % 100 == 99)
			sched_yield();
	}
	return NULL;
}

static void *pairer(void *arg)
{
	struct worker *w = arg;
	uint64_t o0, i0, i1, o1;
	long j;

	pthread_barrier_wait(&barrier);
	for (j = 0; j < w->n; j++) {
		o0 = now_ns();
		lat_begin();
		i0 = now_ns();
		sleep_ns((w->ms + 2 * w->index + 3 * (j % 3)) * 1000000);
		i1 = now_ns();
		lat_end();
		o1 = now_ns();
		w->inner += i1 - i0;
		w->outer += o1 - o0;
	}
	return NULL;
}

/* T threads run fn; n is divided among them (call) or each one's (lat). */
static int run(void *(*fn)(void *), long t, long n, long ms, bool divide,
	       uint64_t *inner, uint64_t *outer)
{
	struct worker *w;
	long i;

	if (t < 1 || t > 64 || n < 0)
		return -1;
	w = calloc(t, sizeof(*w));
	if (!w)
		return -1;
	pthread_barrier_init(&barrier, NULL, t);
	for (i = 0; i < t; i++) {
		w[i].index = i;
		w[i].n = divide ? n / t + (i < n % t) : n;
		w[i].ms = ms;
		if (pthread_create(&w[i].thread, NULL, fn, &w[i]))
			exit(1);
	}
	for (i = 0; i < t; i++) {
		pthread_join(w[i].thread, NULL);
		*inner += w[i].inner;
		*outer += w[i].outer;
	}
	pthread_barrier_destroy(&barrier);
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t inner, outer;
	long n, t, ms;
	char line[128];
	FILE *cmd;

	if (argc != 2 || !(cmd = fdopen(atoi(argv[1]), "r"))) {
		fprintf(stderr, "usage: progress CMDFD\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d %lx %lx %lx %lx\n", getpid(), (unsigned long)tp,
	       (unsigned long)lat_begin, (unsigned long)lat_end, GOCHECK_AT);

	while (fgets(line, sizeof(line), cmd)) {
		inner = outer = 0;
		if (sscanf(line, "call %ld %ld", &n, &t) == 2) {
			if (run(caller, t, n, 0, true, &inner, &outer))
				return 1;
			printf("called %ld\n", n);
		} else if (sscanf(line, "lat %ld %ld %ld", &t, &n, &ms) == 3) {
			if (run(pairer, t, n, ms, false, &inner, &outer))
				return 1;
			printf("lat %ld %llu %llu\n", t * n, (unsigned long long)inner,
			       (unsigned long long)outer);
		} else if (sscanf(line, "gocheck %ld %ld", &n, &t) == 2) {
			for (ms = 0; ms < n; ms++)
				gocheck(0, 0x1000);
			for (ms = 0; ms < t; ms++)
				gocheck(~0ULL, 0x1000);
			printf("gochecked %ld %ld\n", n, t);
		} else if (!strcmp(line, "begin\n")) {
			lat_begin();
			printf("begun\n");
		} else if (!strcmp(line, "end\n")) {
			lat_end();
			printf("ended\n");
		} else if (!strcmp(line, "exit\n")) {
			return 0;
		} else {
			fprintf(stderr, "progress: bad command %s", line);
			return 1;
		}
	}
	return 0;
}
