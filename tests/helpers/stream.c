// SPDX-License-Identifier: GPL-2.0
/*
 * The records of a session as its owner receives them: each batch
 * checked and copied, and what a complete stream must add up to.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "internal.h"

void cp_stream_free(struct cp_stream *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* A protocol error: counted, and the first few are told. */
void cp_stream_complain(struct cp_stream *s, const char *fmt, ...)
{
	va_list ap;

	if (s->bad++ >= 5)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "# stream: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* Does a record of a known type hold its fields, and its strings their NUL? */
static bool record_ok(struct cp_stream *s, const struct causalprof_record_hdr *h)
{
	const struct causalprof_sample *smp = (const void *)h;
	const struct causalprof_mmap *mm = (const void *)h;
	const struct causalprof_comm *comm = (const void *)h;
	const struct causalprof_experiment *exp = (const void *)h;
	size_t min;

	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
		if (h->size < sizeof(*smp))
			break;
		if (smp->nr_kernel > CAUSALPROF_MAX_STACK ||
		    smp->nr_user > CAUSALPROF_MAX_STACK) {
			cp_stream_complain(s, "sample with %u kernel and %u user frames",
					smp->nr_kernel, smp->nr_user);
			return false;
		}
		min = sizeof(*smp) + sizeof(smp->ips[0]) * (smp->nr_kernel + smp->nr_user);
		if (h->size < min)
			break;
		return true;
	case CAUSALPROF_REC_MMAP:
		if (h->size <= sizeof(*mm))
			break;
		if (!memchr(mm->path, '\0', h->size - sizeof(*mm))) {
			cp_stream_complain(s, "mmap record without the path's NUL");
			return false;
		}
		return true;
	case CAUSALPROF_REC_COMM:
		if (h->size < sizeof(*comm))
			break;
		if (!memchr(comm->comm, '\0', sizeof(comm->comm))) {
			cp_stream_complain(s, "comm record without the name's NUL");
			return false;
		}
		return true;
	case CAUSALPROF_REC_FORK:
	case CAUSALPROF_REC_EXIT:
		min = sizeof(struct causalprof_task);
		if (h->size < min)
			break;
		return true;
	case CAUSALPROF_REC_LOST:
		if (h->size < sizeof(struct causalprof_lost))
			break;
		return true;
	case CAUSALPROF_REC_END:
		if (h->size < sizeof(struct causalprof_end))
			break;
		return true;
	case CAUSALPROF_REC_STACK:
		if (h->size < sizeof(struct causalprof_stack) ||
		    (h->size - sizeof(struct causalprof_stack)) / 8 <
		    (size_t)((const struct causalprof_stack *)h)->nr_kernel +
		    ((const struct causalprof_stack *)h)->nr_user)
			break;
		return true;
	case CAUSALPROF_REC_COUNT:
		if (h->size < sizeof(struct causalprof_count))
			break;
		return true;
	case CAUSALPROF_REC_OFF_CPU:
		if (h->size < sizeof(struct causalprof_off_cpu) ||
		    (h->size - sizeof(struct causalprof_off_cpu)) / 8 <
		    (size_t)((const struct causalprof_off_cpu *)h)->nr_kernel +
		    ((const struct causalprof_off_cpu *)h)->nr_user)
			break;
		return true;
	case CAUSALPROF_REC_OFF_CPU_COUNT:
		if (h->size < sizeof(struct causalprof_off_cpu_count))
			break;
		return true;
	case CAUSALPROF_REC_EXPERIMENT:
		if (h->size < sizeof(*exp))
			break;
		min = sizeof(*exp) + exp->nr_ranges * sizeof(struct causalprof_exp_range) +
		      exp->nr_points * sizeof(struct causalprof_exp_point);
		if (h->flags & CAUSALPROF_EXP_F_SPANS)
			min += exp->nr_points * sizeof(struct causalprof_exp_span);
		if (h->size < min)
			break;
		return true;
	default:
		return true;	/* readers skip types they do not know */
	}
	cp_stream_complain(s, "record of type %u too short: %u bytes", h->type, h->size);
	return false;
}

static int stream_append(struct cp_stream *s, const void *rec, size_t size)
{
	size_t cap;
	char *buf;

	if (s->len + size > s->cap) {
		cap = s->cap ? s->cap : 1 << 20;
		while (cap < s->len + size)
			cap *= 2;
		buf = realloc(s->buf, cap);
		if (!buf)
			return -ENOMEM;
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, rec, size);
	s->len += size;
	return 0;
}

/* One batch of records, as a CAUSALPROF_A_RECORDS attribute carries it. */
int cp_stream_feed(struct cp_stream *s, uint64_t session_id, const void *recs, size_t len)
{
	const struct causalprof_record_hdr *h;
	struct causalprof_record_hdr hdr;
	const char *p = recs;
	size_t off = 0;
	int ret;

	s->messages++;
	if (!s->first_id)
		s->first_id = session_id;
	if (session_id != (s->session_id ? s->session_id : s->first_id)) {
		s->foreign++;
		return 0;
	}
	while (off < len) {
		if (len - off < sizeof(hdr)) {
			cp_stream_complain(s, "%zu bytes after the last record", len - off);
			break;
		}
		memcpy(&hdr, p + off, sizeof(hdr));	/* the attribute is 4-byte aligned */
		if (hdr.size < sizeof(hdr) || hdr.size % 8 || hdr.size > len - off) {
			cp_stream_complain(s, "record of type %u with size %u at %zu of %zu",
					hdr.type, hdr.size, off, len);
			break;
		}
		ret = stream_append(s, p + off, hdr.size);
		if (ret)
			return ret;
		off += hdr.size;
		h = (const void *)(s->buf + s->len - hdr.size);
		if (!record_ok(s, h)) {
			s->len -= hdr.size;
			continue;
		}
		s->records++;
		if (s->ended)
			s->after_end++;
		switch (h->type) {
		case CAUSALPROF_REC_SAMPLE:
			s->samples++;
			if (s->count_samples_only)
				s->len -= hdr.size;
			break;
		case CAUSALPROF_REC_COUNT:
			s->samples += cp_rec_count(h)->count;
			s->counted += cp_rec_count(h)->count;
			break;
		case CAUSALPROF_REC_OFF_CPU:
			s->waits++;
			break;
		case CAUSALPROF_REC_OFF_CPU_COUNT:
			s->waits += cp_rec_off_cpu_count(h)->count;
			break;
		case CAUSALPROF_REC_LOST:
			if (h->flags & CAUSALPROF_LOST_F_SIDEBAND)
				s->sideband_lost += cp_rec_lost(h)->lost;
			else if (h->flags & CAUSALPROF_LOST_F_OFF_CPU)
				s->off_cpu_lost += cp_rec_lost(h)->lost;
			else
				s->lost += cp_rec_lost(h)->lost;
			break;
		case CAUSALPROF_REC_END:
			s->ended = true;
			memcpy(&s->end, h, sizeof(s->end));
			break;
		case CAUSALPROF_REC_EXPERIMENT:
			s->experiments++;
			break;
		}
	}
	return 0;
}

/*
 * What every complete stream promises: well-formed records of one session,
 * an END last, and totals in the END that match what came. NULL if so,
 * else what is wrong.
 */
const char *cp_stream_problem(const struct cp_stream *s)
{
	static char why[160];

	if (s->bad)
		snprintf(why, sizeof(why), "%zu malformed records or messages", s->bad);
	else if (s->foreign)
		snprintf(why, sizeof(why), "%zu batches of another session", s->foreign);
	else if (!s->ended)
		snprintf(why, sizeof(why), "no END record (%zu records came)", s->records);
	else if (s->after_end)
		snprintf(why, sizeof(why), "%zu records after the END record", s->after_end);
	else if (s->end.samples != s->samples)
		snprintf(why, sizeof(why), "END counts %llu samples, %zu came",
			 (unsigned long long)s->end.samples, s->samples);
	else if (s->end.lost != s->lost)
		snprintf(why, sizeof(why), "END counts %llu lost, the LOST records %llu",
			 (unsigned long long)s->end.lost, (unsigned long long)s->lost);
	else if (s->end.off_cpu != s->waits)
		snprintf(why, sizeof(why), "END counts %llu off-CPU waits, %zu came",
			 (unsigned long long)s->end.off_cpu, s->waits);
	else if (s->end.off_cpu_lost != s->off_cpu_lost)
		snprintf(why, sizeof(why), "END counts %llu off-CPU waits lost, the LOST records %llu",
			 (unsigned long long)s->end.off_cpu_lost,
			 (unsigned long long)s->off_cpu_lost);
	else
		return NULL;
	return why;
}

const struct causalprof_record_hdr *cp_stream_next(const struct cp_stream *s, size_t *off)
{
	const struct causalprof_record_hdr *h;

	if (*off >= s->len)
		return NULL;
	h = (const void *)(s->buf + *off);
	*off += h->size;
	return h;
}

const struct causalprof_experiment *cp_stream_experiment(const struct cp_stream *s, size_t n)
{
	const struct causalprof_record_hdr *h;
	size_t off;

	cp_stream_for_each(s, h, off)
		if (h->type == CAUSALPROF_REC_EXPERIMENT && !n--)
			return cp_rec_exp(h);
	return NULL;
}
