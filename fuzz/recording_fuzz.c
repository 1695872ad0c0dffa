// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the recording reader (user/recording.c): every
 * record of the input is taken apart with every typed view. Whatever the
 * input, reading must stop at its end or at the first damaged record, with
 * a reason, and every view must stay inside its record.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recording.h"

/* Touch every byte a view says is there, so ASan sees a bad one. */
static volatile uint8_t sink;

static void touch(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		sink ^= b[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct causalprof_off_cpu_count *oc;
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	const struct causalprof_off_cpu *w;
	const struct causalprof_end *e;
	uint64_t waits, lost, capped;
	const struct causalprof_mmap *m;
	const struct cp_rec_buildid *b;
	struct cp_rec_reader rd;
	const char *text;
	const void *img;
	uint64_t off, t;
	size_t len;
	int ret;

	if (cp_rec_open_mem(&rd, data, size))
		return 0;
	while ((ret = cp_rec_next(&rd, &h, &off)) > 0) {
		if (off + h->size > size || h->size < sizeof(*h) || h->size % 8)
			abort();
		if ((s = cp_rec_sample(h)))
			touch(s->ips, (s->nr_kernel + s->nr_user) * sizeof(*s->ips));
		if ((w = cp_rec_off_cpu(h)))
			touch(w->ips, (w->nr_kernel + w->nr_user) * sizeof(*w->ips));
		if ((oc = cp_rec_off_cpu_count(h)))
			touch(oc, sizeof(*oc));
		if ((m = cp_rec_mmap(h)))
			touch(m->path, strlen(m->path) + 1);
		if ((b = cp_rec_buildid(h)))
			touch(b->data, b->id_size + strlen((const char *)b->data + b->id_size) + 1);
		if ((text = cp_rec_text(h, &len)))
			touch(text, len);
		if ((img = cp_rec_vdso(h, &len)))
			touch(img, len);
		cp_rec_comm(h);
		cp_rec_task(h);
		cp_rec_lost(h);
		if ((e = cp_rec_end(h)))
			cp_rec_end_off_cpu(e, &waits, &lost, &capped);
		cp_rec_time(h, &t);
	}
	if (ret && ret != -ENODATA && ret != -EBADMSG)
		abort();
	if (ret && !rd.err[0])
		abort();
	/* The failure repeats: nothing after damage is read. */
	if (ret && cp_rec_next(&rd, &h, &off) != ret)
		abort();
	cp_rec_close(&rd);
	return 0;
}
