// SPDX-License-Identifier: GPL-2.0
/*
 * mkseeds DIR: the fuzzers' starting corpus, recordings that use every
 * record type: this program's own mappings, build id and vDSO, samples in
 * its functions, libc's, the kernel's and nowhere, a fork and an exec, a
 * thread's exit, lost samples; two events; a cut copy. Made at `make fuzz`
 * time, never committed.
 */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "recording.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 t read_zero\n"
	"ffffffffc0000000 t ext4_foo\t[ext4]\n";

static uint64_t now = 1000;

static void put(struct cp_rec_writer *w, uint16_t type, uint16_t flags, void *rec, size_t len,
		const void *tail, size_t tail_len)
{
	struct iovec iov[2] = {
		{ .iov_base = (char *)rec + 8, .iov_len = len - 8 },
		{ .iov_base = (void *)tail, .iov_len = tail_len },
	};

	cp_rec_putv(w, type, flags, iov, tail ? 2 : 1);
}

static void mmap_rec(struct cp_rec_writer *w, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *path)
{
	struct causalprof_mmap m = { .time_ns = now++, .pid = pid, .start = start, .len = len,
				     .pgoff = pgoff };

	put(w, CAUSALPROF_REC_MMAP, 0, &m, sizeof(m), path, strlen(path) + 1);
}

static void own_maps(struct cp_rec_writer *w, uint32_t pid)
{
	unsigned long start, end, pgoff;
	char line[4096], perms[8], path[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) == 5 && perms[2] == 'x')
			mmap_rec(w, pid, start, end - start, pgoff, path);
	}
	if (f)
		fclose(f);
}

static void comm(struct cp_rec_writer *w, uint32_t pid, uint32_t tid, const char *name,
		 uint16_t flags)
{
	struct causalprof_comm c = { .time_ns = now++, .pid = pid, .tid = tid };

	strncpy(c.comm, name, sizeof(c.comm) - 1);
	put(w, CAUSALPROF_REC_COMM, flags, &c, sizeof(c), NULL, 0);
}

static void task(struct cp_rec_writer *w, uint16_t type, uint32_t pid, uint32_t tid,
		 uint32_t ppid, uint32_t ptid)
{
	struct causalprof_task t = { .time_ns = now++, .pid = pid, .tid = tid, .ppid = ppid,
				     .ptid = ptid };

	put(w, type, 0, &t, sizeof(t), NULL, 0);
}

static void sample(struct cp_rec_writer *w, uint32_t pid, uint32_t tid, uint8_t ev, int nk,
		   int nu, const uint64_t *ips)
{
	struct causalprof_sample s = { .time_ns = now++, .period = 1000000, .pid = pid,
				       .tid = tid, .event = ev, .nr_kernel = nk, .nr_user = nu,
				       .sflags = nk ? 0 : CAUSALPROF_SAMPLE_F_USER };

	put(w, CAUSALPROF_REC_SAMPLE, 0, &s, sizeof(s), ips, (nk + nu) * sizeof(*ips));
}

/* An off-CPU wait: a raw OFF_CPU, or with id the stack once and a count. */
static void off_cpu(struct cp_rec_writer *w, uint32_t pid, uint32_t tid, int nk, int nu,
		    const uint64_t *ips, uint64_t id, uint8_t reason)
{
	struct causalprof_off_cpu o = { .time_ns = now++, .wait_ns = 2000000,
					.delay_ns = 50000, .pid = pid, .tid = tid,
					.reason = reason, .nr_kernel = nk, .nr_user = nu };
	struct causalprof_stack st = { .id = id, .nr_kernel = nk, .nr_user = nu };
	struct causalprof_off_cpu_count c = { .time_ns = now++, .stack = id, .count = 3,
					      .wait_ns = 6000000, .delay_ns = 150000,
					      .pid = pid, .tid = tid, .reason = reason };

	if (!id) {
		put(w, CAUSALPROF_REC_OFF_CPU, 0, &o, sizeof(o), ips, (nk + nu) * sizeof(*ips));
		return;
	}
	put(w, CAUSALPROF_REC_STACK, 0, &st, sizeof(st), ips, (nk + nu) * sizeof(*ips));
	put(w, CAUSALPROF_REC_OFF_CPU_COUNT, 0, &c, sizeof(c), NULL, 0);
}

/* An aggregated session's form: the stack once, then its count. */
static void counted(struct cp_rec_writer *w, uint32_t pid, uint32_t tid, uint8_t ev, int nk,
		    int nu, const uint64_t *ips, uint64_t id, uint64_t n)
{
	struct causalprof_stack st = { .id = id, .nr_kernel = nk, .nr_user = nu,
				       .sflags = nk ? 0 : CAUSALPROF_SAMPLE_F_USER };
	struct causalprof_count c = { .time_ns = now++, .stack = id, .count = n,
				      .weight = n * 1000000, .pid = pid, .tid = tid, .event = ev };

	put(w, CAUSALPROF_REC_STACK, 0, &st, sizeof(st), ips, (nk + nu) * sizeof(*ips));
	put(w, CAUSALPROF_REC_COUNT, 0, &c, sizeof(c), NULL, 0);
}

static void meta(struct cp_rec_writer *w, int events)
{
	char text[1024];
	int n;

	n = snprintf(text, sizeof(text), "cprof_version=0.1.0\nstart_time=2025-01-31T12:00:00.250Z\n"
		     "start_monotonic_ns=1000\ntarget=100\ncommand=seed\nevents=%d\n"
		     "event.0.name=cpu-clock\nevent.0.type=1\nevent.0.config=0x0\n"
		     "event.0.period=0\nevent.0.freq=1000\n", events);
	if (events > 1)
		n += snprintf(text + n, sizeof(text) - n, "event.1.name=cycles\nevent.1.type=0\n"
			      "event.1.config=0x0\nevent.1.period=100000\nevent.1.freq=0\n");
	cp_rec_put(w, CP_REC_META, text, n);
}

static __attribute__((noinline)) uint64_t here(void)
{
	return (uint64_t)__builtin_return_address(0);
}

static int write_seed(const char *dir, const char *name, int events, bool full, bool agg)
{
	uint64_t ips[4], self_ret = here(), qsort_at = (uint64_t)qsort + 4;
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	struct causalprof_lost l = { .lost = 3 };
	struct causalprof_end e = { .samples = 8, .lost = 3, .off_cpu = agg ? 4 : 2 };
	struct cp_rec_writer w;
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (cp_rec_create(&w, path))
		return -1;
	meta(&w, events);
	if (full && vdso)
		cp_rec_put(&w, CP_REC_VDSO, (const void *)vdso, 8192);
	comm(&w, 100, 100, "seed", 0);
	own_maps(&w, 100);
	for (i = 0; i < 4; i++) {
		ips[0] = qsort_at;
		ips[1] = self_ret;
		if (agg)
			counted(&w, 100, 100, i % events, 0, 2, ips, 0x5eed + i, 1 + i);
		else
			sample(&w, 100, 100, i % events, 0, 2, ips);
	}
	ips[0] = 0xffffffff81001010ULL;
	ips[1] = 0xffffffffc0000021ULL;
	ips[2] = self_ret;
	sample(&w, 100, 100, 0, 2, 1, ips);
	/* Off-CPU waits, of both forms (cprof record --off-cpu). */
	off_cpu(&w, 100, 100, 2, 1, ips, 0, CAUSALPROF_OFF_CPU_SLEEP);
	off_cpu(&w, 100, 100, 2, 1, ips, agg ? 0x5eed + 9 : 0, CAUSALPROF_OFF_CPU_IO);
	ips[0] = 0x1234;
	sample(&w, 100, 100, 0, 0, 1, ips);
	if (full) {
		task(&w, CAUSALPROF_REC_FORK, 101, 101, 100, 100);
		task(&w, CAUSALPROF_REC_FORK, 100, 102, 100, 100);
		comm(&w, 101, 101, "seed", CAUSALPROF_COMM_F_EXEC);
		own_maps(&w, 101);
		ips[0] = self_ret;
		sample(&w, 101, 101, 0, 0, 1, ips);
		sample(&w, 100, 102, 0, 0, 1, ips);
		task(&w, CAUSALPROF_REC_EXIT, 100, 102, 0, 0);
	}
	l.time_ns = now++;
	put(&w, CAUSALPROF_REC_LOST, 0, &l, sizeof(l), NULL, 0);
	e.time_ns = now++;
	put(&w, CAUSALPROF_REC_END, 0, &e, sizeof(e), NULL, 0);
	cp_rec_put(&w, CP_REC_KALLSYMS, kallsyms, sizeof(kallsyms) - 1);
	return cp_rec_finish(&w) ? -1 : 0;
}

int main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	if (write_seed(argv[1], "full.rec", 1, true, false) ||
	    write_seed(argv[1], "two-events.rec", 2, false, false) ||
	    write_seed(argv[1], "small.rec", 1, false, false) ||
	    write_seed(argv[1], "aggregated.rec", 2, true, true)) {
		perror("mkseeds");
		return 1;
	}
	return 0;
}
