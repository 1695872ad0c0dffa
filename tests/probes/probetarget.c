// SPDX-License-Identifier: GPL-2.0
/*
 * The program probes_test resolves progress points in, built -O2 -g as a
 * PIE and not (and a copy without DWARF): it links libprobelib.so (found
 * through DT_RUNPATH $ORIGIN) and libc, has two sources named util.c and
 * cprof.h's probes. Lines the test looks for carry a "MARK:" comment.
 *
 *   probetarget probe   print "probe KIND ADDR FUNC" for functions of this
 *                       program, of libprobelib and of libc, then the
 *                       executable mappings as "map START END PGOFF PATH"
 *   probetarget N       do N units of work, passing the probes; exit
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cprof.h>

#include "probes.h"

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long probe_work(unsigned long n)
{	/* MARK:func */
	unsigned long i, x = sink;

	for (i = 0; i < n; i++) {	/* MARK:for */
		x = x * 6364136223846793005UL + probelib_work(i);
		CPROF_PROGRESS(work);	/* MARK:progress */
	}
	/* MARK:nocode */
	sink = x + util_a(x) + util_b(x);
	return x;
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

/* The address @name has in the library @lib (loaded already). */
static void *lib_sym(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD), *p;

	if (!h) {
		fprintf(stderr, "probetarget: %s: %s\n", lib, dlerror());
		exit(1);
	}
	p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "probetarget: %s: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

int main(int argc, char *argv[])
{
	unsigned long i, n;

	if (argc > 1 && !strcmp(argv[1], "probe")) {
		printf("probe main %p probe_work\n", (void *)probe_work);
		printf("probe helper_a %p helper\n", util_a_helper());
		printf("probe helper_b %p helper\n", util_b_helper());
		printf("probe lib %p probelib_work\n", lib_sym("libprobelib.so", "probelib_work"));
		printf("probe libver %p probelib_ver\n", lib_sym("libprobelib.so", "probelib_ver"));
		printf("probe libc %p qsort\n", lib_sym("libc.so.6", "qsort"));
		print_maps();
		return 0;
	}
	/* What coz.h's macros do: probes_test's cp_elf_mentions() finds the name. */
	if (dlsym(RTLD_DEFAULT, "_coz_get_counter"))
		return 2;
	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	for (i = 0; i < n; i++) {
		CPROF_BEGIN(req);
		probe_work(1000);
		sema_fire();
		CPROF_END(req);
	}
	printf("%lu\n", sink);
	return 0;
}
