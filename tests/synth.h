/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the report tests, which need no module: recordings written by
 * hand (user/recording.c's writer) around the addresses of real programs
 * (tests/sym/symtarget), and cprof run with its output captured.
 */
#ifndef CP_SYNTH_H
#define CP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recording.h"

/* What "symtarget probe LIB" (or "gobusy probe") printed. */
struct sym_probe {
	char kind[16];		/* main, lib, libc, go */
	uint64_t addr;		/* a return address, or an address in a function */
	char func[64];		/* the function at addr (the inlined one) */
	char outer[64];		/* the function it is inlined into, "" */
	int line, call_line;
	char file[64];		/* basename of the source file */
};

struct sym_map {
	uint64_t start, end, pgoff;
	char path[512];
};

struct sym_run {
	struct sym_probe probes[8];
	int nr_probes;
	struct sym_map maps[64];
	int nr_maps;
};

/* Runs PROG probe [ARG] and parses what it prints. */
int synth_probe(const char *prog, const char *arg, struct sym_run *run);
const struct sym_probe *synth_find_probe(const struct sym_run *run, const char *kind);
const struct sym_map *synth_find_map(const struct sym_run *run, uint64_t addr);

/* A recording written by hand; every call after a write error is a no-op. */
struct synth {
	struct cp_rec_writer w;
	uint64_t time;		/* of the next record */
};

/* A header and META for @nr events named @names (cpu-clock: 1 kHz). */
int synth_begin(struct synth *s, const char *path, uint32_t target, const char *const *names,
		int nr);
void synth_mmap(struct synth *s, uint32_t pid, const struct sym_map *m);
void synth_maps(struct synth *s, uint32_t pid, const struct sym_run *run);
void synth_comm(struct synth *s, uint32_t pid, uint32_t tid, const char *comm, uint16_t flags);
void synth_sample(struct synth *s, uint32_t pid, uint32_t tid, uint8_t event, uint64_t period,
		  int nr_kernel, int nr_user, const uint64_t *ips);
void synth_lost(struct synth *s, uint64_t lost);
void synth_end(struct synth *s, uint64_t samples, uint64_t lost);
/* An OFF_CPU record: one wait of @wait_ns then @delay_ns in the run queue. */
void synth_off_cpu(struct synth *s, uint32_t pid, uint32_t tid, uint64_t wait_ns,
		   uint64_t delay_ns, uint8_t reason, int nr_kernel, int nr_user,
		   const uint64_t *ips);
/* A STACK of id @id, and an OFF_CPU_COUNT of @count waits of that stack. */
void synth_stack(struct synth *s, uint64_t id, int nr_kernel, int nr_user, const uint64_t *ips);
void synth_off_cpu_count(struct synth *s, uint32_t pid, uint32_t tid, uint64_t id,
			 uint64_t count, uint64_t wait_ns, uint64_t delay_ns, uint8_t reason);
/* An END of @waits off-CPU waits recorded and @lost not, @capped of them over the cap. */
void synth_end_waits(struct synth *s, uint64_t samples, uint64_t waits, uint64_t lost,
		     uint64_t capped);
/* An EXPERIMENT with e's counters (its time is the next one's) and flags. */
void synth_experiment(struct synth *s, const struct causalprof_experiment *e, uint16_t flags,
		      const struct causalprof_exp_range *ranges,
		      const struct causalprof_exp_point *points);
/* The same with the points' spans (CAUSALPROF_EXP_F_SPANS), one per point. */
void synth_experiment_spans(struct synth *s, const struct causalprof_experiment *e,
			    const struct causalprof_exp_range *ranges,
			    const struct causalprof_exp_point *points,
			    const struct causalprof_exp_span *spans);
/* cprof's PROGRESS record of point @id (a throughput uprobe): name and spec. */
void synth_experiment_acct(struct synth *s, const struct causalprof_experiment *e,
			   const struct causalprof_exp_range *ranges,
			   const struct causalprof_exp_point *points,
			   const struct causalprof_exp_acct *acct);
void synth_experiment_visits(struct synth *s, const struct causalprof_experiment *e,
			     const struct causalprof_exp_range *ranges,
			     const struct causalprof_exp_point *points,
			     const struct causalprof_exp_acct *acct,
			     const struct causalprof_exp_visits *visits);
void synth_progress(struct synth *s, uint32_t id, const char *name, const char *spec);
/* cprof's CAUSAL record of experiment @exp_id: its line, function and counters. */
void synth_causal(struct synth *s, uint32_t exp_id, const char *line, const char *func,
		  const struct causalprof_exp_point *points, uint16_t nr_points);
void synth_kallsyms(struct synth *s, const char *text);
int synth_finish(struct synth *s);

/*
 * The recording most report tests read, of "symtarget probe" run as process
 * SYNTH_PID (threads SYNTH_PID and SYNTH_PID + 1, "worker"), cpu-clock with
 * a period of 1 ms:
 *   60 samples in qsort called from main_inner, inlined into main_outer
 *   30 samples in qsort called from lib_inner, inlined into lib_outer (in
 *      the dlopen()ed library; thread SYNTH_PID + 1)
 *   10 samples in the kernel: do_syscall_64 called from ext4_foo of module
 *      ext4, from main_inner as above
 *    5 samples at SYNTH_UNKNOWN, in no mapping
 *    5 samples lost
 * and a vDSO sample when @vdso_off is not 0: then the recording carries
 * this process's vDSO image, mapped at SYNTH_VDSO, and one sample at
 * SYNTH_VDSO + @vdso_off.
 */
#define SYNTH_PID	4242
#define SYNTH_UNKNOWN	0x1234
#define SYNTH_VDSO	0x7fff00000000ULL
#define SYNTH_PERIOD	1000000
#define SYNTH_KALLSYMS	"ffffffff81000000 T _stext\n"				\
			"ffffffff81001000 T do_syscall_64\n"			\
			"ffffffff81002000 t read_zero\n"				\
			"ffffffffc0000000 t ext4_foo\t[ext4]\n"
#define SYNTH_KIP0	0xffffffff81001010ULL	/* do_syscall_64 */
#define SYNTH_KIP1	0xffffffffc0000021ULL	/* ext4_foo, a return address */

int synth_standard(const char *path, const struct sym_run *run, uint64_t vdso_off);
/* This process's vDSO image: its size, 0 if none. */
size_t synth_vdso(const void **image);

/*
 * Runs cprof (user/cprof, or $CPROF) with @argv (NULL-terminated, without
 * "cprof"), stdout and stderr into malloc'ed strings (NULL to discard).
 * Returns its exit status, 128 + N if signal N killed it, or -errno.
 */
int synth_cprof(char *const argv[], char **out, char **err);
/* The same with stdout on @fd. */
int synth_cprof_fd(char *const argv[], int fd, char **err);

/* A whole file into a malloc'ed buffer; -errno. */
int synth_slurp(const char *path, unsigned char **data, size_t *len);
/* The gunzipped content of @path. */
int synth_gunzip(const char *path, unsigned char **data, size_t *len);

#endif /* CP_SYNTH_H */
