// SPDX-License-Identifier: GPL-2.0
/*
 * pprof output: the profile's samples of one event (or of the events its
 * sample types name), and the locations, functions and mappings they use,
 * as protobuf-c messages packed straight into a gzip stream (zlib), never
 * whole in memory.
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof.h"
#include "profile.pb-c.h"
#include "symbolize.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/*
 * protobuf-c hands the packed message over a few bytes at a time (a tag, a
 * varint, a short string): some 6,000 pieces for the 22 KB of a 10 s
 * interval of a two-thread program. deflate() costs ~500 instructions a
 * call whatever it is given: 3.2 M instructions for those pieces, against
 * 1.1 M for their bytes deflated at once. So they are gathered first and
 * deflated GZ_IN at a time.
 */
#define GZ_IN		(64 * 1024)
#define GZ_OUT		(64 * 1024)

/*
 * A protobuf-c output buffer that deflates what it is given into a file;
 * its deflate state (window, hash chains, pending buffer: ~270 KiB) is set
 * up once and reset for each profile.
 */
struct cp_pprof_gz {
	ProtobufCBuffer base;
	z_stream z;
	bool ready;		/* z initialized */
	FILE *out;
	int err;
	size_t nr_in;
	unsigned char in[GZ_IN];
	unsigned char out_buf[GZ_OUT];
};

struct cp_pprof_gz *cp_pprof_gz_new(void)
{
	struct cp_pprof_gz *gz = malloc(sizeof(*gz));

	if (!gz)
		return NULL;
	memset(gz, 0, offsetof(struct cp_pprof_gz, in));
	return gz;
}

void cp_pprof_gz_free(struct cp_pprof_gz *gz)
{
	if (!gz)
		return;
	if (gz->ready)
		deflateEnd(&gz->z);
	free(gz);
}

static void gz_drain(struct cp_pprof_gz *gz, int flush)
{
	size_t n;
	int ret;

	do {
		gz->z.next_out = gz->out_buf;
		gz->z.avail_out = sizeof(gz->out_buf);
		ret = deflate(&gz->z, flush);
		if (ret == Z_STREAM_ERROR) {
			gz->err = -EIO;
			return;
		}
		n = sizeof(gz->out_buf) - gz->z.avail_out;
		if (n && !gz->err && fwrite(gz->out_buf, 1, n, gz->out) != n)
			gz->err = -EIO;
	} while (gz->z.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
}

/* Deflates the bytes gathered and then @len more at @data. */
static void gz_deflate(struct cp_pprof_gz *gz, const uint8_t *data, size_t len, int flush)
{
	gz->z.next_in = gz->in;
	gz->z.avail_in = gz->nr_in;
	gz->nr_in = 0;
	if (gz->z.avail_in || flush != Z_NO_FLUSH)
		gz_drain(gz, len ? Z_NO_FLUSH : flush);
	while (len && !gz->err) {
		uInt n = len > (1U << 30) ? (1U << 30) : len;

		gz->z.next_in = (Bytef *)data;
		gz->z.avail_in = n;
		data += n;
		len -= n;
		gz_drain(gz, len ? Z_NO_FLUSH : flush);
	}
}

static void gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct cp_pprof_gz *gz = (struct cp_pprof_gz *)buf;

	if (gz->err)
		return;
	if (len <= sizeof(gz->in) - gz->nr_in) {
		memcpy(gz->in + gz->nr_in, data, len);
		gz->nr_in += len;
		return;
	}
	gz_deflate(gz, data, len, Z_NO_FLUSH);
}

/* A new gzip member into @out. */
static int gz_start(struct cp_pprof_gz *gz, FILE *out)
{
	gz->base.append = gz_append;
	gz->out = out;
	gz->err = 0;
	gz->nr_in = 0;
	if (gz->ready)
		return deflateReset(&gz->z) == Z_OK ? 0 : -ENOMEM;
	/* 16 + MAX_WBITS: a gzip header; level 1, as Go's runtime/pprof. */
	if (deflateInit2(&gz->z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	gz->ready = true;
	return 0;
}

/* Everything the messages point into, freed at once. */
struct build {
	Profile prof;
	ValueType types[CP_PPROF_MAX_VALUES], *ptypes[CP_PPROF_MAX_VALUES], period_type;
	struct cp_pprof_value cols[CP_PPROF_MAX_VALUES];
	size_t nr_cols;
	Sample *samples, **psamples;
	uint64_t *loc_ids;
	int64_t *values;
	Label *labels, **plabels;
	Mapping *mappings, **pmappings;
	Location *locations, **plocations;
	Line *lines, **plines;
	Function *functions, **pfunctions;
	int64_t *comments;
	uint8_t *used_loc, *used_fn, *used_map;
};

static void free_build(struct build *b)
{
	free(b->samples);
	free(b->psamples);
	free(b->loc_ids);
	free(b->values);
	free(b->labels);
	free(b->plabels);
	free(b->mappings);
	free(b->pmappings);
	free(b->locations);
	free(b->plocations);
	free(b->lines);
	free(b->plines);
	free(b->functions);
	free(b->pfunctions);
	free(b->comments);
	free(b->used_loc);
	free(b->used_fn);
	free(b->used_map);
}

static int64_t str(struct cp_profile *p, const char *s)
{
	return cp_strtab_add_str(&p->strs, s);
}

static int64_t clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Whether the profile's sample @s goes into the pprof profile. */
static bool wanted(const struct build *b, const struct cp_prof_sample *s)
{
	size_t c;

	if (!s->count && !s->weight)
		return false;
	for (c = 0; c < b->nr_cols; c++)
		if (b->cols[c].event == s->event)
			return true;
	return false;
}

static int64_t value(const struct cp_pprof_value *col, const struct cp_prof_sample *s)
{
	if (s->event != col->event)
		return 0;
	switch (col->field) {
	case CP_PPROF_COUNT:
		return clamp(s->count);
	case CP_PPROF_WEIGHT:
		return clamp(s->weight);
	case CP_PPROF_WAIT:
		return clamp(s->wait);
	case CP_PPROF_DELAY:
		return clamp(s->weight - s->wait);
	}
	return 0;
}

/*
 * Marks what the samples use, 1, and the mappings of which some used
 * location has no function, 2; counts them.
 */
static void mark(const struct cp_profile *p, struct build *b, size_t *nr_samples,
		 size_t *nr_ids)
{
	const struct cp_prof_location *l;
	size_t i, j;

	*nr_samples = *nr_ids = 0;
	for (i = 0; i < p->nr_samples; i++) {
		const struct cp_prof_sample *s = &p->samples[i];

		if (!wanted(b, s))
			continue;
		(*nr_samples)++;
		*nr_ids += s->nr_locs;
		for (j = 0; j < s->nr_locs; j++)
			b->used_loc[p->loc_ids[s->loc + j]] = 1;
	}
	for (i = 0; i < p->nr_locations; i++) {
		if (!b->used_loc[i])
			continue;
		l = &p->locations[i];
		if (l->mapping && (!l->nr_lines || b->used_map[l->mapping - 1] == 2))
			b->used_map[l->mapping - 1] = 2;
		else if (l->mapping)
			b->used_map[l->mapping - 1] = 1;
		for (j = 0; j < l->nr_lines; j++)
			b->used_fn[p->lines[l->line + j].function] = 1;
	}
}

/* Label @i of the build's, initialized. */
static Label *new_label(struct build *b, size_t i)
{
	perftools__profiles__label__init(&b->labels[i]);
	b->plabels[i] = &b->labels[i];
	return &b->labels[i];
}

static int build_samples(struct cp_profile *p, struct build *b, const struct cp_pprof_info *info,
			 size_t nr, size_t nr_ids)
{
	int64_t key_pid = 0, key_tid = 0, key_comm = 0;
	size_t i, j, k = 0, ids = 0, nl = 0, nls = 0, n;
	Label *l;

	b->samples = calloc(nr ? nr : 1, sizeof(*b->samples));
	b->psamples = calloc(nr ? nr : 1, sizeof(*b->psamples));
	b->loc_ids = calloc(nr_ids ? nr_ids : 1, sizeof(*b->loc_ids));
	b->values = calloc(b->nr_cols * (nr ? nr : 1), sizeof(*b->values));
	/* Room for pid, tid and comm (--labels) and a Go program's labels. */
	for (i = 0; i < p->nr_samples; i++)
		if (wanted(b, &p->samples[i]))
			nl += p->samples[i].nr_labels + (info->labels ? 3 : 0);
	b->labels = calloc(nl + 1, sizeof(*b->labels));
	b->plabels = calloc(nl + 1, sizeof(*b->plabels));
	if (!b->samples || !b->psamples || !b->loc_ids || !b->values || !b->labels || !b->plabels)
		return -ENOMEM;
	if (info->labels) {
		key_pid = str(p, "pid");
		key_tid = str(p, "tid");
		key_comm = str(p, "comm");
		if (key_pid < 0 || key_tid < 0 || key_comm < 0)
			return -ENOMEM;
	}
	for (i = 0; i < p->nr_samples; i++) {
		const struct cp_prof_sample *s = &p->samples[i];
		Sample *out = &b->samples[k];

		if (!wanted(b, s))
			continue;
		perftools__profiles__sample__init(out);
		out->location_id = &b->loc_ids[ids];
		out->n_location_id = s->nr_locs;
		for (j = 0; j < s->nr_locs; j++)
			b->loc_ids[ids++] = p->loc_ids[s->loc + j] + 1;
		out->value = &b->values[b->nr_cols * k];
		out->n_value = b->nr_cols;
		for (j = 0; j < b->nr_cols; j++)
			out->value[j] = value(&b->cols[j], s);
		out->label = &b->plabels[nls];
		n = 0;
		for (j = 0; j < s->nr_labels; j++) {
			l = new_label(b, nls + n++);
			l->key = p->labels[s->label + j].key;
			l->str = p->labels[s->label + j].value;
		}
		if (info->labels && (s->pid || s->tid)) {
			l = new_label(b, nls + n++);
			l->key = key_pid;
			l->num = s->pid;
			l = new_label(b, nls + n++);
			l->key = key_tid;
			l->num = s->tid;
			if (s->comm) {
				l = new_label(b, nls + n++);
				l->key = key_comm;
				l->str = s->comm;
			}
		}
		out->n_label = n;
		nls += n;
		b->psamples[k++] = out;
	}
	b->prof.sample = b->psamples;
	b->prof.n_sample = k;
	return 0;
}

static int build_locations(const struct cp_profile *p, struct build *b)
{
	size_t i, j, n = 0, nl = 0;

	b->locations = calloc(p->nr_locations + 1, sizeof(*b->locations));
	b->plocations = calloc(p->nr_locations + 1, sizeof(*b->plocations));
	b->lines = calloc(p->nr_lines + 1, sizeof(*b->lines));
	b->plines = calloc(p->nr_lines + 1, sizeof(*b->plines));
	if (!b->locations || !b->plocations || !b->lines || !b->plines)
		return -ENOMEM;
	for (i = 0; i < p->nr_locations; i++) {
		const struct cp_prof_location *l = &p->locations[i];
		Location *out = &b->locations[n];

		if (!b->used_loc[i])
			continue;
		perftools__profiles__location__init(out);
		out->id = i + 1;
		out->mapping_id = l->mapping;
		out->address = l->address;
		out->line = &b->plines[nl];
		out->n_line = l->nr_lines;
		for (j = 0; j < l->nr_lines; j++) {
			perftools__profiles__line__init(&b->lines[nl]);
			b->lines[nl].function_id = p->lines[l->line + j].function + 1;
			b->lines[nl].line = p->lines[l->line + j].line;
			b->plines[nl] = &b->lines[nl];
			nl++;
		}
		b->plocations[n++] = out;
	}
	b->prof.location = b->plocations;
	b->prof.n_location = n;
	return 0;
}

static int build_functions(const struct cp_profile *p, struct build *b)
{
	size_t i, n = 0;

	b->functions = calloc(p->nr_functions + 1, sizeof(*b->functions));
	b->pfunctions = calloc(p->nr_functions + 1, sizeof(*b->pfunctions));
	if (!b->functions || !b->pfunctions)
		return -ENOMEM;
	for (i = 0; i < p->nr_functions; i++) {
		const struct cp_prof_function *f = &p->functions[i];
		Function *out = &b->functions[n];

		if (!b->used_fn[i])
			continue;
		perftools__profiles__function__init(out);
		out->id = i + 1;
		out->name = f->name;
		out->system_name = f->sysname;
		out->filename = f->file;
		out->start_line = f->start_line;
		b->pfunctions[n++] = out;
	}
	b->prof.function = b->pfunctions;
	b->prof.n_function = n;
	return 0;
}

/* The main program's mapping first, as pprof wants it. */
static int build_mappings(const struct cp_profile *p, struct build *b, uint32_t main)
{
	size_t i, n = 0;

	b->mappings = calloc(p->nr_mappings + 1, sizeof(*b->mappings));
	b->pmappings = calloc(p->nr_mappings + 1, sizeof(*b->pmappings));
	if (!b->mappings || !b->pmappings)
		return -ENOMEM;
	for (i = 0; i < p->nr_mappings; i++) {
		const struct cp_prof_mapping *m = &p->mappings[i];
		Mapping *out = &b->mappings[i];

		if (!b->used_map[i])
			continue;
		perftools__profiles__mapping__init(out);
		out->id = i + 1;
		out->memory_start = m->start;
		out->memory_limit = m->limit;
		out->file_offset = m->offset;
		out->filename = m->file;
		out->build_id = m->build_id;
		/*
		 * Only when every location has them: pprof symbolizes no
		 * mapping that says it has, and names nothing in one that has
		 * not (but it can, later, from the file or its debug file).
		 */
		if (b->used_map[i] == 1) {
			out->has_functions = !!(m->caps & CP_SYM_FUNCTIONS);
			out->has_filenames = !!(m->caps & CP_SYM_FILENAMES);
			out->has_line_numbers = !!(m->caps & CP_SYM_LINES);
			out->has_inline_frames = !!(m->caps & CP_SYM_INLINE);
		}
		if (i + 1 == main && n) {
			b->pmappings[n++] = b->pmappings[0];
			b->pmappings[0] = out;
		} else {
			b->pmappings[n++] = out;
		}
	}
	b->prof.mapping = b->pmappings;
	b->prof.n_mapping = n;
	return 0;
}

/* The sample types: info's, or samples/count and EVENT/UNIT of its event. */
static void columns(struct build *b, const struct cp_pprof_info *info)
{
	size_t i;

	if (info->values) {
		b->nr_cols = info->nr_values < CP_PPROF_MAX_VALUES ? info->nr_values :
								     CP_PPROF_MAX_VALUES;
		for (i = 0; i < b->nr_cols; i++)
			b->cols[i] = info->values[i];
		return;
	}
	b->cols[0] = (struct cp_pprof_value){
		.event = info->event, .field = CP_PPROF_COUNT, .type = "samples", .unit = "count",
	};
	b->cols[1] = (struct cp_pprof_value){
		.event = info->event, .field = CP_PPROF_WEIGHT, .type = info->name,
		.unit = info->unit,
	};
	b->nr_cols = 2;
}

static int build(struct cp_profile *p, struct build *b, const struct cp_pprof_info *info)
{
	int64_t name, unit, type;
	size_t nr, nr_ids, i;
	int ret;

	b->used_loc = calloc(p->nr_locations + 1, 1);
	b->used_fn = calloc(p->nr_functions + 1, 1);
	b->used_map = calloc(p->nr_mappings + 1, 1);
	b->comments = calloc(info->nr_comments + 1, sizeof(*b->comments));
	if (!b->used_loc || !b->used_fn || !b->used_map || !b->comments)
		return -ENOMEM;
	columns(b, info);
	name = str(p, info->name);
	unit = str(p, info->unit);
	if (name < 0 || unit < 0)
		return -ENOMEM;
	for (i = 0; i < info->nr_comments; i++) {
		b->comments[i] = str(p, info->comments[i]);
		if (b->comments[i] < 0)
			return -ENOMEM;
	}

	perftools__profiles__profile__init(&b->prof);
	for (i = 0; i < b->nr_cols; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->types[i].type = str(p, b->cols[i].type);
		b->types[i].unit = str(p, b->cols[i].unit);
		if (b->types[i].type < 0 || b->types[i].unit < 0)
			return -ENOMEM;
		b->ptypes[i] = &b->types[i];
	}
	b->prof.sample_type = b->ptypes;
	b->prof.n_sample_type = b->nr_cols;
	if (info->default_type) {
		type = str(p, info->default_type);
		if (type < 0)
			return -ENOMEM;
		b->prof.default_sample_type = type;
	}
	perftools__profiles__value_type__init(&b->period_type);
	b->period_type.type = name;
	b->period_type.unit = unit;
	b->prof.period_type = &b->period_type;
	b->prof.period = info->period;
	b->prof.time_nanos = info->time_nanos;
	b->prof.duration_nanos = info->duration_nanos;
	b->prof.comment = b->comments;
	b->prof.n_comment = info->nr_comments;

	mark(p, b, &nr, &nr_ids);
	ret = build_samples(p, b, info, nr, nr_ids);
	if (!ret)
		ret = build_locations(p, b);
	if (!ret)
		ret = build_functions(p, b);
	if (!ret)
		ret = build_mappings(p, b, info->main);
	/* Last: the strings above are in it. */
	b->prof.string_table = (char **)p->strs.str;
	b->prof.n_string_table = p->strs.nr;
	return ret;
}

int cp_pprof_write(FILE *out, struct cp_profile *p, const struct cp_pprof_info *info)
{
	struct cp_pprof_gz *gz = info->gz ? info->gz : cp_pprof_gz_new();
	struct build b = { 0 };
	int ret;

	if (!gz)
		return -ENOMEM;
	ret = build(p, &b, info);
	if (!ret)
		ret = gz_start(gz, out);
	if (ret)
		goto out_free;
	perftools__profiles__profile__pack_to_buffer(&b.prof, &gz->base);
	if (!gz->err)
		gz_deflate(gz, NULL, 0, Z_FINISH);
	ret = gz->err;
	if (!ret && (fflush(out) || ferror(out)))
		ret = -EIO;
out_free:
	free_build(&b);
	if (gz != info->gz)
		cp_pprof_gz_free(gz);
	return ret;
}
