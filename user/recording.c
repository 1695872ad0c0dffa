// SPDX-License-Identifier: GPL-2.0
/*
 * Recording files: writing them as the stream arrives, and reading them back
 * without trusting a byte of them.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "recording.h"

#define HDR_SIZE	sizeof(struct causalprof_record_hdr)
#define ALIGN8(n)	(((n) + 7) & ~(size_t)7)

/* Room for @len more bytes in memory: twice what it had, or what it needs. */
static int mem_room(struct cp_rec_writer *w, size_t len)
{
	size_t cap = w->cap;
	unsigned char *mem;

	if (len <= cap - w->off)
		return 0;
	while (cap - w->off < len) {
		if (cap > SIZE_MAX / 2)
			return -EFBIG;
		cap *= 2;
	}
	mem = realloc(w->mem, cap);
	if (!mem)
		return -ENOMEM;
	w->mem = mem;
	w->cap = cap;
	return 0;
}

static int write_all(struct cp_rec_writer *w, const void *p, size_t len)
{
	if (w->err)
		return w->err;
	errno = 0;
	if (!w->f) {
		w->err = mem_room(w, len);
		if (w->err)
			return w->err;
		memcpy(w->mem + w->off, p, len);
	} else if (len && fwrite(p, 1, len, w->f) != len) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	w->off += len;
	return 0;
}

static int put_header(struct cp_rec_writer *w)
{
	struct cp_rec_file_hdr fh = {
		.version = CP_REC_VERSION,
		.hdr_size = sizeof(fh),
	};

	memcpy(fh.magic, CP_REC_MAGIC, sizeof(fh.magic));
	return write_all(w, &fh, sizeof(fh));
}

int cp_rec_create(struct cp_rec_writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->f = fopen(path, "we");
	if (!w->f)
		return -errno;
	return put_header(w);
}

int cp_rec_create_mem(struct cp_rec_writer *w, size_t size)
{
	memset(w, 0, sizeof(*w));
	w->cap = size > sizeof(struct cp_rec_file_hdr) ? size : 4096;
	w->mem = malloc(w->cap);
	if (!w->mem)
		return -ENOMEM;
	return put_header(w);
}

int cp_rec_putv(struct cp_rec_writer *w, uint16_t type, uint16_t flags,
		const struct iovec *iov, int iovcnt)
{
	static const char zeros[8];
	struct causalprof_record_hdr hdr = { .type = type, .flags = flags };
	size_t len = HDR_SIZE;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (ALIGN8(len) > UINT32_MAX) {
		if (!w->err)
			w->err = -EFBIG;
		return w->err;
	}
	hdr.size = ALIGN8(len);
	write_all(w, &hdr, sizeof(hdr));
	for (i = 0; i < iovcnt; i++)
		write_all(w, iov[i].iov_base, iov[i].iov_len);
	return write_all(w, zeros, hdr.size - len);
}

int cp_rec_put(struct cp_rec_writer *w, uint16_t type, const void *data, size_t len)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	return cp_rec_putv(w, type, 0, &iov, 1);
}

int cp_rec_put_raw(struct cp_rec_writer *w, const void *recs, size_t len)
{
	return write_all(w, recs, len);
}

int cp_rec_finish(struct cp_rec_writer *w)
{
	int err;

	if (!w->f) {
		free(w->mem);
		w->mem = NULL;
		return w->err;
	}
	errno = 0;
	if (fflush(w->f) && !w->err)
		w->err = errno ? -errno : -EIO;
	err = fclose(w->f) ? -errno : 0;
	if (!w->err)
		w->err = err;
	w->f = NULL;
	return w->err;
}

int cp_rec_finish_mem(struct cp_rec_writer *w, void **data, size_t *len)
{
	if (w->err)
		return cp_rec_finish(w);
	*data = w->mem;
	*len = w->off;
	w->mem = NULL;
	return 0;
}

int cp_rec_check(const void *p, size_t avail, uint32_t *size)
{
	struct causalprof_record_hdr hdr;

	if (avail < HDR_SIZE)
		return -ENODATA;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.size < HDR_SIZE || hdr.size % 8)
		return -EBADMSG;
	if (hdr.size > avail)
		return -ENODATA;
	*size = hdr.size;
	return 0;
}

/* The file header of the recording at r->map. */
static int check_header(struct cp_rec_reader *r)
{
	struct cp_rec_file_hdr fh;

	if (r->size < sizeof(fh)) {
		snprintf(r->err, sizeof(r->err), "not a cprof recording (%s)",
			 r->size ? "too short for a header" : "empty");
		return -EINVAL;
	}
	memcpy(&fh, r->map, sizeof(fh));
	if (memcmp(fh.magic, CP_REC_MAGIC, sizeof(fh.magic))) {
		snprintf(r->err, sizeof(r->err), "not a cprof recording (no %s magic)",
			 CP_REC_MAGIC);
		return -EINVAL;
	}
	if (fh.version < CP_REC_VERSION_MIN || fh.version > CP_REC_VERSION) {
		uint32_t swapped = __builtin_bswap32(fh.version);

		if (swapped >= CP_REC_VERSION_MIN && swapped <= CP_REC_VERSION)
			snprintf(r->err, sizeof(r->err),
				 "recorded on a machine of the other byte order");
		else
			snprintf(r->err, sizeof(r->err),
				 "recording format version %" PRIu32 "; this cprof reads versions %d to %d",
				 fh.version, CP_REC_VERSION_MIN, CP_REC_VERSION);
		return -EINVAL;
	}
	if (fh.hdr_size < sizeof(fh) || fh.hdr_size % 8 || fh.hdr_size > r->size) {
		snprintf(r->err, sizeof(r->err), "corrupt file header: header size %" PRIu32,
			 fh.hdr_size);
		return -EINVAL;
	}
	r->version = fh.version;
	r->hdr_size = fh.hdr_size;
	r->off = fh.hdr_size;
	return 0;
}

int cp_rec_open(struct cp_rec_reader *r, const char *path)
{
	struct stat st;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(r->err, sizeof(r->err), "%s", strerror(errno));
		return ret;
	}
	if (fstat(r->fd, &st)) {
		ret = -errno;
		snprintf(r->err, sizeof(r->err), "%s", strerror(errno));
		goto err_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(r->err, sizeof(r->err), "not a regular file");
		goto err_close;
	}
	r->size = st.st_size;
	if (r->size < sizeof(struct cp_rec_file_hdr)) {
		ret = check_header(r);
		goto err_close;
	}
	r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		snprintf(r->err, sizeof(r->err), "cannot map it: %s", strerror(errno));
		r->map = NULL;
		goto err_close;
	}
	ret = check_header(r);
	if (ret)
		goto err_unmap;
	madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
	return 0;

err_unmap:
	munmap((void *)r->map, r->size);
	r->map = NULL;
err_close:
	close(r->fd);
	r->fd = -1;
	return ret;
}

int cp_rec_open_mem(struct cp_rec_reader *r, const void *data, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->map = data;
	r->size = size;
	return check_header(r);
}

int cp_rec_next(struct cp_rec_reader *r, const struct causalprof_record_hdr **rec,
		uint64_t *off)
{
	const struct causalprof_record_hdr *h;
	size_t avail = r->size - r->off;
	uint32_t size;
	int ret;

	if (!avail)
		return 0;
	ret = cp_rec_check(r->map + r->off, avail, &size);
	if (ret == -ENODATA) {
		h = (const void *)(r->map + r->off);
		if (avail < sizeof(*h))
			snprintf(r->err, sizeof(r->err), "truncated at offset %zu", r->off);
		else
			snprintf(r->err, sizeof(r->err),
				 "truncated at offset %zu (a record of %" PRIu32 " bytes, %zu left)",
				 r->off, h->size, avail);
		return ret;
	}
	if (ret) {
		h = (const void *)(r->map + r->off);
		snprintf(r->err, sizeof(r->err),
			 "corrupt record at offset %zu: size %" PRIu32 " is %s", r->off,
			 h->size, h->size < HDR_SIZE ? "smaller than a record header" :
			 "not a multiple of 8");
		return ret;
	}
	*rec = (const void *)(r->map + r->off);
	if (off)
		*off = r->off;
	r->off += size;
	return 1;
}

void cp_rec_rewind(struct cp_rec_reader *r)
{
	r->off = r->hdr_size;
	r->released = 0;
}

void cp_rec_release(struct cp_rec_reader *r, size_t upto)
{
	size_t page = sysconf(_SC_PAGESIZE), start = r->released, end;

	if (r->fd < 0 || upto > r->size)
		return;
	end = upto & ~(page - 1);
	if (end <= start)
		return;
	madvise((void *)(r->map + start), end - start, MADV_DONTNEED);
	r->released = end;
}

void cp_rec_close(struct cp_rec_reader *r)
{
	/* Only a file's map is ours. */
	if (r->map && r->fd >= 0)
		munmap((void *)r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}

static const void *view(const struct causalprof_record_hdr *h, uint16_t type, size_t min)
{
	return h->type == type && h->size >= min ? h : NULL;
}

/* A NUL within the @len bytes at @s. */
static bool terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len);
}

const struct causalprof_sample *cp_rec_sample(const struct causalprof_record_hdr *h)
{
	const struct causalprof_sample *s = view(h, CAUSALPROF_REC_SAMPLE, sizeof(*s));

	if (s && (h->size - sizeof(*s)) / 8 < (size_t)s->nr_kernel + s->nr_user)
		return NULL;
	return s;
}

const struct causalprof_mmap *cp_rec_mmap(const struct causalprof_record_hdr *h)
{
	const struct causalprof_mmap *m = view(h, CAUSALPROF_REC_MMAP, sizeof(*m) + 1);

	if (m && !terminated(m->path, h->size - sizeof(*m)))
		return NULL;
	return m;
}

const struct causalprof_comm *cp_rec_comm(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_COMM, sizeof(struct causalprof_comm));
}

const struct causalprof_task *cp_rec_task(const struct causalprof_record_hdr *h)
{
	if (h->type != CAUSALPROF_REC_FORK && h->type != CAUSALPROF_REC_EXIT)
		return NULL;
	return view(h, h->type, sizeof(struct causalprof_task));
}

const struct causalprof_lost *cp_rec_lost(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_LOST, sizeof(struct causalprof_lost));
}

/* An END of before aggregation has no fallback: 0 then (see cp_rec_end_fallback()). */
const struct causalprof_end *cp_rec_end(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_END, offsetof(struct causalprof_end, fallback));
}

uint64_t cp_rec_end_fallback(const struct causalprof_end *e)
{
	return e->hdr.size >= sizeof(*e) ? e->fallback : 0;
}

const struct causalprof_stack *cp_rec_stack(const struct causalprof_record_hdr *h)
{
	const struct causalprof_stack *s = view(h, CAUSALPROF_REC_STACK, sizeof(*s));

	if (s && (h->size - sizeof(*s)) / 8 < (size_t)s->nr_kernel + s->nr_user)
		return NULL;
	return s;
}

const struct causalprof_count *cp_rec_count(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_COUNT, sizeof(struct causalprof_count));
}

const struct causalprof_off_cpu *cp_rec_off_cpu(const struct causalprof_record_hdr *h)
{
	const struct causalprof_off_cpu *w = view(h, CAUSALPROF_REC_OFF_CPU, sizeof(*w));

	if (w && (h->size - sizeof(*w)) / 8 < (size_t)w->nr_kernel + w->nr_user)
		return NULL;
	return w;
}

const struct causalprof_off_cpu_count *cp_rec_off_cpu_count(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_OFF_CPU_COUNT, sizeof(struct causalprof_off_cpu_count));
}

void cp_rec_end_off_cpu(const struct causalprof_end *e, uint64_t *waits, uint64_t *lost,
			uint64_t *capped)
{
	bool has = e->hdr.size >= offsetof(struct causalprof_end, off_cpu_capped) +
				  sizeof(e->off_cpu_capped);

	*waits = has ? e->off_cpu : 0;
	*lost = has ? e->off_cpu_lost : 0;
	*capped = has ? e->off_cpu_capped : 0;
}

const struct causalprof_denied *cp_rec_denied(const struct causalprof_record_hdr *h)
{
	return view(h, CAUSALPROF_REC_DENIED, sizeof(struct causalprof_denied));
}

const struct causalprof_experiment *cp_rec_experiment(const struct causalprof_record_hdr *h)
{
	const struct causalprof_experiment *e = view(h, CAUSALPROF_REC_EXPERIMENT, sizeof(*e));

	size_t need;

	if (!e)
		return NULL;
	need = (size_t)e->nr_ranges * sizeof(struct causalprof_exp_range) +
	       (size_t)e->nr_points * sizeof(struct causalprof_exp_point);
	if (h->flags & CAUSALPROF_EXP_F_SPANS)
		need += (size_t)e->nr_points * sizeof(struct causalprof_exp_span);
	if (h->flags & CAUSALPROF_EXP_F_ACCT)
		need += sizeof(struct causalprof_exp_acct);
	if (h->flags & CAUSALPROF_EXP_F_VISITS)
		need += sizeof(struct causalprof_exp_visits);
	return h->size - sizeof(*e) < need ? NULL : e;
}

const struct causalprof_exp_range *cp_exp_ranges(const struct causalprof_experiment *e)
{
	return (const struct causalprof_exp_range *)(e + 1);
}

const struct causalprof_exp_point *cp_exp_points(const struct causalprof_experiment *e)
{
	return (const struct causalprof_exp_point *)(cp_exp_ranges(e) + e->nr_ranges);
}

const struct causalprof_exp_span *cp_exp_spans(const struct causalprof_experiment *e)
{
	if (!(e->hdr.flags & CAUSALPROF_EXP_F_SPANS))
		return NULL;
	return (const struct causalprof_exp_span *)(cp_exp_points(e) + e->nr_points);
}

/* Its accounting (CAUSALPROF_EXP_F_ACCT), or NULL (recorded before it). */
const struct causalprof_exp_acct *cp_exp_acct(const struct causalprof_experiment *e)
{
	const void *after = cp_exp_points(e) + e->nr_points;

	if (!(e->hdr.flags & CAUSALPROF_EXP_F_ACCT))
		return NULL;
	if (e->hdr.flags & CAUSALPROF_EXP_F_SPANS)
		after = (const struct causalprof_exp_span *)after + e->nr_points;
	return after;
}

/* Its visits counted as pauses (CAUSALPROF_EXP_F_VISITS, after the accounting), or NULL. */
const struct causalprof_exp_visits *cp_exp_visits(const struct causalprof_experiment *e)
{
	const struct causalprof_exp_acct *ac = cp_exp_acct(e);

	if (!ac || !(e->hdr.flags & CAUSALPROF_EXP_F_VISITS))
		return NULL;
	return (const struct causalprof_exp_visits *)(ac + 1);
}

const struct cp_rec_buildid *cp_rec_buildid(const struct causalprof_record_hdr *h)
{
	const struct cp_rec_buildid *b = view(h, CP_REC_BUILDID, sizeof(*b) + 1);
	size_t room;

	if (!b)
		return NULL;
	room = h->size - sizeof(*b);
	if (b->id_size >= room || !terminated((const char *)b->data + b->id_size,
					      room - b->id_size))
		return NULL;
	return b;
}

const struct cp_rec_progress *cp_rec_progress(const struct causalprof_record_hdr *h)
{
	const struct cp_rec_progress *p = view(h, CP_REC_PROGRESS, sizeof(*p) + 2);
	size_t room, name;

	if (!p)
		return NULL;
	room = h->size - sizeof(*p);
	if (!terminated(p->text, room))
		return NULL;
	name = strlen(p->text) + 1;
	return terminated(p->text + name, room - name) ? p : NULL;
}

const char *cp_progress_spec(const struct cp_rec_progress *p)
{
	return p->text + strlen(p->text) + 1;
}

const struct causalprof_exp_point *cp_causal_points(const struct cp_rec_causal *c)
{
	return (const struct causalprof_exp_point *)(c + 1);
}

const char *cp_causal_line(const struct cp_rec_causal *c)
{
	return (const char *)(cp_causal_points(c) + c->nr_points);
}

const char *cp_causal_func(const struct cp_rec_causal *c)
{
	const char *line = cp_causal_line(c);

	return line + strlen(line) + 1;
}

const struct cp_rec_causal *cp_rec_causal(const struct causalprof_record_hdr *h)
{
	const struct cp_rec_causal *c = view(h, CP_REC_CAUSAL, sizeof(*c));
	size_t room, points, line;

	if (!c)
		return NULL;
	room = h->size - sizeof(*c);
	points = (size_t)c->nr_points * sizeof(struct causalprof_exp_point);
	if (points >= room || !terminated(cp_causal_line(c), room - points))
		return NULL;
	line = strlen(cp_causal_line(c)) + 1;
	if (!terminated(cp_causal_line(c) + line, room - points - line))
		return NULL;
	return c;
}

const struct cp_rec_perfmap *cp_rec_perfmap(const struct causalprof_record_hdr *h,
					    const char **text, size_t *len)
{
	const struct cp_rec_perfmap *m = view(h, CP_REC_PERFMAP, sizeof(*m));

	if (!m)
		return NULL;
	*text = m->text;
	*len = strnlen(m->text, h->size - sizeof(*m));
	return m;
}

const void *cp_rec_vdso(const struct causalprof_record_hdr *h, size_t *len)
{
	if (h->type != CP_REC_VDSO)
		return NULL;
	*len = h->size - HDR_SIZE;
	return h + 1;
}

const char *cp_rec_text(const struct causalprof_record_hdr *h, size_t *len)
{
	const char *text = (const char *)(h + 1);

	if (h->type != CP_REC_META && h->type != CP_REC_KALLSYMS)
		return NULL;
	*len = strnlen(text, h->size - HDR_SIZE);
	return text;
}

bool cp_rec_time(const struct causalprof_record_hdr *h, uint64_t *time_ns)
{
	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
	case CAUSALPROF_REC_MMAP:
	case CAUSALPROF_REC_COMM:
	case CAUSALPROF_REC_FORK:
	case CAUSALPROF_REC_EXIT:
	case CAUSALPROF_REC_LOST:
	case CAUSALPROF_REC_END:
	case CAUSALPROF_REC_EXPERIMENT:
	case CAUSALPROF_REC_COUNT:
	case CAUSALPROF_REC_DENIED:
	case CAUSALPROF_REC_OFF_CPU:
	case CAUSALPROF_REC_OFF_CPU_COUNT:
		if (h->size < HDR_SIZE + sizeof(uint64_t))
			return false;
		memcpy(time_ns, h + 1, sizeof(*time_ns));
		return true;
	}
	return false;
}
