// SPDX-License-Identifier: GPL-2.0
/*
 * The text views: one event's samples summed by node (a function, a source
 * line or a thread) and printed heaviest first.
 *
 * By function and by line the rows are those of `pprof -top` and `pprof
 * -top -lines`, so that the two can be compared: a node's flat weight is
 * that of the samples whose innermost frame (the innermost inlined function
 * of their first location) is that node, its cum weight that of the samples
 * with the node anywhere in their stack, counted once per sample. A location
 * nothing is known of is the node "file+0xOFFSET" the resolver named it
 * (the start of its function, or by line its own address), else "[file]"
 * of its mapping, or "<unknown>";
 * rows are ordered by flat weight, then name, then cum weight, and as pprof
 * does by default, nodes whose cum weight is under a fraction (0.5 %) of the
 * total are left out.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "top.h"

struct node {
	uint32_t name;		/* string */
	uint32_t file;		/* lines view */
	int64_t line;
	uint64_t flat, cum;
	size_t stamp;		/* last sample that counted it, + 1 */
};

struct nodes {
	const struct cp_profile *p;
	struct cp_strtab *names;	/* of unknown locations; p's strings otherwise */
	struct node *v;
	size_t nr, cap;
	struct cp_htab index;
	bool lines;
};

static bool node_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct node *a = &((const struct nodes *)ctx)->v[idx], *b = key;

	return a->name == b->name && a->file == b->file && a->line == b->line;
}

static struct node *get_node(struct nodes *ns, const struct node *key)
{
	uint64_t hash = cp_hash_u64(cp_hash_u64(cp_hash_u64(CP_HASH_SEED, key->name), key->file),
				    key->line);
	int64_t i = cp_htab_find(&ns->index, hash, node_eq, ns, key);

	if (i >= 0)
		return &ns->v[i];
	if (ns->nr == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 256;
		struct node *v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		ns->v = v;
		ns->cap = cap;
	}
	if (cp_htab_add(&ns->index, hash, ns->nr))
		return NULL;
	ns->v[ns->nr] = *key;
	return &ns->v[ns->nr++];
}

/*
 * Node names live in a table of their own: "[file]" of unknown code, and
 * "name file:line" of lines.
 */
static int64_t unknown_name(struct nodes *ns, const struct cp_prof_location *l)
{
	const struct cp_prof_mapping *m;
	const char *file, *base;
	char buf[4096];

	if (!l->mapping)
		return cp_strtab_add_str(ns->names, "<unknown>");
	m = &ns->p->mappings[l->mapping - 1];
	file = cp_str(&ns->p->strs, m->file);
	if (l->name && ns->lines) {
		/* By line: the address itself, as a file offset. */
		base = strrchr(file, '/');
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, base ? base + 1 : file,
			 l->address - m->start + m->offset);
		return cp_strtab_add_str(ns->names, buf);
	}
	if (l->name)
		return cp_strtab_add_str(ns->names, cp_str(&ns->p->strs, l->name));
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (base[0] == '[') {
		/* "[vdso]", "[kernel.kallsyms]": pprof keeps them as they are. */
		return cp_strtab_add_str(ns->names, base);
	}
	snprintf(buf, sizeof(buf), "[%s]", base);
	return cp_strtab_add_str(ns->names, buf);
}

static int64_t line_name(struct nodes *ns, const struct cp_prof_line *ln)
{
	const struct cp_prof_function *fn = &ns->p->functions[ln->function];
	const char *name = cp_str(&ns->p->strs, fn->name);
	const char *file = cp_str(&ns->p->strs, fn->file);
	char buf[8192];

	if (!*file)
		return cp_strtab_add_str(ns->names, name);
	if (ln->line)
		snprintf(buf, sizeof(buf), "%s %s:%" PRId64, name, file, ln->line);
	else
		snprintf(buf, sizeof(buf), "%s %s", name, file);
	return cp_strtab_add_str(ns->names, buf);
}

/* Counts @weight for the nodes of location @l; @flat for its innermost line. */
static int count_location(struct nodes *ns, const struct cp_prof_location *l, bool flat,
			  uint64_t weight, size_t stamp)
{
	const struct cp_profile *p = ns->p;
	struct node key = { 0 }, *n;
	uint32_t i, nr = l->nr_lines ? l->nr_lines : 1;
	int64_t name;

	for (i = 0; i < nr; i++) {
		if (!l->nr_lines) {
			name = unknown_name(ns, l);
		} else if (ns->lines) {
			name = line_name(ns, &p->lines[l->line + i]);
		} else {
			const struct cp_prof_function *fn =
				&p->functions[p->lines[l->line + i].function];

			name = cp_strtab_add_str(ns->names, cp_str(&p->strs, fn->name));
		}
		if (name < 0)
			return -ENOMEM;
		key.name = name;
		n = get_node(ns, &key);
		if (!n)
			return -ENOMEM;
		if (flat && !i)
			n->flat += weight;
		if (n->stamp != stamp) {
			n->stamp = stamp;
			n->cum += weight;
		}
	}
	return 0;
}

static int cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct node *x = a, *y = b;
	const struct cp_strtab *names = arg;
	int c;

	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	c = strcmp(cp_str(names, x->name), cp_str(names, y->name));
	if (c)
		return c;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return 0;
}

void cp_top_format(char *buf, size_t size, uint64_t v, const char *unit)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 } };
	size_t i, len;

	if (strcmp(unit, "nanoseconds") || !v) {
		snprintf(buf, size, "%" PRIu64, v);
		return;
	}
	for (i = 0; i < 3 && v < units[i].factor; i++)
		;
	snprintf(buf, size, "%.2f", v / units[i].factor);
	len = strlen(buf);
	if (len > 3 && !strcmp(buf + len - 3, ".00"))
		buf[len - 3] = '\0';
	snprintf(buf + strlen(buf), size - strlen(buf), "%s", units[i].name);
}

void cp_top_percent(char *buf, size_t size, uint64_t part, uint64_t total)
{
	double ratio = total ? 100.0 * part / total : 0;

	if (ratio >= 99.95 && ratio <= 100.05)
		snprintf(buf, size, "  100%%");
	else if (ratio >= 1.0)
		snprintf(buf, size, "%5.2f%%", ratio);
	else
		snprintf(buf, size, "%5.2g%%", ratio);
}

static int print_nodes(FILE *out, const struct cp_profile *p, uint8_t event, const char *unit,
		       bool lines, double fraction)
{
	struct cp_strtab names;
	struct nodes ns = { .p = p, .names = &names, .lines = lines };
	char flat[32], cum[32], flatp[32], sump[32], cump[32];
	uint64_t total = 0, sum = 0, cutoff;
	size_t i, j, dropped = 0;
	int ret = -ENOMEM;

	cp_htab_init(&ns.index);
	if (cp_strtab_init(&names))
		goto out;
	for (i = 0; i < p->nr_samples; i++) {
		const struct cp_prof_sample *s = &p->samples[i];

		if (s->event != event || (!s->weight && !s->count))
			continue;
		total += s->weight;
		for (j = 0; j < s->nr_locs; j++) {
			const struct cp_prof_location *l = &p->locations[p->loc_ids[s->loc + j]];

			if (count_location(&ns, l, !j, s->weight, i + 1))
				goto out;
		}
	}
	/* As pprof: nodes below a fraction of the total are left out. */
	cutoff = fraction < 1 ? (uint64_t)(total * fraction) : total;
	for (i = 0; i < ns.nr; i++)
		dropped += ns.v[i].cum < cutoff;
	if (dropped) {
		cp_top_format(cum, sizeof(cum), cutoff, unit);
		fprintf(out, "# dropped %zu nodes (cum < %s)\n", dropped, cum);
	}
	if (ns.nr)
		qsort_r(ns.v, ns.nr, sizeof(*ns.v), cmp_nodes, &names);
	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (i = 0; i < ns.nr; i++) {
		const struct node *n = &ns.v[i];

		if (n->cum < cutoff)
			continue;
		sum += n->flat;
		cp_top_format(flat, sizeof(flat), n->flat, unit);
		cp_top_format(cum, sizeof(cum), n->cum, unit);
		cp_top_percent(flatp, sizeof(flatp), n->flat, total);
		cp_top_percent(sump, sizeof(sump), sum, total);
		cp_top_percent(cump, sizeof(cump), n->cum, total);
		fprintf(out, "%10s %s %s %10s %s  %s\n", flat, flatp, sump, cum, cump,
			cp_str(&names, n->name));
	}
	ret = 0;
out:
	free(ns.v);
	cp_htab_free(&ns.index);
	cp_strtab_free(&names);
	return ret;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct cp_prof_thread *x = *(const struct cp_prof_thread *const *)a;
	const struct cp_prof_thread *y = *(const struct cp_prof_thread *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

static int print_threads(FILE *out, const struct cp_profile *p, uint8_t event, const char *unit)
{
	const struct cp_prof_thread **rows;
	char weight[32], share[32];
	uint64_t total = 0;
	size_t i, n = 0;

	rows = calloc(p->nr_threads ? p->nr_threads : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < p->nr_samples; i++)
		if (p->samples[i].event == event)
			total += p->samples[i].weight;
	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].event == event)
			rows[n++] = &p->threads[i];
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_threads);
	fprintf(out, "%10s %7s %9s %8s %8s  %s\n", "weight", "weight%", "samples", "pid", "tid",
		"comm");
	for (i = 0; i < n; i++) {
		cp_top_format(weight, sizeof(weight), rows[i]->weight, unit);
		cp_top_percent(share, sizeof(share), rows[i]->weight, total);
		fprintf(out, "%10s %7s %9" PRIu64 " %8" PRIu32 " %8" PRIu32 "  %s\n", weight, share,
			rows[i]->count, rows[i]->pid, rows[i]->tid,
			rows[i]->comm ? cp_str(&p->strs, rows[i]->comm) : "[unknown]");
	}
	free(rows);
	return 0;
}

int cp_top_print(FILE *out, const struct cp_profile *p, uint8_t event, const char *unit,
		 enum cp_view view, double fraction)
{
	if (view == CP_VIEW_THREADS)
		return print_threads(out, p, event, unit);
	return print_nodes(out, p, event, unit, view == CP_VIEW_LINES, fraction);
}
