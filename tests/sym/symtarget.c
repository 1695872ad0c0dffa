// SPDX-License-Identifier: GPL-2.0
/*
 * Addresses to name, for the symbolizer and report tests, built with -O2 -g
 * (as PIE and not), with a library loaded by dlopen().
 *
 *   symtarget probe LIB     print "probe KIND ADDR FUNC INLINED-INTO LINE
 *                           CALL-LINE FILE" for a return address inside a
 *                           function inlined into another, in this program
 *                           and in LIB, and "probe libc ADDR qsort" for an
 *                           address in libc; then the executable mappings
 *                           as "map START END PGOFF PATH"; exit
 *   symtarget spin LIB S    for S seconds, call LIB's hot loop, the vDSO's
 *                           clock_gettime and read /dev/zero, in turn
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sym.h"

static const char *kind = "main";
static const char *inner_name = "main_inner", *outer_name = "main_outer";
static volatile unsigned long sink;

static __attribute__((noinline)) void probe(int line, int call_line)
{
	void *ret = __builtin_return_address(0);

	printf("probe %s %p %s %s %d %d %s\n", kind, ret, inner_name, outer_name, line, call_line,
	       strcmp(kind, "main") ? "symlib.c" : "symtarget.c");
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

static inline __attribute__((always_inline)) void main_inner(int call_line)
{
	sink += call_line;
	probe(__LINE__, call_line);
	sink++;
}

__attribute__((noinline)) void main_outer(void)
{
	sink++;
	main_inner(__LINE__);
	sink++;
}

static void print_maps(void)
{
	unsigned long start, end, pgoff;
	char line[4096], perms[8], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) < 4 || perms[2] != 'x' || !path[0])
			continue;
		printf("map %lx %lx %lx %s\n", start, end, pgoff, path);
	}
	fclose(f);
}

static void spin(void *lib, double secs)
{
	unsigned long (*hot)(unsigned long) = dlsym(lib, "lib_spin");
	struct timespec t0, t;
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY), i;

	if (!hot || fd < 0) {
		fprintf(stderr, "symtarget: no lib_spin or /dev/zero\n");
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += hot(200000);
		for (i = 0; i < 2000; i++)
			clock_gettime(CLOCK_MONOTONIC, &t);
		for (i = 0; i < 4; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				exit(1);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	close(fd);
}

int main(int argc, char *argv[])
{
	void (*lib_fn)(sym_probe_fn);
	void *lib;

	if (argc < 3) {
		fprintf(stderr, "usage: symtarget probe LIB | symtarget spin LIB SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	lib = dlopen(argv[2], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "symtarget: %s\n", dlerror());
		return 1;
	}
	if (!strcmp(argv[1], "spin")) {
		spin(lib, argc > 3 ? atof(argv[3]) : 1);
		return 0;
	}
	main_outer();
	lib_fn = (void (*)(sym_probe_fn))dlsym(lib, "lib_outer");
	if (!lib_fn)
		return 1;
	kind = "lib";
	inner_name = "lib_inner";
	outer_name = "lib_outer";
	lib_fn(probe);
	printf("probe libc %p qsort\n", (void *)((char *)dlsym(RTLD_DEFAULT, "qsort") + 4));
	print_maps();
	return 0;
}
