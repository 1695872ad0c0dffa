// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report --causal (causal.h): experiments into program speedups.
 *
 * An experiment's effective duration is wall - inserted delay. For a
 * throughput point, the period p = sum(effective) / sum(visits) over a set
 * of experiments; for a latency point, the mean latency by Little's law,
 * W = sum(area * effective / wall) / sum(ends), the area (in-flight count
 * integrated over wall time, by the kernel or cprof) scaled to the
 * experiment's effective time. The baseline is every 0 % experiment,
 * whatever its line (a 0 % experiment inserts nothing); a line at speedup s
 * predicts a program speedup (p0 - ps) / p0: positive is faster, for
 * latency too (a lower latency). The interval is a 95 % bootstrap over the
 * experiments of the cell and of the baseline (fixed seed: the same report
 * every time). A line's impact is the area under its curve over line
 * speedups 0 to 100 %, through (0, 0) and its points, flat past its last.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal.h"
#include "cprof.h"
#include "strtab.h"

#define BOOTSTRAP	400
#define MAX_POINTS	64

struct cpoint {
	uint32_t id, kind;
	uint32_t name;			/* strtab */
	uint64_t visits;		/* in the experiments that count */
};

struct cexp {
	uint32_t id;
	uint32_t speedup;		/* per mille */
	uint64_t wall, eff;
	uint64_t start_ns, end_ns, hits;
	uint32_t line, func;		/* strtab; 0: no CAUSAL record */
	bool cut;			/* the session's stop ended it */
	uint32_t nr;			/* measurements in meas[] from first */
	size_t first;
};

/* One point's delta in one experiment. */
struct cmeas {
	uint32_t point;			/* index in points */
	uint64_t visits;		/* throughput: count; latency: ends */
	uint64_t arrivals;		/* latency: begins */
	double area;			/* latency: area scaled to effective time */
};

struct cline {
	uint32_t line, func;
	uint32_t *exps;			/* indexes, by speedup */
	size_t nr, cap;
	double impact;
};

struct causal {
	struct cp_strtab strs;
	struct cpoint points[MAX_POINTS];
	unsigned int nr_points;
	struct cexp *exps;
	size_t nr_exps, cap_exps;
	struct cmeas *meas;
	size_t nr_meas, cap_meas;
	uint64_t rng;
};

static int point_index(struct causal *c, uint32_t id, uint32_t kind)
{
	unsigned int i;

	for (i = 0; i < c->nr_points; i++)
		if (c->points[i].id == id)
			return i;
	if (c->nr_points == MAX_POINTS)
		return -ENOSPC;
	c->points[c->nr_points] = (struct cpoint){ .id = id, .kind = kind };
	return c->nr_points++;
}

static int add_meas(struct causal *c, struct cexp *e, const struct causalprof_exp_point *pt)
{
	int i = point_index(c, pt->id, pt->kind);

	if (i < 0)
		return i;
	if (CP_RESERVE(c->meas, c->cap_meas, c->nr_meas, 1))
		return -ENOMEM;
	c->meas[c->nr_meas++] = (struct cmeas){
		.point = i,
		.visits = pt->kind == CAUSALPROF_PP_LATENCY ? pt->ends : pt->count,
		.arrivals = pt->count,
		.area = e->wall ? (double)pt->area_ns * e->eff / e->wall : 0,
	};
	e->nr++;
	return 0;
}

static struct cexp *find_exp(struct causal *c, uint32_t id)
{
	size_t i;

	for (i = c->nr_exps; i-- > 0;)
		if (c->exps[i].id == id)
			return &c->exps[i];
	return NULL;
}

static int take(struct causal *c, const struct causalprof_record_hdr *h)
{
	const struct causalprof_experiment *e;
	const struct cp_rec_progress *p;
	const struct cp_rec_causal *k;
	struct cexp *x;
	int64_t s;
	unsigned int i;
	int ret, pi;

	if ((e = cp_rec_experiment(h))) {
		if (CP_RESERVE(c->exps, c->cap_exps, c->nr_exps, 1))
			return -ENOMEM;
		x = &c->exps[c->nr_exps++];
		*x = (struct cexp){
			.id = e->id, .speedup = e->speedup, .wall = e->wall_ns,
			.eff = e->wall_ns > e->inserted_ns ? e->wall_ns - e->inserted_ns : 0,
			.cut = h->flags & CAUSALPROF_EXP_F_SESSION_END, .first = c->nr_meas,
			.start_ns = e->start_ns, .end_ns = e->time_ns, .hits = e->hits,
		};
		for (i = 0; i < e->nr_points; i++) {
			ret = add_meas(c, x, &cp_exp_points(e)[i]);
			if (ret)
				return ret;
		}
	} else if ((k = cp_rec_causal(h))) {
		x = find_exp(c, k->exp_id);
		/* Its measurements must follow the module's: CAUSAL comes right after. */
		if (!x || x->line || x != &c->exps[c->nr_exps - 1])
			return 0;
		s = cp_strtab_add_str(&c->strs, cp_causal_line(k));
		if (s < 0)
			return s;
		x->line = s;
		s = cp_strtab_add_str(&c->strs, cp_causal_func(k));
		if (s < 0)
			return s;
		x->func = s;
		for (i = 0; i < k->nr_points; i++) {
			ret = add_meas(c, x, &cp_causal_points(k)[i]);
			if (ret)
				return ret;
		}
	} else if ((p = cp_rec_progress(h))) {
		pi = point_index(c, p->id, p->kind);
		if (pi < 0)
			return pi;
		s = cp_strtab_add_str(&c->strs, p->text);
		if (s < 0)
			return s;
		c->points[pi].name = s;
		c->points[pi].kind = p->kind;
	}
	return 0;
}

static bool counts(const struct cexp *e)
{
	return e->line && !e->cut;
}

/* The measurement of point @pi in experiment @e, or NULL. */
static const struct cmeas *meas_of(const struct causal *c, const struct cexp *e, unsigned int pi)
{
	size_t i;

	for (i = e->first; i < e->first + e->nr; i++)
		if (c->meas[i].point == pi)
			return &c->meas[i];
	return NULL;
}

struct sums {
	double eff, visits, area;
};

static void sum_add(struct sums *s, const struct causal *c, const struct cexp *e, unsigned int pi)
{
	const struct cmeas *m = meas_of(c, e, pi);

	s->eff += e->eff;
	if (m) {
		s->visits += m->visits;
		s->area += m->area;
	}
}

/* Time per visit (throughput) or mean latency; NAN without visits. */
static double period(const struct sums *s, uint32_t kind)
{
	if (!s->visits)
		return NAN;
	return kind == CAUSALPROF_PP_LATENCY ? s->area / s->visits : s->eff / s->visits;
}

static uint64_t rnd(struct causal *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Experiments of @line (0: the baseline, every line) at @speedup that count. */
static size_t select_exps(const struct causal *c, uint32_t line, uint32_t speedup, uint32_t *out)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr_exps; i++)
		if (counts(&c->exps[i]) && c->exps[i].speedup == speedup &&
		    (!line || c->exps[i].line == line))
			out[n++] = i;
	return n;
}

static double speedup_of(const struct causal *c, unsigned int pi, const uint32_t *base,
			 size_t nb, const uint32_t *cell, size_t nc, struct causal *rc)
{
	struct sums s0 = { 0 }, s = { 0 };
	uint32_t kind = c->points[pi].kind;
	size_t i;

	for (i = 0; i < nb; i++)
		sum_add(&s0, c, &c->exps[base[rc ? rnd(rc) % nb : i]], pi);
	for (i = 0; i < nc; i++)
		sum_add(&s, c, &c->exps[cell[rc ? rnd(rc) % nc : i]], pi);
	return (period(&s0, kind) - period(&s, kind)) / period(&s0, kind);
}

/* One line's rows for point @pi, and its impact; prints them when @out. */
static double line_rows(struct causal *c, unsigned int pi, uint32_t line, const uint32_t *base,
			size_t nb, uint32_t *cell, FILE *out)
{
	double boot[BOOTSTRAP], y, prev_x = 0, prev_y = 0, area = 0;
	uint32_t sp;
	size_t n, i;

	for (sp = 50; sp <= 1000; sp += 50) {
		n = select_exps(c, line, sp, cell);
		if (!n)
			continue;
		y = speedup_of(c, pi, base, nb, cell, n, NULL);
		if (isnan(y))
			continue;
		area += (sp / 1000.0 - prev_x) * (y + prev_y) / 2;
		prev_x = sp / 1000.0;
		prev_y = y;
		if (!out)
			continue;
		fprintf(out, "            %3u %%        %+6.1f %%", sp / 10, 100 * y);
		if (n >= 2 && nb >= 2) {
			c->rng = 0x853c49e6748fea9bULL ^ (line * 1000ULL + sp);
			for (i = 0; i < BOOTSTRAP; i++)
				boot[i] = speedup_of(c, pi, base, nb, cell, n, c);
			qsort(boot, BOOTSTRAP, sizeof(boot[0]), cmp_double);
			fprintf(out, "   [%+6.1f, %+6.1f]", 100 * boot[BOOTSTRAP / 40],
				100 * boot[BOOTSTRAP - 1 - BOOTSTRAP / 40]);
		} else {
			fprintf(out, "%19s", "");
		}
		fprintf(out, "   %zu\n", n);
	}
	return area + (1 - prev_x) * prev_y;
}

static int cmp_impact(const void *a, const void *b)
{
	const struct cline *x = a, *y = b;

	return x->impact < y->impact ? 1 : x->impact > y->impact ? -1 : 0;
}

static void report_point(struct causal *c, unsigned int pi, unsigned int top, uint32_t *base,
			 uint32_t *cell, FILE *out)
{
	const struct cpoint *p = &c->points[pi];
	struct cline lines[256];
	struct sums s0 = { 0 };
	size_t nb, nl = 0, i, j;
	uint32_t visits_none = 0, n_exps = 0;

	nb = select_exps(c, 0, 0, base);
	for (i = 0; i < nb; i++)
		sum_add(&s0, c, &c->exps[base[i]], pi);
	for (i = 0; i < c->nr_exps; i++) {
		const struct cmeas *m;

		if (!counts(&c->exps[i]))
			continue;
		n_exps++;
		m = meas_of(c, &c->exps[i], pi);
		if (!m || !m->visits)
			visits_none++;
	}
	fprintf(out, "\n# progress point %s (%s): %" PRIu64 " visits in %u experiments",
		cp_str(&c->strs, p->name), p->kind == CAUSALPROF_PP_LATENCY ? "latency" :
		"throughput", p->visits, n_exps);
	if (!isnan(period(&s0, p->kind)))
		fprintf(out, "; baseline %.3f ms %s (%zu experiments at 0 %%)\n",
			period(&s0, p->kind) / 1e6,
			p->kind == CAUSALPROF_PP_LATENCY ? "mean latency" : "per visit", nb);
	else
		fprintf(out, "; no baseline yet (no visit in a 0 %% experiment)\n");
	if (n_exps && visits_none * 5 > n_exps)
		fprintf(out, "# warning: no visit in %u of %u experiments: make the program run longer, or choose a point it passes more often\n",
			visits_none, n_exps);
	if (isnan(period(&s0, p->kind)))
		return;

	for (i = 0; i < c->nr_exps && nl < ARRAY_SIZE(lines); i++) {
		if (!counts(&c->exps[i]))
			continue;
		for (j = 0; j < nl && lines[j].line != c->exps[i].line; j++)
			;
		if (j == nl)
			lines[nl++] = (struct cline){ .line = c->exps[i].line,
						      .func = c->exps[i].func };
	}
	for (i = 0; i < nl; i++)
		lines[i].impact = line_rows(c, pi, lines[i].line, base, nb, cell, NULL);
	qsort(lines, nl, sizeof(lines[0]), cmp_impact);
	fprintf(out, "#\n#  impact   line\n");
	for (i = 0; i < nl && i < top; i++) {
		const char *func = cp_str(&c->strs, lines[i].func);

		fprintf(out, "  %+6.1f %%  %s%s%s%s\n", 100 * lines[i].impact,
			cp_str(&c->strs, lines[i].line), *func ? " (" : "", func, *func ? ")" : "");
		fprintf(out, "      line speedup   program speedup   95%% interval       experiments\n");
		line_rows(c, pi, lines[i].line, base, nb, cell, out);
	}
	if (nl > top)
		fprintf(out, "# %zu more lines (--top N shows more)\n", nl - top);
}

/* A name in JSON: quotes, backslashes and control characters escaped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * Coz's profile format, for its viewer: the experiments that count, each
 * with its points. duration is the effective duration; a latency point's
 * difference is its mean in-flight count over the experiment (Coz writes
 * the count at the experiment's end; its viewer divides by the arrival
 * rate either way: Little's law).
 */
static void write_coz(const struct causal *c, FILE *f, bool json)
{
	uint64_t first = UINT64_MAX, last = 0;
	size_t j;
	unsigned int i;

	for (j = 0; j < c->nr_exps; j++) {
		first = c->exps[j].start_ns < first ? c->exps[j].start_ns : first;
		last = c->exps[j].end_ns > last ? c->exps[j].end_ns : last;
	}
	if (json)
		fprintf(f, "{\"type\":\"startup\",\"time\":%" PRIu64 "}\n", first);
	else
		fprintf(f, "startup\ttime=%" PRIu64 "\n", first);
	for (j = 0; j < c->nr_exps; j++) {
		const struct cexp *e = &c->exps[j];

		if (!counts(e))
			continue;
		if (json) {
			fputs("{\"type\":\"experiment\",\"selected\":", f);
			json_str(f, cp_str(&c->strs, e->line));
			fprintf(f, ",\"speedup\":%.2f,\"duration\":%" PRIu64 ",\"selected_samples\":%" PRIu64 "}\n",
				e->speedup / 1000.0, e->eff, e->hits);
		} else {
			fprintf(f, "experiment\tselected=%s\tspeedup=%.2f\tduration=%" PRIu64 "\tselected-samples=%" PRIu64 "\n",
				cp_str(&c->strs, e->line), e->speedup / 1000.0, e->eff, e->hits);
		}
		for (i = 0; i < e->nr; i++) {
			const struct cmeas *m = &c->meas[e->first + i];
			const struct cpoint *p = &c->points[m->point];
			const char *name = cp_str(&c->strs, p->name);
			uint64_t diff = e->eff ? (uint64_t)(m->area / e->eff + 0.5) : 0;

			if (p->kind != CAUSALPROF_PP_LATENCY && json) {
				fputs("{\"type\":\"throughput_point\",\"name\":", f);
				json_str(f, name);
				fprintf(f, ",\"delta\":%" PRIu64 "}\n", m->visits);
			} else if (p->kind != CAUSALPROF_PP_LATENCY) {
				fprintf(f, "throughput-point\tname=%s\tdelta=%" PRIu64 "\n", name,
					m->visits);
			} else if (json) {
				fputs("{\"type\":\"latency_point\",\"name\":", f);
				json_str(f, name);
				fprintf(f, ",\"arrivals\":%" PRIu64 ",\"departures\":%" PRIu64 ",\"difference\":%" PRIu64 "}\n",
					m->arrivals, m->visits, diff);
			} else {
				fprintf(f, "latency-point\tname=%s\tarrivals=%" PRIu64 "\tdepartures=%" PRIu64 "\tdifference=%" PRIu64 "\n",
					name, m->arrivals, m->visits, diff);
			}
		}
	}
	if (json)
		fprintf(f, "{\"type\":\"runtime\",\"time\":%" PRIu64 "}\n", last - first);
	else
		fprintf(f, "runtime\ttime=%" PRIu64 "\n", last - first);
}

/* Writes Coz's format to @path; 0 or 1 with the reason on @err. */
static int coz_file(const struct causal *c, const char *path, bool json, FILE *err)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(err, "cprof report: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	write_coz(c, f, json);
	if (ferror(f) | fclose(f)) {
		fprintf(err, "cprof report: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int cp_causal_report(struct cp_rec_reader *rd, const struct cp_causal_opts *o, FILE *out,
		     FILE *err)
{
	const struct causalprof_record_hdr *h;
	struct causal c = { 0 };
	uint32_t *base = NULL, *cell = NULL;
	unsigned int i, used = 0, cut = 0;
	size_t j;
	int ret;

	ret = cp_strtab_init(&c.strs);
	if (ret)
		return ret;
	while ((ret = cp_rec_next(rd, &h, NULL)) > 0) {
		ret = take(&c, h);
		if (ret)
			goto out;
	}
	if (ret < 0) {
		fprintf(err, "cprof report: %s\n", rd->err);
		ret = 2;	/* damage, as for the other views */
		goto out;
	}
	for (j = 0; j < c.nr_exps; j++) {
		const struct cexp *e = &c.exps[j];

		used += counts(e);
		cut += e->line && e->cut;
		for (i = 0; counts(e) && i < e->nr; i++)
			c.points[c.meas[e->first + i].point].visits += c.meas[e->first + i].visits;
	}
	if (!used) {
		fprintf(err, "cprof report: no causal experiments in %s: record with cprof record --causal\n",
			o->name);
		ret = 1;
		goto out;
	}
	if ((o->coz && coz_file(&c, o->coz, false, err)) ||
	    (o->coz_jsonl && coz_file(&c, o->coz_jsonl, true, err))) {
		ret = 1;
		goto out;
	}
	if (!o->table) {
		ret = 0;
		goto out;
	}
	base = calloc(c.nr_exps, sizeof(*base));
	cell = calloc(c.nr_exps, sizeof(*cell));
	if (!base || !cell) {
		ret = -ENOMEM;
		goto out;
	}
	fprintf(out, "# causal profile of %s: %u experiments", o->name, used);
	if (cut)
		fprintf(out, " (and %u cut short by the end, left out)", cut);
	fprintf(out, "\n# program speedup if the line were that much faster; impact: the mean over 0-100 %%\n");
	for (i = 0; i < c.nr_points; i++)
		report_point(&c, i, o->top, base, cell, out);
	ret = 0;
out:
	free(base);
	free(cell);
	free(c.exps);
	free(c.meas);
	cp_strtab_free(&c.strs);
	return ret;
}
