// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof labels of a Go target's running goroutine, read at each sample
 * (CAUSALPROF_A_GO_LABELS).
 *
 * Where: the Go runtime keeps the thread's current g in thread-local
 * storage, at a fixed offset from the FS base on linux/amd64 (-8 for a
 * program linked by Go's own linker). That g may be the thread's g0 or
 * signal g, so, as the runtime's own SIGPROF handler does, the labels are
 * those of g.m.curg, the user goroutine the thread runs (none while it
 * schedules). R14 holds g only while ABIInternal Go code runs, not in
 * assembly, in the vDSO or in the kernel: the TLS slot is always right.
 * current->thread.fsbase is the FS base the thread set with arch_prctl()
 * (as Go does); a program that changes it with WRFSBASE is not a Go one.
 *
 * What: g.labels points to a runtime/pprof labelMap, a map[string]string
 * (Go 1.9 to 1.23). A label set is made whole, then never written again
 * (pprof.WithLabels copies its parent's): a set of up to 8 labels is one
 * bucket (B == 0), read at once; a bigger one (B > 0, or growing) is read
 * from its first bucket only and cut. Every read is a bounded copy that
 * never faults a page in (copy_from_user_nofault, which also checks that
 * the addresses are user ones): in NMI or hard irq it cannot sleep, and a
 * page that is out is a fault, counted. The strings are copied as the map
 * holds them; the client sorts and names them (user/golabels.c).
 *
 * Why decode the map here rather than copy a raw snapshot for user space:
 * the map is three indirections deep (labels, hmap, bucket, then each
 * string) and gone by the time the client could read it; decoding one
 * bucket is a loop over eight slots, cheaper than copying the bytes a
 * decoder in user space would need, and the record keeps only the
 * strings, bounded by CAUSALPROF_GO_LABELS_MAX and _BYTES.
 *
 * The layout is set before the session's counters exist and cleared after
 * the last is released, so the handler reads it without further ado.
 */

#include "golabels.h"
#include "stats.h"

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* runtime.hmap on amd64, Go 1.9 to 1.23 */
struct go_hmap {
	u64 count;
	u8 flags;
	u8 B;
	u16 noverflow;
	u32 hash0;
	u64 buckets;
	u64 oldbuckets;
	u64 nevacuate;
	u64 extra;
};

/* A bucket's tophash of a used slot: runtime's minTopHash and above. */
#define GO_MIN_TOPHASH	5

static struct {
	struct cp_go_layout layout;
	pid_t tgid;
} go;

void cp_golabels_start(const struct cp_go_layout *layout, pid_t tgid)
{
	go.layout = *layout;
	go.tgid = tgid;
}

void cp_golabels_stop(void)
{
	go.layout.format = CAUSALPROF_GO_FORMAT_UNSPEC;
}

static bool read_user(void *dst, u64 addr, size_t size)
{
	return !copy_from_user_nofault(dst, (const void __user *)(unsigned long)addr, size);
}

/* The pointer at addr, 0 included: false on a fault. */
static bool read_ptr(u64 addr, u64 *ptr)
{
	return read_user(ptr, addr, sizeof(*ptr));
}

/*
 * Copies one string after the *used bytes of s->bytes: false if it does
 * not fit (*cut) or cannot be read (*fault).
 */
static bool copy_string(struct cp_go_scratch *s, const struct cp_go_string *str, u32 *used,
			bool *cut, bool *fault)
{
	if (str->len > CAUSALPROF_GO_LABELS_BYTES - *used) {
		*cut = true;
		return false;
	}
	if (str->len && !read_user(s->bytes + *used, str->ptr, str->len)) {
		*fault = true;
		return false;
	}
	*used += str->len;
	return true;
}

/* The labels of the map at hmap into s's block: their number. */
static int read_map(struct cp_go_scratch *s, u64 hmap, u16 *lens, u32 *used, bool *cut)
{
	struct cp_go_bucket *b = &s->bucket;
	struct go_hmap h;
	bool fault = false;
	u32 start;
	int nr = 0, i;

	if (!read_user(&h, hmap, sizeof(h)))
		return -EFAULT;
	if (!h.count)
		return 0;
	if (!h.buckets || h.B > 30)
		return -EINVAL;
	if (h.B || h.oldbuckets || h.count > CAUSALPROF_GO_LABELS_MAX)
		*cut = true;
	if (!read_user(b, h.buckets, sizeof(*b)))
		return -EFAULT;
	for (i = 0; i < CP_GO_BUCKET_CNT && nr < CAUSALPROF_GO_LABELS_MAX; i++) {
		if (b->tophash[i] < GO_MIN_TOPHASH)
			continue;
		start = *used;
		if (!copy_string(s, &b->keys[i], used, cut, &fault) ||
		    !copy_string(s, &b->values[i], used, cut, &fault)) {
			*used = start;
			break;
		}
		lens[2 * nr] = b->keys[i].len;
		lens[2 * nr + 1] = b->values[i].len;
		nr++;
	}
	if (fault)
		return -EFAULT;
	if ((u64)nr < h.count)
		*cut = true;
	return nr;
}

unsigned int cp_golabels_read(struct cp_go_scratch *s)
{
	struct causalprof_go_labels *hdr = (struct causalprof_go_labels *)s->block;
	const struct cp_go_layout *l = &go.layout;
	u16 lens[2 * CAUSALPROF_GO_LABELS_MAX];
	u64 g, m, curg, labels, hmap;
	u32 used = 0, size;
	bool cut = false;
	int nr;

	if (l->format != CAUSALPROF_GO_FORMAT_MAP || current->tgid != go.tgid ||
	    (current->flags & PF_KTHREAD) || !current->mm)
		return 0;
#ifdef CONFIG_X86_64
	/* None yet: the new image of an exec, before the runtime set it. */
	if (!current->thread.fsbase)
		return 0;
	if (!read_ptr(current->thread.fsbase + (s64)l->tls_g, &g))
		goto fault;
#else
	return 0;
#endif
	/* No g: a thread the runtime did not start. None running: no labels. */
	if (!g)
		return 0;
	if (!read_ptr(g + l->g_m, &m))
		goto fault;
	if (!m)
		return 0;
	if (!read_ptr(m + l->m_curg, &curg))
		goto fault;
	if (!curg)
		return 0;
	if (!read_ptr(curg + l->g_labels, &labels))
		goto fault;
	if (!labels)
		return 0;
	/* labels is a *labelMap: a map variable, itself a pointer */
	if (!read_ptr(labels, &hmap))
		goto fault;
	if (!hmap)
		return 0;
	nr = read_map(s, hmap, lens, &used, &cut);
	if (nr < 0)
		goto fault;
	if (!nr && !cut)
		return 0;

	hdr->nr = nr;
	hdr->flags = cut ? CAUSALPROF_GO_LABELS_F_CUT : 0;
	hdr->len = used;
	hdr->pad = 0;
	memcpy(hdr->lens, lens, 2 * nr * sizeof(lens[0]));
	memcpy((u8 *)&hdr->lens[2 * nr], s->bytes, used);
	size = sizeof(*hdr) + 2 * nr * sizeof(lens[0]) + used;
	memset((u8 *)hdr + size, 0, ALIGN(size, 8) - size);
	cp_stat_add(CAUSALPROF_STAT_GO_LABELS, 1);
	if (cut)
		cp_stat_add(CAUSALPROF_STAT_GO_LABELS_CUT, 1);
	return ALIGN(size, 8);

fault:
	cp_stat_add(CAUSALPROF_STAT_GO_LABELS_FAULT, 1);
	return 0;
}
