// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile target for aggregated sessions: two threads spin with forged
 * frame-pointer chains (a user stack is data the process writes), B's
 * last return address solved so that both stacks have the same id under
 * the unkeyed hash the module used for stack ids before it was keyed:
 * a reader that trusts the id would charge B's samples to A's frames.
 *
 *	forge [-s SECONDS]
 *
 * Both threads run forged_loop, one jump to itself, with %rbp at their
 * chain: every sample of either has the same IP and shape. stdout: "ready
 * PID", then after SECONDS (default 2) the program exits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FRAMES	4
/* CAUSALPROF_SAMPLE_F_USER: interrupted in user mode. */
#define SAMPLE_F_USER	1

/* Never returns: %rbp is the chain, the loop a single instruction. */
void forged_spin(uint64_t *chain) __attribute__((noreturn));
extern const char forged_loop[];
asm(".text\n"
    ".globl forged_spin\n"
    ".type forged_spin, @function\n"
    "forged_spin:\n"
    "	mov %rdi, %rbp\n"
    ".globl forged_loop\n"
    "forged_loop:\n"
    "	jmp forged_loop\n"
    ".size forged_spin, . - forged_spin\n");

#define C1	0xff51afd7ed558ccdULL

static uint64_t ror64(uint64_t x, unsigned int r)
{
	return x >> r | x << (64 - r);
}

/*
 * The unkeyed stack hash of kmod/agg.c before it became SipHash, after n
 * of a user stack's nu frames, less its end (a bijection).
 */
static uint64_t old_state(const uint64_t *ips, unsigned int n, unsigned int nu, uint8_t sflags)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)nu << 16 | sflags);
	unsigned int i;

	for (i = 0; i < n; i++)
		h = ror64((h ^ ips[i]) * C1, 29);
	return h;
}

/* The inverse of an odd number modulo 2^64, by Newton's iteration. */
static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

struct thread {
	pthread_t thread;
	uint64_t rets[FRAMES];
};

static void *run(void *arg)
{
	struct thread *t = arg;
	uint64_t chain[2 * FRAMES];
	int i;

	/* Frames going up the stack: { next frame pointer, return address }. */
	for (i = 0; i < FRAMES; i++) {
		chain[2 * i] = i + 1 < FRAMES ? (uint64_t)(uintptr_t)&chain[2 * i + 2] : 0;
		chain[2 * i + 1] = t->rets[i];
	}
	forged_spin(chain);
}

int main(int argc, char **argv)
{
	const uint8_t sflags = SAMPLE_F_USER;
	uint64_t ips_a[FRAMES + 1], ips_b[FRAMES + 1], want, h;
	static struct thread a, b;
	unsigned int seconds = 2;
	int i, opt;

	while ((opt = getopt(argc, argv, "s:")) != -1) {
		if (opt != 's')
			return 2;
		seconds = strtoul(optarg, NULL, 0);
	}

	/* A's frames, B's but the last, then B's last to make the ids meet. */
	ips_a[0] = ips_b[0] = (uint64_t)(uintptr_t)forged_loop;
	for (i = 0; i < FRAMES; i++) {
		a.rets[i] = 0x400000a000ULL + 16 * i;
		b.rets[i] = 0x400000b000ULL + 16 * i;
		ips_a[i + 1] = a.rets[i];
		ips_b[i + 1] = b.rets[i];
	}
	want = old_state(ips_a, FRAMES + 1, FRAMES + 1, sflags);
	h = old_state(ips_b, FRAMES, FRAMES + 1, sflags);
	b.rets[FRAMES - 1] = (ror64(want, 64 - 29) * inverse(C1)) ^ h;
	ips_b[FRAMES] = b.rets[FRAMES - 1];
	if (old_state(ips_b, FRAMES + 1, FRAMES + 1, sflags) != want || !b.rets[FRAMES - 1]) {
		fprintf(stderr, "forge: the forgery does not add up\n");
		return 1;
	}

	if (pthread_create(&a.thread, NULL, run, &a) || pthread_create(&b.thread, NULL, run, &b))
		return 1;
	printf("ready %d\n", getpid());
	fflush(stdout);
	sleep(seconds);
	return 0;
}
