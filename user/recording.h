/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_RECORDING_H
#define CPROF_RECORDING_H

/*
 * Recording files, as Documentation/recording-format.rst describes them: a
 * header, then records that all start with struct causalprof_record_hdr. The
 * stream records of include/uapi/linux/causalprof.h are stored unchanged;
 * cprof adds its own types from CP_REC_USER up.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include <linux/causalprof.h>

#define CP_REC_MAGIC		"CPROFREC"
#define CP_REC_VERSION		2	/* written; 2 added STACK and COUNT */
#define CP_REC_VERSION_MIN	1	/* the oldest read */

struct cp_rec_file_hdr {
	char magic[8];			/* CP_REC_MAGIC, no NUL */
	uint32_t version;		/* CP_REC_VERSION_MIN to CP_REC_VERSION */
	uint32_t hdr_size;		/* of this header; records start here */
};

enum cp_rec_type {
	CP_REC_USER = 0x100,
	CP_REC_META = CP_REC_USER,	/* key=value lines of text */
	CP_REC_KALLSYMS,		/* /proc/kallsyms as text */
	CP_REC_BUILDID,			/* struct cp_rec_buildid */
	CP_REC_VDSO,			/* the vDSO's ELF image */
	CP_REC_PROGRESS,		/* struct cp_rec_progress */
	CP_REC_CAUSAL,			/* struct cp_rec_causal */
	CP_REC_PERFMAP,			/* struct cp_rec_perfmap */
};

/*
 * A progress point of a causal recording (cprof record --causal), written
 * before the first experiment that counts it. Points the module counts
 * (uprobes: functions, FILE:LINE, USDT probes) have the id their deltas
 * carry in EXPERIMENT records; points cprof counts itself (the counters of
 * programs built with coz.h, the runs of --end-to-end) have ids from
 * CP_PP_COUNTER_ID up, and their deltas are in CAUSAL records.
 */
#define CP_PP_COUNTER_ID	0x10000

enum cp_pp_source {
	CP_PP_UPROBE,			/* counted by the module */
	CP_PP_COUNTER,			/* counted by cprof */
};

struct cp_rec_progress {
	struct causalprof_record_hdr hdr;
	uint32_t id;
	uint32_t kind;			/* enum causalprof_pp_kind */
	uint32_t source;		/* enum cp_pp_source */
	uint32_t pad;
	char text[];			/* name, NUL, the spec as given, NUL */
};

/*
 * What cprof adds to the module's EXPERIMENT record with the same id,
 * written right after it: the source line it selected, the function that
 * line is in, and the deltas of the points cprof counts itself
 * (CP_PP_COUNTER), laid out as the module's own.
 */
#define CP_CAUSAL_F_FIXED_LINE		(1U << 0)	/* --fixed-line chose it */
#define CP_CAUSAL_F_FIXED_SPEEDUP	(1U << 1)	/* --fixed-speedup chose it */

struct cp_rec_causal {
	struct causalprof_record_hdr hdr;
	uint32_t exp_id;		/* causalprof_experiment.id */
	uint16_t nr_points;		/* struct causalprof_exp_point that follow */
	uint16_t flags;			/* CP_CAUSAL_F_* */
	/* struct causalprof_exp_point points[nr_points]; */
	/* char text[]: "FILE:LINE", NUL, the function's name, NUL */
};

/* The GNU build id of a mapped file, when the recording first saw it. */
struct cp_rec_buildid {
	struct causalprof_record_hdr hdr;
	uint32_t id_size;		/* bytes of build id in data[] */
	uint32_t pad;
	uint8_t data[];			/* the build id, then the path, NUL-terminated */
};

/*
 * A JIT's /tmp/perf-PID.map as it was when the recording stopped, for the
 * processes that had anonymous executable mappings ("//anon").
 */
struct cp_rec_perfmap {
	struct causalprof_record_hdr hdr;
	uint32_t pid;
	uint32_t pad;
	char text[];			/* the file, then NUL padding */
};

/*
 * Writing, to a file or to memory: every function returns 0 or the first
 * error so far, -errno.
 */
struct cp_rec_writer {
	FILE *f;			/* NULL: to mem */
	unsigned char *mem;		/* malloc()ed, cap bytes */
	size_t cap;
	uint64_t off;			/* bytes written */
	int err;			/* sticky */
};

int cp_rec_create(struct cp_rec_writer *w, const char *path);
/* A recording in memory, with room for @size bytes to start with. */
int cp_rec_create_mem(struct cp_rec_writer *w, size_t size);
/* Created and not finished yet. */
static inline bool cp_rec_writing(const struct cp_rec_writer *w)
{
	return w->f || w->mem;
}
/* One record of @type: the header, then the parts of @iov, then padding. */
int cp_rec_putv(struct cp_rec_writer *w, uint16_t type, uint16_t flags,
		const struct iovec *iov, int iovcnt);
int cp_rec_put(struct cp_rec_writer *w, uint16_t type, const void *data, size_t len);
/* Records framed already (checked with cp_rec_check()), copied as they are. */
int cp_rec_put_raw(struct cp_rec_writer *w, const void *recs, size_t len);
/*
 * Flushes and closes; returns the first error of the whole file. A
 * recording in memory is freed.
 */
int cp_rec_finish(struct cp_rec_writer *w);
/*
 * Finishes a recording in memory: 0 and its bytes in *@data (the caller's
 * to free()) and *@len, or the first error (the bytes freed).
 */
int cp_rec_finish_mem(struct cp_rec_writer *w, void **data, size_t *len);

/*
 * The record at @p, of which @avail bytes are present: 0 if it is whole
 * (*@size is its size), -ENODATA if it is cut short (or @avail is too small
 * for a header), -EBADMSG if its size is impossible.
 */
int cp_rec_check(const void *p, size_t avail, uint32_t *size);

/* Reading. The file is mapped; records stay valid until cp_rec_close(). */
struct cp_rec_reader {
	int fd;				/* -1 when reading memory */
	const unsigned char *map;
	size_t size;
	size_t off;			/* of the next record */
	size_t released;		/* pages before it may be out of memory */
	uint32_t hdr_size;
	uint32_t version;
	char err[160];			/* why reading stopped early, or failed */
};

/*
 * Returns 0, or -errno with the reason in r->err: -EINVAL when the file is
 * not a recording this cprof reads.
 */
int cp_rec_open(struct cp_rec_reader *r, const char *path);
/* The same for a recording in memory, which must stay there until closed. */
int cp_rec_open_mem(struct cp_rec_reader *r, const void *data, size_t size);
/*
 * Returns 1 and the next record in *@rec (at offset *@off when @off is not
 * NULL), 0 at the end of the file, or -ENODATA (the file is truncated) or
 * -EBADMSG (a record's size is impossible), with r->err naming the offset;
 * then every record before it was whole, and the next call fails the same.
 */
int cp_rec_next(struct cp_rec_reader *r, const struct causalprof_record_hdr **rec,
		uint64_t *off);
/* Back to the first record. */
void cp_rec_rewind(struct cp_rec_reader *r);
/*
 * The records before offset @upto will not be needed soon: their pages may
 * leave memory (they come back if read again). Keeps a long read's resident
 * size bounded.
 */
void cp_rec_release(struct cp_rec_reader *r, size_t upto);
void cp_rec_close(struct cp_rec_reader *r);

/*
 * Typed views of a record: the record if it has the type and is big enough
 * for its fields (and its variable part, its strings terminated), else NULL.
 */
const struct causalprof_sample *cp_rec_sample(const struct causalprof_record_hdr *h);
const struct causalprof_mmap *cp_rec_mmap(const struct causalprof_record_hdr *h);
const struct causalprof_comm *cp_rec_comm(const struct causalprof_record_hdr *h);
const struct causalprof_task *cp_rec_task(const struct causalprof_record_hdr *h);
const struct causalprof_lost *cp_rec_lost(const struct causalprof_record_hdr *h);
const struct causalprof_end *cp_rec_end(const struct causalprof_record_hdr *h);
uint64_t cp_rec_end_fallback(const struct causalprof_end *e);
const struct causalprof_stack *cp_rec_stack(const struct causalprof_record_hdr *h);
const struct causalprof_count *cp_rec_count(const struct causalprof_record_hdr *h);
const struct causalprof_denied *cp_rec_denied(const struct causalprof_record_hdr *h);
/* An OFF_CPU that holds its addresses; an OFF_CPU_COUNT. */
const struct causalprof_off_cpu *cp_rec_off_cpu(const struct causalprof_record_hdr *h);
const struct causalprof_off_cpu_count *cp_rec_off_cpu_count(const struct causalprof_record_hdr *h);
/* An END's off-CPU waits recorded, not recorded, and of those capped (0 before them). */
void cp_rec_end_off_cpu(const struct causalprof_end *e, uint64_t *waits, uint64_t *lost,
			uint64_t *capped);
/* An EXPERIMENT whose size holds its nr_ranges ranges and nr_points points. */
const struct causalprof_experiment *cp_rec_experiment(const struct causalprof_record_hdr *h);
const struct causalprof_exp_range *cp_exp_ranges(const struct causalprof_experiment *e);
const struct causalprof_exp_point *cp_exp_points(const struct causalprof_experiment *e);
/* Its points' timed hits (CAUSALPROF_EXP_F_SPANS), one per point; NULL without. */
const struct causalprof_exp_span *cp_exp_spans(const struct causalprof_experiment *e);
const struct causalprof_exp_acct *cp_exp_acct(const struct causalprof_experiment *e);
/* Visits counted as pauses (CAUSALPROF_EXP_F_VISITS), or NULL (recorded before them). */
const struct causalprof_exp_visits *cp_exp_visits(const struct causalprof_experiment *e);
const struct cp_rec_buildid *cp_rec_buildid(const struct causalprof_record_hdr *h);
/* A PROGRESS record whose name and spec are terminated; its name, its spec. */
const struct cp_rec_progress *cp_rec_progress(const struct causalprof_record_hdr *h);
const char *cp_progress_spec(const struct cp_rec_progress *p);
/* A CAUSAL record that holds its points and its two strings; those. */
const struct cp_rec_causal *cp_rec_causal(const struct causalprof_record_hdr *h);
const struct causalprof_exp_point *cp_causal_points(const struct cp_rec_causal *c);
const char *cp_causal_line(const struct cp_rec_causal *c);	/* "FILE:LINE" */
const char *cp_causal_func(const struct cp_rec_causal *c);
/* A PERFMAP record, its text and the text's length up to the first NUL. */
const struct cp_rec_perfmap *cp_rec_perfmap(const struct causalprof_record_hdr *h,
					    const char **text, size_t *len);
/* The body of a VDSO record and its length (padding included). */
const void *cp_rec_vdso(const struct causalprof_record_hdr *h, size_t *len);
/* The text of a META or KALLSYMS record, and its length up to the first NUL. */
const char *cp_rec_text(const struct causalprof_record_hdr *h, size_t *len);
/* The record's time (CLOCK_MONOTONIC ns) if its type has one. */
bool cp_rec_time(const struct causalprof_record_hdr *h, uint64_t *time_ns);

#endif /* CPROF_RECORDING_H */
