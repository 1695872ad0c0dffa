// SPDX-License-Identifier: GPL-2.0
/*
 * recgrow IN OUT N: a copy of recording IN with exactly N samples, for the
 * report benchmark, which compares reports of recordings of equal sample
 * counts: IN's samples beyond the Nth are left out, or IN's samples are
 * repeated after its last one (each round shifted in time by the span of
 * the recording, so the processes are as they were at its end) until there
 * are N. END moves after them, with its counts updated; KALLSYMS stays last.
 * Exit status 1 if IN is not a whole recording.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/causalprof.h>

static unsigned char *data;
static size_t size;

static int load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 16 || fseek(f, 0, SEEK_SET))
		return -1;
	size = n;
	data = malloc(size);
	if (!data || fread(data, 1, size, f) != size)
		return -1;
	fclose(f);
	return memcmp(data, "CPROFREC", 8) ? -1 : 0;
}

/* Calls @fn for each record; -1 if one is damaged. */
static int walk(int (*fn)(struct causalprof_record_hdr *h, void *arg), void *arg)
{
	size_t off = *(uint32_t *)(data + 12);
	struct causalprof_record_hdr *h;

	while (off < size) {
		h = (void *)(data + off);
		if (size - off < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 ||
		    h->size > size - off)
			return -1;
		if (fn(h, arg))
			return -1;
		off += h->size;
	}
	return 0;
}

struct state {
	FILE *out;
	uint64_t want, written, first, last;
	struct causalprof_end end;
	int pass;		/* 0: measure; 1: all but END, KALLSYMS; 2: more samples; 3: the rest */
	uint64_t shift;
};

static int put(struct state *s, const void *p, size_t len)
{
	return fwrite(p, 1, len, s->out) == len ? 0 : -1;
}

static int step(struct causalprof_record_hdr *h, void *arg)
{
	struct state *s = arg;
	struct causalprof_sample *smp = (void *)h;

	switch (s->pass) {
	case 0:
		if (h->type == CAUSALPROF_REC_SAMPLE && h->size >= sizeof(*smp)) {
			if (!s->first || smp->time_ns < s->first)
				s->first = smp->time_ns;
			if (smp->time_ns > s->last)
				s->last = smp->time_ns;
		}
		if (h->type == CAUSALPROF_REC_END && h->size >= sizeof(s->end))
			memcpy(&s->end, h, sizeof(s->end));
		return 0;
	case 1:
		if (h->type == CAUSALPROF_REC_END || h->type == 0x101)
			return 0;
		if (h->type == CAUSALPROF_REC_SAMPLE) {
			if (s->written >= s->want)
				return 0;
			s->written++;
		}
		return put(s, h, h->size);
	case 2:
		if (h->type != CAUSALPROF_REC_SAMPLE || h->size < sizeof(*smp) ||
		    s->written >= s->want)
			return 0;
		smp->time_ns += s->shift;
		s->written++;
		if (put(s, h, h->size))
			return -1;
		smp->time_ns -= s->shift;
		return 0;
	default:
		if (h->type == 0x101)
			return put(s, h, h->size);
		return 0;
	}
}

int main(int argc, char *argv[])
{
	struct state s = { 0 };
	uint64_t round = 0;

	if (argc != 4 || !(s.want = strtoull(argv[3], NULL, 10))) {
		fprintf(stderr, "usage: recgrow IN OUT N\n");
		return 2;
	}
	if (load(argv[1]) || walk(step, &s) || !s.end.hdr.size) {
		fprintf(stderr, "recgrow: %s is not a whole recording\n", argv[1]);
		return 1;
	}
	s.out = fopen(argv[2], "wb");
	if (!s.out || put(&s, data, *(uint32_t *)(data + 12)))
		return 1;
	s.pass = 1;
	if (walk(step, &s))
		return 1;
	s.pass = 2;
	while (s.written < s.want) {
		uint64_t before = s.written;

		s.shift = ++round * (s.last - s.first + 1);
		if (walk(step, &s) || s.written == before)
			return 1;	/* no sample to repeat */
	}
	s.end.hdr.size = sizeof(s.end);
	s.end.samples = s.written;
	s.end.time_ns += round * (s.last - s.first + 1);
	if (put(&s, &s.end, sizeof(s.end)))
		return 1;
	s.pass = 3;
	if (walk(step, &s) || fclose(s.out))
		return 1;
	printf("%llu samples\n", (unsigned long long)s.written);
	return 0;
}
