/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_EVERY_H
#define CPROF_EVERY_H

/*
 * cprof record --every: one session cut into intervals, each written as a
 * gzipped pprof named by its start time into a directory that keeps the
 * last N.
 *
 * Each interval is recorded into a recording of its own, in memory, which
 * starts with what a report needs from before it: the sideband of the
 * processes still alive (their mappings, thread names and forks), carried
 * here from interval to interval. That recording is then handed to the
 * thread that reports it (user/reporter.c) as 'cprof report --pprof'
 * would (user/report.c), with the symbols kept from interval to interval;
 * the profile is renamed into place, and the oldest are removed. Nothing
 * of an interval survives it but the carried sideband, which drops what
 * dead processes and replaced mappings no longer need, and the symbols
 * the reporting thread keeps (bounded).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/causalprof.h>

#include "recording.h"

#define CP_EVERY_PREFIX		"cprof-"
#define CP_EVERY_SUFFIX		".pb.gz"
/* The longest name written into the directory (a profile's temporary one), NUL included. */
#define CP_EVERY_NAME_MAX	56

/* A carried sideband record. */
struct cp_carried {
	void *rec;		/* a copy */
	uint32_t pid, tid;
	unsigned int dead;	/* the interval in which it stopped mattering + 1; 0 live */
};

struct cp_every {
	const char *prog;	/* for messages */
	const char *dir;
	uint64_t interval_ns;
	unsigned int keep;
	bool ms;		/* names carry milliseconds (a sub-second interval) */
	unsigned int index;	/* of the current interval, from 0 */
	struct cp_carried *carry;
	size_t nr, cap;
	size_t carry_bytes;	/* what the carry holds now */
	size_t stack_bytes;	/* of that, STACK records */
	size_t carry_peak;	/* the most carry_bytes was after a prune */
};

/* A finished interval: its recording, its start (real time) and length. */
struct cp_every_interval {
	void *data;		/* malloc()ed */
	size_t len;
	unsigned int index;
	int64_t start_ns;	/* since the epoch */
	uint64_t duration_ns;
	/*
	 * The beat it started on (its start, less the moment the cut took):
	 * what names it, so that names of 1 s intervals never share a second.
	 */
	int64_t name_ns;
};

/*
 * "10s", "1m", "500ms", "2h" (a bare number is seconds) into ns: 0, or
 * -EINVAL for anything else, or an interval under 100 ms or over a day.
 */
int cp_every_parse_interval(const char *s, uint64_t *ns);

void cp_every_init(struct cp_every *e, const char *prog, const char *dir, uint64_t interval_ns,
		   unsigned int keep);
void cp_every_free(struct cp_every *e);

/*
 * Keeps what the sideband record @h (MMAP, COMM, FORK, EXIT, or cprof's
 * BUILDID) means for the intervals to come. 0 or -ENOMEM.
 */
int cp_every_note(struct cp_every *e, const struct causalprof_record_hdr *h);

/* Writes the carried records into the next interval's recording. */
int cp_every_put_carry(struct cp_every *e, struct cp_rec_writer *w);

/*
 * The interval's carry is done: what died before it goes, and the next
 * interval begins (the recording thread's).
 */
void cp_every_next(struct cp_every *e);

/*
 * The finished interval @iv as DIR/cprof-START.pb.gz (written to a
 * temporary name, then renamed), named with @sym and @ks (either may be
 * NULL: cp_report()'s own, from the recording) and compressed by @gz (NULL:
 * a stream of its own); then the oldest profiles beyond the last keep are
 * removed. Touches no carry: the reporting thread's. Messages go to
 * stderr. 0, or 1 on failure.
 */
struct cp_symbolizer;
struct cp_ksyms;
struct cp_pprof_gz;
int cp_every_write(struct cp_every *e, const struct cp_every_interval *iv,
		   struct cp_symbolizer *sym, const struct cp_ksyms *ks, struct cp_pprof_gz *gz);

#endif /* CPROF_EVERY_H */
