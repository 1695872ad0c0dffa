// SPDX-License-Identifier: GPL-2.0
/*
 * What one visit of a uprobe progress point costs the thread that makes
 * it, measured on this machine before the experiments begin: the int3
 * trap, the handlers and, for an instruction the kernel does not emulate,
 * a single step out of line and a second trap. The module counts that
 * time as a pause the thread took (Documentation/causal.rst, "Progress
 * points cost time too"): without it, a thread that makes the visits and
 * becomes the bottleneck only in the sped-up program (the consumer of a
 * pipe whose producer an experiment speeds up) is slower there by every
 * trap, which the 0 % experiments, where it waits anyway, do not show.
 *
 * Measured with perf's uprobe PMU on two functions of cprof's own: one
 * whose probed instruction the kernel emulates (a nop, as in a USDT site;
 * calls, jumps and pushes are emulated too), one it steps (a mov). Each
 * is called LOOPS times without a probe and with one, ROUNDS times, and
 * the median difference per call is its cost. A site's kind comes from
 * its first instruction's opcode (visit_kind()).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "visitcost.h"

#define LOOPS		200
#define ROUNDS		5
/* More than this per visit is no trap: something else got in the way. */
#define MAX_COST_NS	(10 * 1000 * 1000)

#if defined(__x86_64__)
/* The two sites: their first instruction is the one probed. */
__asm__(".pushsection .text\n"
	".globl cp_visit_site_emulated\n"
	".hidden cp_visit_site_emulated\n"
	".type cp_visit_site_emulated, @function\n"
	"cp_visit_site_emulated:\n"
	"\tnop\n"
	"\tret\n"
	".size cp_visit_site_emulated, .-cp_visit_site_emulated\n"
	".globl cp_visit_site_stepped\n"
	".hidden cp_visit_site_stepped\n"
	".type cp_visit_site_stepped, @function\n"
	"cp_visit_site_stepped:\n"
	"\tmov %rdi, %rax\n"
	"\tret\n"
	".size cp_visit_site_stepped, .-cp_visit_site_stepped\n"
	".popsection\n");

void cp_visit_site_emulated(void);
void cp_visit_site_stepped(void);
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t time_calls(void (*volatile fn)(void))
{
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < LOOPS; i++)
		fn();
	return now_ns() - t0;
}

struct where {
	uintptr_t addr;
	uint64_t offset;
	bool found;
};

/* The file offset of where->addr, from the loaded segment that holds it. */
static int segment_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct where *w = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || w->addr < start || w->addr >= start + ph->p_memsz)
			continue;
		w->offset = w->addr - start + ph->p_offset;
		w->found = true;
		return 1;
	}
	return 0;
}

static int uprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median cost per call of a probe on fn, ns; negative errno. */
static int64_t measure(int type, const char *exe, void (*fn)(void))
{
	struct where w = { .addr = (uintptr_t)fn };
	struct perf_event_attr attr;
	int64_t d[ROUNDS];
	uint64_t bare, probed;
	int fd, r;

	dl_iterate_phdr(segment_of, &w);
	if (!w.found)
		return -ENOENT;
	for (r = 0; r < ROUNDS; r++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = type;
		attr.config1 = (uint64_t)(uintptr_t)exe;
		attr.config2 = w.offset;
		attr.exclude_kernel = 1;
		bare = time_calls(fn);
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		probed = time_calls(fn);
		close(fd);
		d[r] = ((int64_t)probed - (int64_t)bare) / LOOPS;
	}
	qsort(d, ROUNDS, sizeof(d[0]), cmp_s64);
	return d[ROUNDS / 2] < 0 ? 0 : d[ROUNDS / 2];
}

int cp_visit_cost_measure(struct cp_visit_cost *c)
{
#if defined(__x86_64__)
	char exe[PATH_MAX];
	int64_t e, s;
	ssize_t n;
	int type;

	memset(c, 0, sizeof(*c));
	type = uprobe_pmu_type();
	if (type < 0)
		return type;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	exe[n] = '\0';
	e = measure(type, exe, cp_visit_site_emulated);
	if (e < 0)
		return (int)e;
	s = measure(type, exe, cp_visit_site_stepped);
	if (s < 0)
		return (int)s;
	if (e > MAX_COST_NS || s > MAX_COST_NS)
		return -ERANGE;
	c->emulated_ns = (uint32_t)e;
	c->stepped_ns = (uint32_t)s;
	c->measured = true;
	return 0;
#else
	memset(c, 0, sizeof(*c));
	return -EOPNOTSUPP;
#endif
}

/*
 * Whether x86's uprobes emulate the instruction at p (arch/x86/kernel/
 * uprobes.c: branch_setup_xol_ops(), push_setup_xol_ops()): nop, call
 * and jmp rel, jcc, push of a register. Anything else is stepped.
 */
bool cp_visit_emulated(const unsigned char *p, size_t n)
{
	size_t i = 0;

	/* Legacy prefixes, then REX. */
	while (i < n && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3 ||
			 p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 || p[i] == 0x36 ||
			 p[i] == 0x64 || p[i] == 0x65))
		i++;
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= n)
		return false;
	switch (p[i]) {
	case 0x90: case 0xe8: case 0xe9: case 0xeb:
		return true;
	case 0x0f:
		return i + 1 < n && (p[i + 1] & 0xf0) == 0x80;
	default:
		return (p[i] & 0xf0) == 0x70 || (p[i] >= 0x50 && p[i] <= 0x57);
	}
}

uint32_t cp_visit_cost_of(const struct cp_visit_cost *c, const char *path, uint64_t offset)
{
	unsigned char insn[16];
	ssize_t n = -1;
	int fd;

	if (!c->measured)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, insn, sizeof(insn), (off_t)offset);
		close(fd);
	}
	if (n <= 0)
		return c->stepped_ns;
	return cp_visit_emulated(insn, (size_t)n) ? c->emulated_ns : c->stepped_ns;
}
