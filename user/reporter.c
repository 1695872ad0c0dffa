// SPDX-License-Identifier: GPL-2.0
/*
 * cprof record --every: the reporting thread. The recording thread submits
 * finished intervals under the lock and never waits for a report; this
 * thread takes the waiting one, reports it with the symbols it keeps, and
 * trims them. Everything but the slot and the counts is this thread's own.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksyms.h"
#include "pprof.h"
#include "reporter.h"

/*
 * Intervals may wait for the report under way as long as they span this
 * (at least one, at most MAX_WAITING): what the first report costs, which
 * opens and reads every file once, is caught up on afterwards.
 */
#define WAITING_SPAN_NS	60000000000ULL
#define MAX_WAITING	128
/* What cprof's resident size may grow by between two trims of malloc's free memory. */
#define TRIM_SLACK	(8 << 20)

struct cp_reporter {
	struct cp_every *e;
	bool symbolize;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Under the lock: a ring of the intervals waiting, oldest first */
	struct cp_every_interval waiting[MAX_WAITING];
	unsigned int first, nr, max;
	bool stopping;
	struct cp_reporter_stats st;

	/* The thread's own */
	struct cp_symbolizer *sym;
	struct cp_ksyms *ks;
	struct cp_pprof_gz *gz;
	char *modules;		/* /proc/modules when kallsyms was read */
	size_t modules_len;
	size_t trimmed_rss;	/* the resident size after the last trim, bytes */
	uint64_t let_go;	/* files evicted and names dropped at the last trim */
};

/* This process's resident size in bytes, from /proc/self/statm; 0 if unknown. */
static size_t resident(void)
{
	unsigned long pages, rss;
	char buf[128];
	ssize_t n;
	int fd;

	fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu", &pages, &rss) != 2)
		return 0;
	return rss * (size_t)sysconf(_SC_PAGESIZE);
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The kernel's functions, read again when the modules loaded have changed. */
static void refresh_ksyms(struct cp_reporter *rp)
{
	char *mods, *text;
	size_t mods_len, len;
	int err;

	err = cp_ksyms_read("/proc/modules", &mods, &mods_len);
	if (err) {
		mods = NULL;
		mods_len = 0;
	}
	if (rp->ks && mods && rp->modules && mods_len == rp->modules_len &&
	    !memcmp(mods, rp->modules, mods_len)) {
		free(mods);
		return;
	}
	free(rp->modules);
	rp->modules = mods;
	rp->modules_len = mods_len;
	cp_ksyms_free(rp->ks);
	rp->ks = NULL;
	rp->st.kallsyms_reads++;
	err = cp_ksyms_read("/proc/kallsyms", &text, &len);
	if (err) {
		if (rp->st.kallsyms_reads == 1)
			fprintf(stderr, "%s: warning: cannot read /proc/kallsyms (%s): kernel functions will not be named\n",
				rp->e->prog, strerror(-err));
		return;
	}
	rp->ks = cp_ksyms_new(text, len);
	free(text);
}

static void report(struct cp_reporter *rp, struct cp_every_interval *iv)
{
	double cpu = thread_cpu();
	struct cp_sym_stats sst;
	size_t rss;
	int ret;

	if (rp->symbolize)
		refresh_ksyms(rp);
	ret = cp_every_write(rp->e, iv, rp->sym, rp->ks, rp->gz);
	free(iv->data);
	iv->data = NULL;
	if (cp_sym_trim(rp->sym))
		fprintf(stderr, "%s: out of memory: the symbols kept were dropped\n", rp->e->prog);
	cp_sym_get_stats(rp->sym, &sst);
	/*
	 * What the reports allocated goes back to the system once cprof's
	 * resident size has grown by TRIM_SLACK since the last trim: malloc
	 * keeps freed memory, so cprof's RSS would stay that of its largest
	 * interval (see also cp_every_init()). Not at every report, nor
	 * whenever much is free (freed memory given back still counts as
	 * free): what a trim gives back, the next reports fault in again, a
	 * page at a time. But always when the cache let symbols go for its
	 * cap: what it keeps is then what cprof holds, and the cap bounds
	 * the resident size, not a sawtooth TRIM_SLACK high above it.
	 */
	rss = resident();
	if (rss > rp->trimmed_rss + TRIM_SLACK ||
	    sst.evictions + sst.names_dropped != rp->let_go) {
		malloc_trim(0);
		rp->trimmed_rss = resident();
		rp->let_go = sst.evictions + sst.names_dropped;
	}
	cpu = thread_cpu() - cpu;

	pthread_mutex_lock(&rp->lock);
	if (ret)
		rp->st.failed++;
	else
		rp->st.written++;
	if (!rp->st.reports++)
		rp->st.first_cpu = cpu;
	rp->st.sum_cpu += cpu;
	if (cpu > rp->st.max_cpu)
		rp->st.max_cpu = cpu;
	rp->st.sym = sst;
	pthread_mutex_unlock(&rp->lock);
}

static void *run(void *arg)
{
	struct cp_reporter *rp = arg;
	struct cp_every_interval iv;

	pthread_mutex_lock(&rp->lock);
	for (;;) {
		while (!rp->nr && !rp->stopping)
			pthread_cond_wait(&rp->cond, &rp->lock);
		if (!rp->nr)
			break;
		iv = rp->waiting[rp->first];
		rp->first = (rp->first + 1) % MAX_WAITING;
		rp->nr--;
		pthread_mutex_unlock(&rp->lock);
		report(rp, &iv);
		pthread_mutex_lock(&rp->lock);
	}
	pthread_mutex_unlock(&rp->lock);
	return NULL;
}

int cp_reporter_start(struct cp_reporter **rpp, struct cp_every *e, bool symbolize, size_t cap)
{
	struct cp_reporter *rp;
	int err;

	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->e = e;
	rp->symbolize = symbolize;
	rp->max = WAITING_SPAN_NS / e->interval_ns;
	rp->max = rp->max < 1 ? 1 : rp->max > MAX_WAITING ? MAX_WAITING : rp->max;
	rp->sym = cp_sym_new(NULL, stderr);
	rp->gz = cp_pprof_gz_new();
	if (!rp->sym || !rp->gz) {
		cp_sym_free(rp->sym);
		cp_pprof_gz_free(rp->gz);
		free(rp);
		return -ENOMEM;
	}
	if (!symbolize)
		cp_sym_set_offline(rp->sym);
	cp_sym_set_cap(rp->sym, cap);
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->cond, NULL);
	err = pthread_create(&rp->thread, NULL, run, rp);
	if (err) {
		pthread_cond_destroy(&rp->cond);
		pthread_mutex_destroy(&rp->lock);
		cp_sym_free(rp->sym);
		cp_pprof_gz_free(rp->gz);
		free(rp);
		return -err;
	}
	*rpp = rp;
	return 0;
}

int cp_reporter_submit(struct cp_reporter *rp, const struct cp_every_interval *iv)
{
	struct cp_every_interval old = { 0 };
	unsigned int skipped = 0, waiting;

	pthread_mutex_lock(&rp->lock);
	if (rp->nr == rp->max) {
		/* The oldest waiting goes: the newest are the ones wanted. */
		old = rp->waiting[rp->first];
		rp->first = (rp->first + 1) % MAX_WAITING;
		rp->nr--;
		skipped = ++rp->st.skipped;
	}
	rp->waiting[(rp->first + rp->nr++) % MAX_WAITING] = *iv;
	waiting = rp->nr;
	pthread_cond_signal(&rp->cond);
	pthread_mutex_unlock(&rp->lock);
	if (!old.data)
		return 0;
	fprintf(stderr, "%s: interval %u (%.3f s) skipped: %u intervals were waiting for the reports when interval %u ended (%u skipped so far)\n",
		rp->e->prog, old.index, old.duration_ns / 1e9, waiting, iv->index, skipped);
	free(old.data);
	return 1;
}

void cp_reporter_stop(struct cp_reporter *rp, struct cp_reporter_stats *st)
{
	if (!rp)
		return;
	pthread_mutex_lock(&rp->lock);
	rp->stopping = true;
	pthread_cond_signal(&rp->cond);
	pthread_mutex_unlock(&rp->lock);
	pthread_join(rp->thread, NULL);
	if (st)
		*st = rp->st;
	pthread_cond_destroy(&rp->cond);
	pthread_mutex_destroy(&rp->lock);
	cp_sym_free(rp->sym);
	cp_ksyms_free(rp->ks);
	cp_pprof_gz_free(rp->gz);
	free(rp->modules);
	free(rp);
}
