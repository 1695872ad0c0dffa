// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report --causal (causal.h): experiments into program speedups.
 *
 * An experiment's effective duration is wall - inserted delay. For a
 * throughput point, the period p = sum(effective) / sum(visits) over a set
 * of experiments; for a latency point, the mean latency by Little's law,
 * W = sum(area * effective / wall) / sum(ends), the area (in-flight count
 * integrated over wall time, by the kernel or cprof) scaled to the
 * experiment's effective time. The baseline is the 0 % experiments, whatever
 * their line (a 0 % experiment inserts nothing); a line at speedup s
 * predicts a program speedup (p0 - ps) / p0: positive is faster, for
 * latency too (a lower latency). p0 is matched in time: each experiment of
 * the cell is set against the LOCAL_BASE 0 % experiments nearest to it, so
 * that a machine whose speed drifts while the program runs (other load, a
 * VM's host) does not bias the lines measured early against those measured
 * late: p0 = sum(visits * p0_local) / sum(visits) over the cell. The
 * interval is a 95 % bootstrap over the experiments of the cell and of the
 * baseline (fixed seed: the same report every time). A line's impact is the area under its curve over line
 * speedups 0 to 100 %, through (0, 0) and its points, flat past its last.
 *
 * Spans: where the module timed a throughput point's hits in every
 * experiment (CAUSALPROF_EXP_F_SPANS: its first and last hit, and the delay
 * inserted between them), an experiment's measurement is the span rather
 * than the window: effective time last - first - inserted between them,
 * over hits - 1 visits. A window of n visits has one visit more or less
 * depending on where it falls (+-1/n: 20 % at Coz's 5 visits per
 * experiment); a span does not. Used when the spans hold at least half the
 * point's visits (experiments of two visits or more), and when the visits
 * do not come in bursts: a span from the first hit of one burst to the
 * last of another covers fewer gaps between bursts than its visits
 * suggest, and more so the fewer bursts an experiment holds (the
 * synthetic bursts of report_input_test: +42 % for a truth of 25). Over
 * all the experiments, the spans' period must be at least SPAN_MIN_RATIO
 * of the windows' (the ground truths, steady: 0.996 to 1.015, on one
 * vCPU 2026-11-28). Otherwise, and
 * for the points cprof counts (coz.h counters, --end-to-end runs), windows
 * (coz.h's begin and end just after a visit: user/experiments.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal.h"
#include "cprof.h"
#include "pprof.h"
#include "profile.h"
#include "strtab.h"
#include "symbolize.h"

#define BOOTSTRAP	400
#define MAX_POINTS	64
#define LOCAL_BASE	10	/* 0 % experiments an experiment is set against */
#define SPAN_MIN_RATIO	0.9	/* spans' period against windows', at least */

struct cpoint {
	uint32_t id, kind;
	uint32_t name;			/* strtab */
	uint64_t visits;		/* in the experiments that count */
	int alias;			/* another site of this point's, or -1 */
	bool unspanned;			/* some measurement has no span */
	bool spans;			/* measured by spans (see above) */
	double span_ratio;		/* spans' period / windows', over all; NAN: none */
};

struct cexp {
	uint32_t id;
	uint32_t speedup;		/* per mille */
	uint64_t wall, eff;
	uint64_t start_ns, end_ns, hits;
	uint64_t inserted, paid, payments;
	struct causalprof_exp_acct acct;
	bool has_acct;			/* recorded with CAUSALPROF_EXP_F_ACCT */
	struct causalprof_exp_visits visits;	/* zero without CAUSALPROF_EXP_F_VISITS */
	uint32_t line, func;		/* strtab; 0: no CAUSAL record */
	uint32_t sysfunc;		/* strtab: func as recorded (mangled) */
	bool cut;			/* the session's stop or the timeout ended it */
	uint32_t nr;			/* measurements in meas[] from first */
	size_t first;
};

/* One point's delta in one experiment. */
struct cmeas {
	uint32_t point;			/* index in points */
	uint64_t visits;		/* throughput: count; latency: ends */
	uint64_t arrivals;		/* latency: begins */
	double area;			/* latency: area scaled to effective time */
	double span_eff;		/* throughput, spans: effective ns first to last hit */
	uint64_t span_visits;		/* its hits - 1 */
};

struct cline {
	uint32_t line, func, sysfunc;
	uint32_t *exps;			/* indexes, by speedup */
	size_t nr, cap;
	double impact;
};

struct causal {
	struct cp_profile *prof;	/* --pprof: the lines' impacts */
	struct cp_strtab strs;
	struct cp_symbolizer *sym;	/* its demangler */
	struct cpoint points[MAX_POINTS];
	unsigned int nr_points;
	struct cexp *exps;
	size_t nr_exps, cap_exps;
	struct cmeas *meas;
	size_t nr_meas, cap_meas;
	uint64_t rng;
	double *local;			/* per experiment: its baseline (one point's) */
};

static int point_index(struct causal *c, uint32_t id, uint32_t kind)
{
	unsigned int i;

	for (i = 0; i < c->nr_points; i++)
		if (c->points[i].id == id)
			return i;
	if (c->nr_points == MAX_POINTS)
		return -ENOSPC;
	c->points[c->nr_points] = (struct cpoint){ .id = id, .kind = kind, .alias = -1 };
	return c->nr_points++;
}

/*
 * A throughput point whose spec has several sites (a USDT probe inlined or
 * unrolled, a line with several addresses) is several uprobes, each with
 * its id and the same name: their visits add up into the first's.
 */
static void alias_sites(struct causal *c, unsigned int pi)
{
	struct cpoint *p = &c->points[pi];
	unsigned int i;

	if (p->kind != CAUSALPROF_PP_THROUGHPUT)
		return;
	for (i = 0; i < pi; i++)
		if (c->points[i].alias < 0 && c->points[i].kind == p->kind &&
		    !strcmp(cp_str(&c->strs, c->points[i].name), cp_str(&c->strs, p->name))) {
			p->alias = i;
			return;
		}
}

static int add_meas(struct causal *c, struct cexp *e, const struct causalprof_exp_point *pt,
		    const struct causalprof_exp_span *sp)
{
	int i = point_index(c, pt->id, pt->kind);
	size_t j;

	if (i < 0)
		return i;
	if (!sp || pt->kind != CAUSALPROF_PP_THROUGHPUT)
		c->points[i].unspanned = true;
	if (c->points[i].alias >= 0) {
		/* Two sites' spans overlap: no span for the point. */
		i = c->points[i].alias;
		c->points[i].unspanned = true;
		for (j = e->first; j < e->first + e->nr; j++)
			if (c->meas[j].point == (uint32_t)i) {
				c->meas[j].visits += pt->count;
				c->meas[j].arrivals += pt->count;
				return 0;
			}
	}
	if (CP_RESERVE(c->meas, c->cap_meas, c->nr_meas, 1))
		return -ENOMEM;
	c->meas[c->nr_meas++] = (struct cmeas){
		.point = i,
		.visits = pt->kind == CAUSALPROF_PP_LATENCY ? pt->ends : pt->count,
		.arrivals = pt->count,
		.area = e->wall ? (double)pt->area_ns * e->eff / e->wall : 0,
	};
	if (sp && sp->hits >= 2 && sp->last_ns - sp->first_ns > sp->inserted_ns) {
		c->meas[c->nr_meas - 1].span_eff = sp->last_ns - sp->first_ns - sp->inserted_ns;
		c->meas[c->nr_meas - 1].span_visits = sp->hits - 1;
	}
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
	const struct causalprof_exp_span *sp;
	const struct causalprof_exp_acct *ac;
	const struct causalprof_exp_visits *vi;
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
			.cut = h->flags & (CAUSALPROF_EXP_F_SESSION_END | CAUSALPROF_EXP_F_TIMEOUT), .first = c->nr_meas,
			.start_ns = e->start_ns, .end_ns = e->time_ns, .hits = e->hits,
			.inserted = e->inserted_ns, .paid = e->paid_ns, .payments = e->payments,
		};
		ac = cp_exp_acct(e);
		if (ac) {
			x->acct = *ac;
			x->has_acct = true;
		}
		vi = cp_exp_visits(e);
		if (vi)
			x->visits = *vi;
		sp = cp_exp_spans(e);
		for (i = 0; i < e->nr_points; i++) {
			ret = add_meas(c, x, &cp_exp_points(e)[i], sp ? &sp[i] : NULL);
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
		/* Recorded as the symbol table has it; shown demangled. */
		s = cp_strtab_add_str(&c->strs, cp_causal_func(k));
		if (s < 0)
			return s;
		x->sysfunc = s;
		s = cp_strtab_add_str(&c->strs, cp_sym_demangle(c->sym, cp_causal_func(k)));
		if (s < 0)
			return s;
		x->func = s;
		for (i = 0; i < k->nr_points; i++) {
			ret = add_meas(c, x, &cp_causal_points(k)[i], NULL);
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
		alias_sites(c, pi);
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

/* Effective time and visits of @m (NULL: none) in @e, by span or window. */
static double meas_eff(const struct causal *c, unsigned int pi, const struct cexp *e,
		       const struct cmeas *m)
{
	if (c->points[pi].spans)
		return m ? m->span_eff : 0;
	return e->eff;
}

static uint64_t meas_visits(const struct causal *c, unsigned int pi, const struct cmeas *m)
{
	if (!m)
		return 0;
	return c->points[pi].spans ? m->span_visits : m->visits;
}

static void sum_add(struct sums *s, const struct causal *c, const struct cexp *e, unsigned int pi)
{
	const struct cmeas *m = meas_of(c, e, pi);

	s->eff += meas_eff(c, pi, e, m);
	s->visits += meas_visits(c, pi, m);
	if (m)
		s->area += m->area;
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

static uint64_t mid_ns(const struct cexp *e)
{
	return e->start_ns / 2 + e->end_ns / 2;
}

/*
 * c->local[e] for every experiment that counts: point @pi's period over the
 * LOCAL_BASE 0 % experiments (@base, in time order) nearest to it in time;
 * NAN where those had no visit.
 */
static void local_baselines(struct causal *c, unsigned int pi, const uint32_t *base, size_t nb)
{
	uint32_t kind = c->points[pi].kind;
	size_t i, lo, hi, k, at = 0;
	struct sums s;
	uint64_t t;

	for (i = 0; i < c->nr_exps; i++) {
		c->local[i] = NAN;
		if (!counts(&c->exps[i]) || !nb)
			continue;
		t = mid_ns(&c->exps[i]);
		while (at < nb && mid_ns(&c->exps[base[at]]) < t)
			at++;
		/* [lo, hi): grown toward the nearer side */
		lo = hi = at;
		for (k = 0; k < LOCAL_BASE && (lo > 0 || hi < nb); k++) {
			if (hi == nb || (lo > 0 && t - mid_ns(&c->exps[base[lo - 1]]) <
					 mid_ns(&c->exps[base[hi]]) - t))
				lo--;
			else
				hi++;
		}
		s = (struct sums){ 0 };
		for (k = lo; k < hi; k++)
			sum_add(&s, c, &c->exps[base[k]], pi);
		c->local[i] = period(&s, kind);
	}
}

/*
 * The program speedup of the experiments @cell against their baselines
 * (c->local); with @rc, of a bootstrap resample of the cell, its baselines
 * scaled as a resample of @base moves the pooled baseline.
 */
static double speedup_of(const struct causal *c, unsigned int pi, const uint32_t *base,
			 size_t nb, const uint32_t *cell, size_t nc, struct causal *rc)
{
	uint32_t kind = c->points[pi].kind;
	double num = 0, den = 0, scale = 1;
	struct sums s0 = { 0 }, r0 = { 0 };
	const struct cmeas *m;
	const struct cexp *e;
	size_t i;
	uint32_t x;

	if (rc) {
		for (i = 0; i < nb; i++) {
			sum_add(&s0, c, &c->exps[base[i]], pi);
			sum_add(&r0, c, &c->exps[base[rnd(rc) % nb]], pi);
		}
		scale = period(&r0, kind) / period(&s0, kind);
	}
	for (i = 0; i < nc; i++) {
		x = cell[rc ? rnd(rc) % nc : i];
		e = &c->exps[x];
		m = meas_of(c, e, pi);
		if (isnan(c->local[x]))
			continue;
		num += kind == CAUSALPROF_PP_LATENCY ? (m ? m->area : 0) : meas_eff(c, pi, e, m);
		den += meas_visits(c, pi, m) * c->local[x] * scale;
	}
	return den > 0 ? 1 - num / den : NAN;
}

/* A row of a line's curve: at line speedup sp (per mille), program speedup y. */
struct crow {
	uint32_t sp;
	double y, lo, hi;		/* lo, hi: the interval, when n >= 2 */
	size_t n;
	bool thin;			/* not an answer yet: see row_thin() */
};

/*
 * A row is no answer yet with fewer than MIN_ROW_EXPS experiments or an
 * interval wider than MAX_ROW_WIDTH: a row of one or two experiments on a
 * TCG vCPU can read +35 % for a line whose truth is 10 % (Coz's toy, a
 * 16 s run). The table marks it '?' and leaves it out of the line's
 * impact; a longer run gives it more experiments.
 */
#define MIN_ROW_EXPS	3
#define MAX_ROW_WIDTH	0.30

static bool row_thin(const struct crow *r)
{
	return r->n < MIN_ROW_EXPS || isnan(r->lo) || r->hi - r->lo > MAX_ROW_WIDTH;
}

#define MAX_ROWS	20
#define CP_MAX_CHARTS	9	/* per progress point */

/*
 * The rows of @line for point @pi, into @rows, with their intervals; their
 * number. *@impact: the area under the curve of the rows that are an
 * answer (row_thin()), 0 when none is.
 */
static size_t line_curve(struct causal *c, unsigned int pi, uint32_t line, const uint32_t *base,
			 size_t nb, uint32_t *cell, struct crow *rows, double *impact)
{
	double boot[BOOTSTRAP], y, prev_x = 0, prev_y = 0, area = 0;
	size_t n, i, nr = 0;
	uint32_t sp;

	for (sp = 50; sp <= 1000; sp += 50) {
		n = select_exps(c, line, sp, cell);
		if (!n)
			continue;
		y = speedup_of(c, pi, base, nb, cell, n, NULL);
		if (isnan(y))
			continue;
		rows[nr] = (struct crow){ .sp = sp, .y = y, .lo = NAN, .hi = NAN, .n = n };
		if (n >= MIN_ROW_EXPS && nb >= 2) {
			c->rng = 0x853c49e6748fea9bULL ^ (line * 1000ULL + sp);
			for (i = 0; i < BOOTSTRAP; i++)
				boot[i] = speedup_of(c, pi, base, nb, cell, n, c);
			qsort(boot, BOOTSTRAP, sizeof(boot[0]), cmp_double);
			rows[nr].lo = boot[BOOTSTRAP / 40];
			rows[nr].hi = boot[BOOTSTRAP - 1 - BOOTSTRAP / 40];
		}
		rows[nr].thin = row_thin(&rows[nr]);
		if (!rows[nr].thin) {
			area += (sp / 1000.0 - prev_x) * (y + prev_y) / 2;
			prev_x = sp / 1000.0;
			prev_y = y;
		}
		nr++;
	}
	*impact = area + (1 - prev_x) * prev_y;
	return nr;
}

static void print_rows(const struct crow *rows, size_t nr, FILE *out)
{
	size_t i;

	fprintf(out, "      line speedup   program speedup   95%% interval       experiments\n");
	for (i = 0; i < nr; i++) {
		fprintf(out, "            %3u %%        %+6.1f %% %c", rows[i].sp / 10, 100 * rows[i].y,
			rows[i].thin ? '?' : ' ');
		if (!isnan(rows[i].lo))
			fprintf(out, "   [%+6.1f, %+6.1f]", 100 * rows[i].lo, 100 * rows[i].hi);
		else
			fprintf(out, "%19s", "");
		fprintf(out, "   %zu\n", rows[i].n);
	}
}

/* Rows that are no answer yet, and a footnote when there are. */
static size_t thin_rows(const struct crow *rows, size_t nr)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++)
		n += rows[i].thin;
	return n;
}

/*
 * The curve fitted to @rows: y = a * min(x, cap), least squares weighted by
 * experiments, cap from 5 to 100 % (a line that stops paying, or one that
 * keeps paying).
 */
static void fit(const struct crow *rows, size_t nr, double *a, double *cap)
{
	double best = INFINITY, xc, sxy, sxx, err, k;
	unsigned int ci;
	size_t i;

	*a = 0;
	*cap = 1;
	for (ci = 1; ci <= 20; ci++) {
		xc = ci / 20.0;
		sxy = sxx = err = 0;
		for (i = 0; i < nr; i++) {
			double x = fmin(rows[i].sp / 1000.0, xc);

			sxy += rows[i].n * x * rows[i].y;
			sxx += rows[i].n * x * x;
		}
		k = sxx ? sxy / sxx : 0;
		for (i = 0; i < nr; i++) {
			double d = rows[i].y - k * fmin(rows[i].sp / 1000.0, xc);

			err += rows[i].n * d * d;
		}
		if (err < best - 1e-12) {
			best = err;
			*a = k;
			*cap = xc;
		}
	}
}

static void xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

#define PLOT_W		340
#define PLOT_H		220
#define PLOT_COLS	3
#define ML		52	/* margins: left, right, top, bottom */
#define MR		12
#define MT		34
#define MB		36

struct chart {
	const char *title;
	double impact;
	struct crow rows[MAX_ROWS];
	size_t nr;
};

/* One chart at (@x0, @y0), y from @ylo to @yhi. */
static void plot_chart(FILE *f, const struct chart *ch, int x0, int y0, double ylo, double yhi)
{
	double pw = PLOT_W - ML - MR, ph = PLOT_H - MT - MB, a, cap, t;
	const char *base = strrchr(ch->title, '/');
	size_t i;

#define PX(x) (x0 + ML + (x) * pw)
#define PY(y) (y0 + MT + (yhi - (y)) / (yhi - ylo) * ph)
	fprintf(f, "<g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#ccc\"/>\n",
		x0 + 2, y0 + 2, PLOT_W - 4, PLOT_H - 4);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" font-weight=\"bold\">", x0 + 10, y0 + 18);
	xml_str(f, base ? base + 1 : ch->title);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">impact %+.1f %%</text>\n",
		x0 + PLOT_W - 10, y0 + 18, 100 * ch->impact);
	/* Axes, the zero line, ticks every 20 % of line speedup. */
	for (t = 0; t <= 1.0001; t += 0.2)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%.0f%%</text>\n",
			PX(t), PY(yhi), PX(t), PY(ylo), PX(t), PY(ylo) + 13, 100 * t);
	for (i = 0; i <= 4; i++) {
		t = ylo + (yhi - ylo) * i / 4;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%+.0f%%</text>\n",
			PX(0) - 4, PY(t) + 3, 100 * t);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
		PX(0), PY(0), PX(1), PY(0));
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
		PX(0), PY(ylo), PX(0), PY(yhi));
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">line speedup</text>\n",
		PX(0.5), y0 + PLOT_H - 6);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\" transform=\"rotate(-90 %d %.1f)\">program speedup</text>\n",
		x0 + 12, PY((ylo + yhi) / 2), x0 + 12, PY((ylo + yhi) / 2));
	/* The fitted curve: a * min(x, cap). */
	fit(ch->rows, ch->nr, &a, &cap);
	fprintf(f, "<polyline class=\"fit\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
		PX(0), PY(0), PX(cap), PY(fmax(ylo, fmin(yhi, a * cap))), PX(1),
		PY(fmax(ylo, fmin(yhi, a * cap))));
	for (i = 0; i < ch->nr; i++) {
		const struct crow *r = &ch->rows[i];

		if (!isnan(r->lo))
			fprintf(f, "<line class=\"bar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\"/>\n",
				PX(r->sp / 1000.0), PY(fmax(ylo, r->lo)), PX(r->sp / 1000.0),
				PY(fmin(yhi, r->hi)));
		fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#1f77b4\"><title>%u %%: %+.1f %% (%zu experiments)</title></circle>\n",
			PX(r->sp / 1000.0), PY(fmax(ylo, fmin(yhi, r->y))), r->sp / 10,
			100 * r->y, r->n);
	}
	fputs("</g>\n", f);
#undef PX
#undef PY
}

/* Every chart of @nc, a progress point's, at @y0: the height used. */
static int plot_point(FILE *f, const char *name, const struct chart *ch, size_t nc, int y0)
{
	double ylo = 0, yhi = 0.1;
	size_t i, j;

	for (i = 0; i < nc; i++) {
		for (j = 0; j < ch[i].nr; j++) {
			const struct crow *r = &ch[i].rows[j];

			ylo = fmin(ylo, isnan(r->lo) ? r->y : fmin(r->y, r->lo));
			yhi = fmax(yhi, isnan(r->hi) ? r->y : fmax(r->y, r->hi));
		}
	}
	ylo = fmax(ylo, -1) * 1.05;
	yhi = fmin(yhi, 2) * 1.05;
	fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"14\">progress point ", y0 + 20);
	xml_str(f, name);
	fputs("</text>\n", f);
	for (i = 0; i < nc; i++)
		plot_chart(f, &ch[i], (i % PLOT_COLS) * PLOT_W, y0 + 30 + (i / PLOT_COLS) * PLOT_H,
			   ylo, yhi);
	return 30 + (int)((nc + PLOT_COLS - 1) / PLOT_COLS) * PLOT_H;
}

static int cmp_impact(const void *a, const void *b)
{
	const struct cline *x = a, *y = b;

	return x->impact < y->impact ? 1 : x->impact > y->impact ? -1 : 0;
}

/*
 * A line into the pprof of point @pi: a location with its function and
 * line, one sample whose value is the line's impact in hundredths of a
 * percent (none below 0: pprof's views sum values) and whose count is its
 * experiments.
 */
static int prof_line(struct causal *c, unsigned int pi, const struct cline *l)
{
	const char *name = cp_str(&c->strs, l->line), *colon = strrchr(name, ':');
	const char *func = cp_str(&c->strs, l->func), *sysfunc = cp_str(&c->strs, l->sysfunc);
	struct cp_prof_function f = { 0 };
	struct cp_prof_line pl;
	int64_t file, fn, sys, loc, smp, n;
	uint32_t id;
	size_t i;

	file = cp_strtab_add(&c->prof->strs, name, colon ? (size_t)(colon - name) : strlen(name));
	fn = cp_strtab_add_str(&c->prof->strs, *func ? func : name);
	sys = cp_strtab_add_str(&c->prof->strs, *sysfunc ? sysfunc : name);
	if (file < 0 || fn < 0 || sys < 0)
		return -ENOMEM;
	f.name = fn;
	f.sysname = sys;
	f.file = file;
	fn = cp_prof_function(c->prof, &f);
	if (fn < 0)
		return -ENOMEM;
	pl = (struct cp_prof_line){ .function = fn, .line = colon ? atoi(colon + 1) : 0 };
	/* No mapping: a location of its own per line, at a made-up address. */
	loc = cp_prof_add_location(c->prof, 0, c->prof->nr_locations + 1, &pl, 1, true);
	if (loc < 0)
		return -ENOMEM;
	id = loc;
	smp = cp_prof_sample(c->prof, pi, &id, 1, NULL);
	if (smp < 0)
		return -ENOMEM;
	for (i = 0, n = 0; i < c->nr_exps; i++)
		n += counts(&c->exps[i]) && c->exps[i].line == l->line;
	c->prof->samples[smp].count += n;
	c->prof->samples[smp].weight += l->impact > 0 ? (uint64_t)(10000 * l->impact + 0.5) : 0;
	return 0;
}

static void report_point(struct causal *c, unsigned int pi, const struct cp_causal_opts *o,
			 uint32_t *base, uint32_t *cell, FILE *out, struct chart *charts,
			 size_t *nr_charts)
{
	const struct cpoint *p = &c->points[pi];
	struct cline lines[256];
	struct crow rows[MAX_ROWS];
	struct sums s0 = { 0 };
	size_t nb, nl = 0, nr, i, j, thin = 0;
	uint32_t visits_none = 0, n_exps = 0;

	*nr_charts = 0;
	nb = select_exps(c, 0, 0, base);
	for (i = 0; i < nb; i++)
		sum_add(&s0, c, &c->exps[base[i]], pi);
	local_baselines(c, pi, base, nb);
	for (i = 0; i < c->nr_exps; i++) {
		const struct cmeas *m;

		if (!counts(&c->exps[i]))
			continue;
		n_exps++;
		m = meas_of(c, &c->exps[i], pi);
		if (!m || !m->visits)
			visits_none++;
	}
	if (o->table) {
		const char *how = "";

		if (p->spans)
			how = ", hits timed";
		else if (!p->unspanned && p->span_ratio < SPAN_MIN_RATIO)
			how = ", visits in bursts: windows";
		fprintf(out, "\n# progress point %s (%s): %" PRIu64 " visits in %u experiments",
			cp_str(&c->strs, p->name), p->kind == CAUSALPROF_PP_LATENCY ? "latency" :
			"throughput", p->visits, n_exps);
		if (!isnan(period(&s0, p->kind)))
			fprintf(out, "; baseline %.3f ms %s (%zu experiments at 0 %%%s)\n",
				period(&s0, p->kind) / 1e6,
				p->kind == CAUSALPROF_PP_LATENCY ? "mean latency" : "per visit", nb,
				how);
		else
			fprintf(out, "; no baseline yet (no visit in a 0 %% experiment)\n");
		if (o->verbose && !isnan(p->span_ratio))
			fprintf(out, "# hits timed: their period %.3f of the windows'\n",
				p->span_ratio);
		if (n_exps && visits_none * 5 > n_exps)
			fprintf(out, "# warning: no visit in %u of %u experiments: make the program run longer, or choose a point it passes more often\n",
				visits_none, n_exps);
	}
	if (isnan(period(&s0, p->kind)))
		return;

	for (i = 0; i < c->nr_exps && nl < ARRAY_SIZE(lines); i++) {
		if (!counts(&c->exps[i]))
			continue;
		for (j = 0; j < nl && lines[j].line != c->exps[i].line; j++)
			;
		if (j == nl)
			lines[nl++] = (struct cline){ .line = c->exps[i].line,
						      .func = c->exps[i].func,
						      .sysfunc = c->exps[i].sysfunc };
	}
	for (i = 0; i < nl; i++) {
		line_curve(c, pi, lines[i].line, base, nb, cell, rows, &lines[i].impact);
		if (c->prof && prof_line(c, pi, &lines[i]))
			c->prof = NULL;	/* out of memory: reported at the end */
	}
	qsort(lines, nl, sizeof(lines[0]), cmp_impact);
	if (o->table)
		fprintf(out, "#\n#  impact   line\n");
	for (i = 0; i < nl && i < o->top; i++) {
		const char *func = cp_str(&c->strs, lines[i].func);
		double impact;

		nr = line_curve(c, pi, lines[i].line, base, nb, cell, rows, &impact);
		thin += thin_rows(rows, nr);
		if (o->table) {
			fprintf(out, "  %+6.1f %%  %s%s%s%s\n", 100 * lines[i].impact,
				cp_str(&c->strs, lines[i].line), *func ? " (" : "", func,
				*func ? ")" : "");
			print_rows(rows, nr, out);
		}
		if (charts && i < CP_MAX_CHARTS) {
			charts[i].title = cp_str(&c->strs, lines[i].line);
			charts[i].impact = impact;
			memcpy(charts[i].rows, rows, nr * sizeof(rows[0]));
			charts[i].nr = nr;
			*nr_charts = i + 1;
		}
	}
	if (o->table && nl > o->top)
		fprintf(out, "# %zu more lines (--top N shows more)\n", nl - o->top);
	if (o->table && thin)
		fprintf(out, "# ?: %zu rows of fewer than %d experiments or with an interval wider than %.0f points: no answer yet, left out of the impacts (a longer run gives them more experiments)\n",
			thin, MIN_ROW_EXPS, 100 * MAX_ROW_WIDTH);
}

/*
 * Thresholds of the accounting's warnings: payments that slept this much
 * longer than they asked (the excess is counted as inserted delay, but
 * every thread then pays it: the program runs slower than the experiment
 * needs), and delay still owed when experiments stopped (inserted, so
 * subtracted from the time measured, but never paid: the prediction reads
 * high by up to that much).
 */
#define OVERSHOOT_WARN	0.25	/* of what the payments asked */
#define OWED_WARN	0.10	/* of the delay inserted */

static void acct_warnings(const struct causal *c, FILE *out)
{
	double asked = 0, over = 0, owed = 0, inserted = 0;
	size_t i, n = 0;

	for (i = 0; i < c->nr_exps; i++) {
		const struct cexp *e = &c->exps[i];

		if (!counts(e) || !e->has_acct)
			continue;
		n++;
		asked += e->acct.asked_ns;
		over += e->acct.overshoot_ns;
		owed += e->acct.owed_ns;
		inserted += e->inserted;
	}
	if (!n)
		return;
	if (asked > 0 && over > OVERSHOOT_WARN * asked)
		fprintf(out, "# warning: payments slept %.0f %% longer than they asked (%.1f ms in all: timer and wake-up latency); the excess counts as inserted delay, but slows the program more than the experiments need\n",
			100 * over / asked, over / 1e6);
	if (inserted > 0 && owed > OWED_WARN * inserted)
		fprintf(out, "# warning: %.0f %% of the inserted delay was still owed when experiments stopped (%.1f ms): predictions read high by up to that share\n",
			100 * owed / inserted, owed / 1e6);
}

/* -v: each experiment's delay accounting, in ms. */
static void print_accounting(const struct causal *c, FILE *out)
{
	size_t i;

	fprintf(out, "\n# accounting of each experiment, ms: wall time; visits of the first progress point; time in the selected\n"
		     "# code (as sampled); delay its hits did not insert (their threads were behind); inserted delay; paid in\n"
		     "# payments (asked, overshoot, largest, cut short); credited to waits; inherited from wakers; still owed at the\n"
		     "# stop by threads not asleep (threads); payments queued on a wake-up / a sample; progress point and Go\n"
		     "# hook traps counted as pauses (how many, their time)\n");
	fprintf(out, "#   id speedup     wall  visits selected absorbed inserted     paid    asked overshoot  largest   short credited inherit   owed thr  wake/sample   traps trap_ms  line\n");
	for (i = 0; i < c->nr_exps; i++) {
		const struct cexp *e = &c->exps[i];
		const struct causalprof_exp_acct *a = &e->acct;

		if (!e->line)
			continue;
		fprintf(out, "%6" PRIu32 " %5.1f %% %8.1f %7" PRIu64 " %8.1f %8.1f %8.1f %8.1f", e->id,
			e->speedup / 10.0, e->wall / 1e6, e->nr ? c->meas[e->first].visits : 0,
			a->selected_ns / 1e6, a->absorbed_ns / 1e6, e->inserted / 1e6, e->paid / 1e6);
		if (e->has_acct)
			fprintf(out, " %8.1f %9.2f %8.2f %7.2f %8.1f %7.1f %6.1f %3" PRIu64 " %5" PRIu64 "/%-5" PRIu64,
				a->asked_ns / 1e6, a->overshoot_ns / 1e6, a->max_overshoot_ns / 1e6,
				a->short_ns / 1e6, a->credited_ns / 1e6, a->inherited_ns / 1e6,
				a->owed_ns / 1e6, (uint64_t)a->owing, (uint64_t)a->wake_queued,
				(uint64_t)a->sample_queued);
		if (e->has_acct)
			fprintf(out, " %7" PRIu64 " %7.1f", (uint64_t)e->visits.visits,
				e->visits.visit_ns / 1e6);
		else
			fprintf(out, " (recorded without accounting)");
		fprintf(out, "  %s%s\n", cp_str(&c->strs, e->line), e->cut ? " (cut short)" : "");
	}
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

/* The charts as one SVG, or an HTML page around it (a .html @path). */
static int plot_file(const char *path, const char *body, size_t len, int height, FILE *err)
{
	size_t n = strlen(path);
	bool html = n > 5 && !strcmp(path + n - 5, ".html");
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(err, "cprof report: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (html)
		fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cprof causal profile</title></head>\n<body>\n", f);
	else
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n",
		PLOT_COLS * PLOT_W, height + 10);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n");
	fwrite(body, 1, len, f);
	fputs("</svg>\n", f);
	if (html)
		fputs("</body></html>\n", f);
	if (ferror(f) | fclose(f)) {
		fprintf(err, "cprof report: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The impacts of point @pi as a gzipped pprof: @path for the first point,
 * PATH.N.pb.gz (PATH without its .pb.gz) for point N of several.
 */
static int pprof_file(const struct causal *c, struct cp_profile *prof, unsigned int pi,
		      const char *path, FILE *err)
{
	char name[PATH_MAX], comment[PATH_MAX + 64];
	const char *comments[1] = { comment };
	struct cp_pprof_info info = {
		.event = pi, .name = "impact", .unit = "count", .period = 1,
		.comments = comments, .nr_comments = 1,
	};
	size_t n = strlen(path);
	FILE *f;
	int ret;

	if (pi && n > 6 && !strcmp(path + n - 6, ".pb.gz"))
		n -= 6;
	snprintf(name, sizeof(name), pi ? "%.*s.%u.pb.gz" : "%.*s", (int)n, path, pi);
	snprintf(comment, sizeof(comment),
		 "causal impact of each line on progress point %s, in hundredths of a percent",
		 cp_str(&c->strs, c->points[pi].name));
	f = fopen(name, "we");
	if (!f) {
		fprintf(err, "cprof report: cannot write %s: %s\n", name, strerror(errno));
		return 1;
	}
	ret = cp_pprof_write(f, prof, &info);
	if (fclose(f) || ret) {
		fprintf(err, "cprof report: cannot write %s: %s\n", name,
			strerror(ret == -ENOMEM ? ENOMEM : errno));
		return 1;
	}
	return 0;
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
	struct chart *charts = NULL;
	unsigned int i, used = 0, cut = 0;
	char *body = NULL;
	size_t j, nc, body_len = 0;
	struct cp_profile *prof = NULL;
	uint64_t span_visits[MAX_POINTS] = { 0 };
	double span_eff[MAX_POINTS] = { 0 }, win_eff[MAX_POINTS] = { 0 };
	FILE *plot = NULL;
	int ret, height = 0;

	ret = cp_strtab_init(&c.strs);
	if (ret)
		return ret;
	c.sym = cp_sym_new(NULL, err);
	if (!c.sym) {
		cp_strtab_free(&c.strs);
		return -ENOMEM;
	}
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
		for (i = 0; counts(e) && i < e->nr; i++) {
			const struct cmeas *m = &c.meas[e->first + i];

			c.points[m->point].visits += m->visits;
			span_visits[m->point] += m->span_visits;
			span_eff[m->point] += m->span_eff;
			win_eff[m->point] += e->eff;
		}
	}
	for (i = 0; i < c.nr_points; i++) {
		struct cpoint *p = &c.points[i];

		p->span_ratio = span_visits[i] && p->visits && win_eff[i] > 0 ?
				span_eff[i] / span_visits[i] / (win_eff[i] / p->visits) : NAN;
		p->spans = !p->unspanned && 2 * span_visits[i] >= p->visits &&
			   p->span_ratio >= SPAN_MIN_RATIO;
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
	if (!o->table && !o->plot && !o->pprof) {
		ret = 0;
		goto out;
	}
	if (o->pprof) {
		c.prof = calloc(1, sizeof(*c.prof));
		if (!c.prof || cp_prof_init(c.prof)) {
			free(c.prof);
			c.prof = NULL;
			ret = -ENOMEM;
			goto out;
		}
		prof = c.prof;
	}
	base = calloc(c.nr_exps, sizeof(*base));
	cell = calloc(c.nr_exps, sizeof(*cell));
	c.local = calloc(c.nr_exps, sizeof(*c.local));
	if (o->plot) {
		charts = calloc(CP_MAX_CHARTS, sizeof(*charts));
		plot = open_memstream(&body, &body_len);
	}
	if (!base || !cell || !c.local || (o->plot && (!charts || !plot))) {
		ret = -ENOMEM;
		goto out;
	}
	if (o->table) {
		fprintf(out, "# causal profile of %s: %u experiments", o->name, used);
		if (cut)
			fprintf(out, " (and %u cut short by the end or a timeout, left out)", cut);
		fprintf(out, "\n# program speedup if the line were that much faster; impact: the mean over 0-100 %%\n");
		acct_warnings(&c, out);
	}
	for (i = 0; i < c.nr_points; i++) {
		if (c.points[i].alias >= 0)
			continue;
		report_point(&c, i, o, base, cell, out, charts, &nc);
		if (plot && nc)
			height += plot_point(plot, cp_str(&c.strs, c.points[i].name), charts, nc,
					     height);
	}
	if (o->table && o->verbose)
		print_accounting(&c, out);
	ret = 0;
	if (prof && !c.prof)
		ret = -ENOMEM;
	for (i = 0; !ret && prof && i < c.nr_points; i++)
		if (c.points[i].alias < 0)
			ret = pprof_file(&c, prof, i, o->pprof, err);
	if (!ret && plot) {
		if (fclose(plot))
			ret = -ENOMEM;
		plot = NULL;
		if (!ret)
			ret = plot_file(o->plot, body, body_len, height, err);
	}
out:
	if (prof) {
		cp_prof_free(prof);
		free(prof);
	}
	if (plot)
		fclose(plot);
	free(body);
	free(charts);
	free(base);
	free(cell);
	free(c.local);
	free(c.exps);
	free(c.meas);
	cp_sym_free(c.sym);
	cp_strtab_free(&c.strs);
	return ret;
}
