// SPDX-License-Identifier: GPL-2.0
/*
 * A target for FUNC%return progress points (retpoint_test.sh): functions
 * that leave in every way a C function can, called a known number of times.
 *
 *	retcount STATE N K MS
 *
 * Calls multi_exit() and coldy() N times each, rotating through their
 * ways out, and slow() K times, each sleeping MS ms; then writes "done N K" to the file
 * STATE and exits once STATE is removed (the test reads the module's
 * counters meanwhile).
 *
 * multi_exit() is written in assembly, so that its shape does not depend on
 * the compiler: a plain ret, a "rep ret", and a tail call (a jmp to
 * tail_target(), which returns to multi_exit()'s caller), plus a loop whose
 * backward jump stays inside. Its probes must count each call once.
 * coldy() has a part elsewhere without a symbol, which %return must find
 * by following the jump there. cond_tail(), never called, leaves by a
 * conditional jump: refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline, used)) long tail_target(long x)
{
	return x + 40;
}

long multi_exit(long how);

__asm__(".text\n"
	".globl multi_exit\n"
	".type multi_exit, @function\n"
	"multi_exit:\n"
	"	mov $3, %ecx\n"
	"1:	dec %ecx\n"
	"	jnz 1b\n"			/* a jump inside */
	"	test %rdi, %rdi\n"
	"	je 2f\n"
	"	cmp $1, %rdi\n"
	"	je 3f\n"
	"	jmp tail_target\n"		/* a tail call: leaves */
	"2:	xor %eax, %eax\n"
	"	ret\n"
	"3:	mov $1, %eax\n"
	"	rep ret\n"
	".size multi_exit, .-multi_exit\n");

/*
 * A function with a part elsewhere that no symbol names (as GCC's
 * FUNC.cold in a stripped file): coldy(0) returns from its body; coldy(1)
 * goes to the part, which jumps back into the body; coldy(6) leaves from
 * the part.
 */
long coldy(long x);

__asm__(".text\n"
	".globl coldy\n"
	".type coldy, @function\n"
	"coldy:\n"
	"	test %rdi, %rdi\n"
	"	jne .Lcoldy_part\n"
	".Lcoldy_back:\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size coldy, .-coldy\n"
	".section .text.unlikely, \"ax\", @progbits\n"
	".Lcoldy_part:\n"
	"	dec %rdi\n"
	"	cmp $5, %rdi\n"
	"	jne .Lcoldy_back\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	".text\n");

/* Never called: a conditional tail call, which %return must refuse. */
__asm__(".text\n"
	".globl cond_tail\n"
	".type cond_tail, @function\n"
	"cond_tail:\n"
	"	test %rdi, %rdi\n"
	"	jne tail_target\n"
	"	ret\n"
	".size cond_tail, .-cond_tail\n");

__attribute__((noinline, used)) void slow(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long n, k, i, sum = 0;
	char tmp[4096];
	FILE *f;
	int ms;

	if (argc != 5) {
		fprintf(stderr, "usage: retcount STATE N K MS\n");
		return 2;
	}
	n = atol(argv[2]);
	k = atol(argv[3]);
	ms = atoi(argv[4]);
	for (i = 0; i < n; i++)
		sum += multi_exit(i % 3) + coldy(i % 3 == 2 ? 6 : i % 3);
	for (i = 0; i < k; i++)
		slow(ms);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "done %ld %ld %ld\n", n, k, sum) < 0 || fclose(f) ||
	    rename(tmp, argv[1]))
		return 1;
	while (!access(argv[1], F_OK))
		usleep(10000);
	return 0;
}
