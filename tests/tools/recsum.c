// SPDX-License-Identifier: GPL-2.0
/*
 * recsum FILE: the totals of a cprof recording, read on its own (not with
 * cprof's reader), for tests to check cprof report's totals against:
 *
 *	event I samples N weight W      for each event index with samples
 *	                                (SAMPLE records and COUNT records' counts)
 *	lost L                          END's lost count (LOST records' sum
 *	                                without an END)
 *	experiment ID speedup S wall W inserted I hits H ranges R points P flags F
 *	    start T0 end T1             for each EXPERIMENT record, in order (one
 *	                                line; T0, T1: CLOCK_MONOTONIC ns)
 *
 *	records sample R count C stack S   how many of each there were
 *
 * Exit status 1 if the file is not a whole recording.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/causalprof.h>

int main(int argc, char *argv[])
{
	static uint64_t samples[256], weight[256];
	struct causalprof_record_hdr h;
	struct causalprof_sample s;
	struct causalprof_count c;
	struct causalprof_lost l;
	struct causalprof_end e;
	struct causalprof_experiment x;
	static char exps[1 << 16];
	size_t elen = 0;
	uint64_t lost = 0, end_lost = 0, nsample = 0, ncount = 0, nstack = 0;
	unsigned char fh[16];
	int end = 0, i;
	long off;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: recsum FILE\n");
		return 2;
	}
	if (fread(fh, 1, 16, f) != 16 || memcmp(fh, "CPROFREC", 8))
		return 1;
	fseek(f, *(uint32_t *)(fh + 12), SEEK_SET);
	while (fread(&h, sizeof(h), 1, f) == 1) {
		off = ftell(f) - sizeof(h);
		if (h.size < sizeof(h) || h.size % 8)
			return 1;
		if (h.type == CAUSALPROF_REC_SAMPLE && h.size >= sizeof(s)) {
			fseek(f, off, SEEK_SET);
			if (fread(&s, sizeof(s), 1, f) != 1)
				return 1;
			samples[s.event]++;
			weight[s.event] += s.period;
			nsample++;
		} else if (h.type == CAUSALPROF_REC_COUNT && h.size >= sizeof(c)) {
			fseek(f, off, SEEK_SET);
			if (fread(&c, sizeof(c), 1, f) != 1)
				return 1;
			samples[c.event] += c.count;
			weight[c.event] += c.weight;
			ncount++;
		} else if (h.type == CAUSALPROF_REC_STACK) {
			nstack++;
		} else if (h.type == CAUSALPROF_REC_LOST && h.size >= sizeof(l) &&
			   !(h.flags & CAUSALPROF_LOST_F_SIDEBAND)) {
			fseek(f, off, SEEK_SET);
			if (fread(&l, sizeof(l), 1, f) != 1)
				return 1;
			lost += l.lost;
		} else if (h.type == CAUSALPROF_REC_END && h.size >= 32) {
			/* 32 bytes before aggregation added fallback */
			fseek(f, off, SEEK_SET);
			if (fread(&e, 32, 1, f) != 1)
				return 1;
			end = 1;
			end_lost = e.lost;
		} else if (h.type == CAUSALPROF_REC_EXPERIMENT && h.size >= sizeof(x)) {
			fseek(f, off, SEEK_SET);
			if (fread(&x, sizeof(x), 1, f) != 1)
				return 1;
			if (h.size - sizeof(x) < x.nr_ranges * sizeof(struct causalprof_exp_range) +
						 x.nr_points * sizeof(struct causalprof_exp_point))
				return 1;
			if (elen < sizeof(exps))
				elen += snprintf(exps + elen, sizeof(exps) - elen,
						 "experiment %u speedup %u wall %llu inserted %llu hits %llu ranges %u points %u flags %u start %llu end %llu\n",
						 x.id, x.speedup, (unsigned long long)x.wall_ns,
						 (unsigned long long)x.inserted_ns,
						 (unsigned long long)x.hits, x.nr_ranges, x.nr_points,
						 x.hdr.flags, (unsigned long long)x.start_ns,
						 (unsigned long long)x.time_ns);
		}
		if (fseek(f, off + h.size, SEEK_SET))
			return 1;
	}
	for (i = 0; i < 256; i++)
		if (samples[i])
			printf("event %d samples %llu weight %llu\n", i,
			       (unsigned long long)samples[i], (unsigned long long)weight[i]);
	printf("lost %llu\n", (unsigned long long)(end ? end_lost : lost));
	fputs(exps, stdout);
	printf("records sample %llu count %llu stack %llu\n", (unsigned long long)nsample,
	       (unsigned long long)ncount, (unsigned long long)nstack);
	return 0;
}
