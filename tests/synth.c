// SPDX-License-Identifier: GPL-2.0
/*
 * Report test helpers: probe programs, recordings written by hand, cprof
 * run as a child with its output captured.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "helpers/path.h"
#include "synth.h"

/* A stream record's body, after the header cp_rec_putv() writes. */
#define BODY(rec) { .iov_base = (char *)&(rec) + sizeof((rec).hdr),	\
		    .iov_len = sizeof(rec) - sizeof((rec).hdr) }

static void parse_line(struct sym_run *run, const char *line)
{
	struct sym_probe *p;
	struct sym_map *m;

	if (!strncmp(line, "probe ", 6) && run->nr_probes < (int)(sizeof(run->probes) /
								   sizeof(*p))) {
		p = &run->probes[run->nr_probes];
		memset(p, 0, sizeof(*p));
		if (sscanf(line, "probe %15s %" SCNx64 " %63s %63s %d %d %63s", p->kind, &p->addr,
			   p->func, p->outer, &p->line, &p->call_line, p->file) >= 3)
			run->nr_probes++;
	} else if (!strncmp(line, "map ", 4) && run->nr_maps < (int)(sizeof(run->maps) /
								    sizeof(*m))) {
		m = &run->maps[run->nr_maps];
		if (sscanf(line, "map %" SCNx64 " %" SCNx64 " %" SCNx64 " %511s", &m->start,
			   &m->end, &m->pgoff, m->path) == 4)
			run->nr_maps++;
	}
}

int synth_probe(const char *prog, const char *arg, struct sym_run *run)
{
	char cmd[2 * PATH_MAX + 32], line[1024];
	FILE *f;
	int status;

	memset(run, 0, sizeof(*run));
	snprintf(cmd, sizeof(cmd), "'%s' probe %s%s%s", prog, arg ? "'" : "", arg ? arg : "",
		 arg ? "'" : "");
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		parse_line(run, line);
	status = pclose(f);
	if (status == -1)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

const struct sym_probe *synth_find_probe(const struct sym_run *run, const char *kind)
{
	int i;

	for (i = 0; i < run->nr_probes; i++)
		if (!strcmp(run->probes[i].kind, kind))
			return &run->probes[i];
	return NULL;
}

const struct sym_map *synth_find_map(const struct sym_run *run, uint64_t addr)
{
	int i;

	for (i = 0; i < run->nr_maps; i++)
		if (addr >= run->maps[i].start && addr < run->maps[i].end)
			return &run->maps[i];
	return NULL;
}

int synth_begin(struct synth *s, const char *path, uint32_t target, const char *const *names,
		int nr)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i, ret;

	memset(s, 0, sizeof(*s));
	s->time = 1000000000;
	ret = cp_rec_create(&s->w, path);
	if (ret)
		return ret;
	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	fprintf(f, "cprof_version=0.1.0\nhostname=synth\nkernel_release=6.1.0-test\n"
		"start_time=2025-01-31T12:00:00.250Z\nstart_monotonic_ns=%" PRIu64 "\n"
		"target=%" PRIu32 "\ncommand=symtarget probe\nevents=%d\n", s->time, target, nr);
	for (i = 0; i < nr; i++) {
		bool clock = !strcmp(names[i], "cpu-clock");

		fprintf(f, "event.%d.name=%s\nevent.%d.type=%d\nevent.%d.config=0x%x\n"
			"event.%d.period=%d\nevent.%d.freq=%d\n", i, names[i], i, clock ? 1 : 0,
			i, clock ? 0 : 1, i, clock ? 0 : 100000, i, clock ? 1000 : 0);
	}
	fclose(f);
	ret = cp_rec_put(&s->w, CP_REC_META, text, len);
	free(text);
	return ret;
}

void synth_mmap(struct synth *s, uint32_t pid, const struct sym_map *m)
{
	struct causalprof_mmap rec = {
		.time_ns = s->time++, .pid = pid, .start = m->start, .len = m->end - m->start,
		.pgoff = m->pgoff,
	};
	struct iovec iov[2] = {
		BODY(rec),
		{ .iov_base = (void *)m->path, .iov_len = strlen(m->path) + 1 },
	};

	cp_rec_putv(&s->w, CAUSALPROF_REC_MMAP, 0, iov, 2);
}

void synth_maps(struct synth *s, uint32_t pid, const struct sym_run *run)
{
	int i;

	for (i = 0; i < run->nr_maps; i++)
		synth_mmap(s, pid, &run->maps[i]);
}

void synth_comm(struct synth *s, uint32_t pid, uint32_t tid, const char *comm, uint16_t flags)
{
	struct causalprof_comm rec = { .time_ns = s->time++, .pid = pid, .tid = tid };
	struct iovec iov = BODY(rec);

	strncpy(rec.comm, comm, sizeof(rec.comm) - 1);
	cp_rec_putv(&s->w, CAUSALPROF_REC_COMM, flags, &iov, 1);
}

void synth_sample(struct synth *s, uint32_t pid, uint32_t tid, uint8_t event, uint64_t period,
		  int nr_kernel, int nr_user, const uint64_t *ips)
{
	struct causalprof_sample rec = {
		.time_ns = s->time++, .period = period, .pid = pid, .tid = tid, .event = event,
		.sflags = nr_kernel ? 0 : CAUSALPROF_SAMPLE_F_USER,
		.nr_kernel = nr_kernel, .nr_user = nr_user,
	};
	struct iovec iov[2] = {
		BODY(rec),
		{ .iov_base = (void *)ips, .iov_len = (nr_kernel + nr_user) * sizeof(*ips) },
	};

	cp_rec_putv(&s->w, CAUSALPROF_REC_SAMPLE, 0, iov, 2);
}

void synth_lost(struct synth *s, uint64_t lost)
{
	struct causalprof_lost rec = { .time_ns = s->time++, .lost = lost };
	struct iovec iov = BODY(rec);

	cp_rec_putv(&s->w, CAUSALPROF_REC_LOST, 0, &iov, 1);
}

void synth_end(struct synth *s, uint64_t samples, uint64_t lost)
{
	struct causalprof_end rec = { .time_ns = s->time++, .samples = samples, .lost = lost };
	struct iovec iov = BODY(rec);

	cp_rec_putv(&s->w, CAUSALPROF_REC_END, 0, &iov, 1);
}

void synth_off_cpu(struct synth *s, uint32_t pid, uint32_t tid, uint64_t wait_ns,
		   uint64_t delay_ns, uint8_t reason, int nr_kernel, int nr_user,
		   const uint64_t *ips)
{
	struct causalprof_off_cpu rec = {
		.time_ns = s->time++, .wait_ns = wait_ns, .delay_ns = delay_ns, .pid = pid,
		.tid = tid, .reason = reason, .nr_kernel = nr_kernel, .nr_user = nr_user,
	};
	struct iovec iov[2] = {
		BODY(rec),
		{ .iov_base = (void *)ips, .iov_len = (nr_kernel + nr_user) * sizeof(*ips) },
	};

	cp_rec_putv(&s->w, CAUSALPROF_REC_OFF_CPU, 0, iov, 2);
}

void synth_stack(struct synth *s, uint64_t id, int nr_kernel, int nr_user, const uint64_t *ips)
{
	struct causalprof_stack rec = { .id = id, .nr_kernel = nr_kernel, .nr_user = nr_user };
	struct iovec iov[2] = {
		BODY(rec),
		{ .iov_base = (void *)ips, .iov_len = (nr_kernel + nr_user) * sizeof(*ips) },
	};

	cp_rec_putv(&s->w, CAUSALPROF_REC_STACK, 0, iov, 2);
}

void synth_off_cpu_count(struct synth *s, uint32_t pid, uint32_t tid, uint64_t id,
			 uint64_t count, uint64_t wait_ns, uint64_t delay_ns, uint8_t reason)
{
	struct causalprof_off_cpu_count rec = {
		.time_ns = s->time++, .stack = id, .count = count, .wait_ns = wait_ns,
		.delay_ns = delay_ns, .pid = pid, .tid = tid, .reason = reason,
	};
	struct iovec iov = BODY(rec);

	cp_rec_putv(&s->w, CAUSALPROF_REC_OFF_CPU_COUNT, 0, &iov, 1);
}

void synth_end_waits(struct synth *s, uint64_t samples, uint64_t waits, uint64_t lost,
		     uint64_t capped)
{
	struct causalprof_end rec = {
		.time_ns = s->time++, .samples = samples, .off_cpu = waits, .off_cpu_lost = lost,
		.off_cpu_capped = capped,
	};
	struct iovec iov = BODY(rec);

	cp_rec_putv(&s->w, CAUSALPROF_REC_END, 0, &iov, 1);
}

void synth_experiment(struct synth *s, const struct causalprof_experiment *e, uint16_t flags,
		       const struct causalprof_exp_range *ranges,
		       const struct causalprof_exp_point *points)
{
	struct causalprof_experiment rec = *e;
	struct iovec iov[3] = {
		BODY(rec),
		{ .iov_base = (void *)ranges, .iov_len = e->nr_ranges * sizeof(*ranges) },
		{ .iov_base = (void *)points, .iov_len = e->nr_points * sizeof(*points) },
	};

	rec.time_ns = s->time++;
	cp_rec_putv(&s->w, CAUSALPROF_REC_EXPERIMENT, flags, iov, 3);
}

void synth_experiment_spans(struct synth *s, const struct causalprof_experiment *e,
			    const struct causalprof_exp_range *ranges,
			    const struct causalprof_exp_point *points,
			    const struct causalprof_exp_span *spans)
{
	struct causalprof_experiment rec = *e;
	struct iovec iov[4] = {
		BODY(rec),
		{ .iov_base = (void *)ranges, .iov_len = e->nr_ranges * sizeof(*ranges) },
		{ .iov_base = (void *)points, .iov_len = e->nr_points * sizeof(*points) },
		{ .iov_base = (void *)spans, .iov_len = e->nr_points * sizeof(*spans) },
	};

	rec.time_ns = s->time++;
	cp_rec_putv(&s->w, CAUSALPROF_REC_EXPERIMENT, CAUSALPROF_EXP_F_SPANS, iov, 4);
}

/*
 * An experiment with its accounting (CAUSALPROF_EXP_F_ACCT), no spans, and
 * its visits counted as pauses (CAUSALPROF_EXP_F_VISITS) unless NULL.
 */
static void put_experiment_acct(struct synth *s, const struct causalprof_experiment *e,
				const struct causalprof_exp_range *ranges,
				const struct causalprof_exp_point *points,
				const struct causalprof_exp_acct *acct,
				const struct causalprof_exp_visits *visits)
{
	struct causalprof_experiment rec = *e;
	struct iovec iov[5] = {
		BODY(rec),
		{ .iov_base = (void *)ranges, .iov_len = e->nr_ranges * sizeof(*ranges) },
		{ .iov_base = (void *)points, .iov_len = e->nr_points * sizeof(*points) },
		{ .iov_base = (void *)acct, .iov_len = sizeof(*acct) },
		{ .iov_base = (void *)visits, .iov_len = sizeof(*visits) },
	};

	rec.time_ns = s->time++;
	cp_rec_putv(&s->w, CAUSALPROF_REC_EXPERIMENT,
		    CAUSALPROF_EXP_F_ACCT | (visits ? CAUSALPROF_EXP_F_VISITS : 0), iov,
		    visits ? 5 : 4);
}

void synth_experiment_acct(struct synth *s, const struct causalprof_experiment *e,
			   const struct causalprof_exp_range *ranges,
			   const struct causalprof_exp_point *points,
			   const struct causalprof_exp_acct *acct)
{
	put_experiment_acct(s, e, ranges, points, acct, NULL);
}

void synth_experiment_visits(struct synth *s, const struct causalprof_experiment *e,
			     const struct causalprof_exp_range *ranges,
			     const struct causalprof_exp_point *points,
			     const struct causalprof_exp_acct *acct,
			     const struct causalprof_exp_visits *visits)
{
	put_experiment_acct(s, e, ranges, points, acct, visits);
}

void synth_progress(struct synth *s, uint32_t id, const char *name, const char *spec)
{
	struct cp_rec_progress rec = {
		.id = id, .kind = CAUSALPROF_PP_THROUGHPUT, .source = CP_PP_UPROBE,
	};
	struct iovec iov[3] = {
		BODY(rec),
		{ .iov_base = (void *)name, .iov_len = strlen(name) + 1 },
		{ .iov_base = (void *)spec, .iov_len = strlen(spec) + 1 },
	};

	cp_rec_putv(&s->w, CP_REC_PROGRESS, 0, iov, 3);
}

void synth_causal(struct synth *s, uint32_t exp_id, const char *line, const char *func,
		  const struct causalprof_exp_point *points, uint16_t nr_points)
{
	struct cp_rec_causal rec = { .exp_id = exp_id, .nr_points = nr_points };
	struct iovec iov[4] = {
		BODY(rec),
		{ .iov_base = (void *)points, .iov_len = nr_points * sizeof(*points) },
		{ .iov_base = (void *)line, .iov_len = strlen(line) + 1 },
		{ .iov_base = (void *)func, .iov_len = strlen(func) + 1 },
	};

	cp_rec_putv(&s->w, CP_REC_CAUSAL, 0, iov, 4);
}

void synth_kallsyms(struct synth *s, const char *text)
{
	cp_rec_put(&s->w, CP_REC_KALLSYMS, text, strlen(text));
}

int synth_finish(struct synth *s)
{
	return cp_rec_finish(&s->w);
}

size_t synth_vdso(const void **image)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	char line[256];
	size_t size = 0;
	FILE *f;

	*image = (const void *)base;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start == base)
			size = end - start;
	fclose(f);
	return size;
}

static void put_vdso(struct synth *s, uint64_t off)
{
	const void *image;
	size_t size = synth_vdso(&image);
	struct sym_map m = { .start = SYNTH_VDSO, .end = SYNTH_VDSO + size };
	uint64_t ips[1] = { SYNTH_VDSO + off };

	strcpy(m.path, "[vdso]");
	cp_rec_put(&s->w, CP_REC_VDSO, image, size);
	synth_mmap(s, SYNTH_PID, &m);
	synth_sample(s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 0, 1, ips);
}

int synth_standard(const char *path, const struct sym_run *run, uint64_t vdso_off)
{
	static const char *const events[] = { "cpu-clock" };
	const struct sym_probe *main_p = synth_find_probe(run, "main");
	const struct sym_probe *lib_p = synth_find_probe(run, "lib");
	const struct sym_probe *libc_p = synth_find_probe(run, "libc");
	struct synth s;
	uint64_t ips[4];
	int i, ret;

	if (!main_p || !lib_p || !libc_p)
		return -ENOENT;
	ret = synth_begin(&s, path, SYNTH_PID, events, 1);
	if (ret)
		return ret;
	synth_comm(&s, SYNTH_PID, SYNTH_PID, "symtarget", 0);
	synth_comm(&s, SYNTH_PID, SYNTH_PID + 1, "worker", 0);
	synth_maps(&s, SYNTH_PID, run);
	for (i = 0; i < 60; i++) {
		ips[0] = libc_p->addr;
		ips[1] = main_p->addr;
		synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 0, 2, ips);
	}
	for (i = 0; i < 30; i++) {
		ips[0] = libc_p->addr;
		ips[1] = lib_p->addr;
		synth_sample(&s, SYNTH_PID, SYNTH_PID + 1, 0, SYNTH_PERIOD, 0, 2, ips);
	}
	for (i = 0; i < 10; i++) {
		ips[0] = SYNTH_KIP0;
		ips[1] = SYNTH_KIP1;
		ips[2] = main_p->addr;
		synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 2, 1, ips);
	}
	for (i = 0; i < 5; i++) {
		ips[0] = SYNTH_UNKNOWN;
		synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 0, 1, ips);
	}
	if (vdso_off)
		put_vdso(&s, vdso_off);
	synth_lost(&s, 5);
	synth_end(&s, 105 + !!vdso_off, 5);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	return synth_finish(&s);
}

static const char *cprof_path(char *buf, size_t size)
{
	const char *env = getenv("CPROF");

	if (env && *env)
		return env;
	if (cp_build_path("../../user/cprof", buf, size))
		return "cprof";
	return buf;
}

/* Everything readable from @fd into a malloc'ed string. */
static char *read_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *more;
	ssize_t n;

	if (!buf)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			more = realloc(buf, cap * 2);
			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	return buf;
}

static int run_cprof(char *const argv[], int out_fd, char **out, char **err);

/* An anonymous scratch file; O_TMPFILE where the file system has it. */
static int scratch_fd(void)
{
	char name[] = "/tmp/synth.XXXXXX";
	int fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	fd = mkstemp(name);
	if (fd >= 0)
		unlink(name);
	return fd;
}

/*
 * Runs cprof with argv; its exit status (128 + signal if killed), or
 * -errno if it could not be run. *out and *err are always set (when
 * asked for) to what cprof printed, or to a message saying why it did
 * not run, so callers may compare them without checking for NULL.
 */
static int run(char *const argv[], int out_fd, char **out, char **err)
{
	int ret = run_cprof(argv, out_fd, out, err);
	char msg[128];

	snprintf(msg, sizeof(msg), "synth: cannot run cprof: %s", strerror(-ret));
	if (out && !*out)
		*out = strdup(ret < 0 ? msg : "");
	if (err && !*err)
		*err = strdup(ret < 0 ? msg : "");
	return ret;
}

static int run_cprof(char *const argv[], int out_fd, char **out, char **err)
{
	char path[PATH_MAX], *args[64];
	int ofd = -1, efd = -1, status, i, ret;
	pid_t pid;

	args[0] = (char *)cprof_path(path, sizeof(path));
	for (i = 0; argv[i] && i < 62; i++)
		args[i + 1] = argv[i];
	args[i + 1] = NULL;
	if (out)
		*out = NULL;
	if (err)
		*err = NULL;
	if (out_fd < 0) {
		ofd = scratch_fd();
		if (ofd < 0)
			return -errno;
		out_fd = ofd;
	}
	efd = scratch_fd();
	if (efd < 0) {
		ret = -errno;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (!pid) {
		signal(SIGPIPE, SIG_DFL);
		dup2(out_fd, 1);
		dup2(efd, 2);
		execv(args[0], args);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		ret = -errno;
		goto out;
	}
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out && ofd >= 0)
		*out = read_fd(ofd);
	if (err)
		*err = read_fd(efd);
out:
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return ret;
}

int synth_cprof(char *const argv[], char **out, char **err)
{
	return run(argv, -1, out, err);
}

int synth_cprof_fd(char *const argv[], int fd, char **err)
{
	return run(argv, fd, NULL, err);
}

int synth_slurp(const char *path, unsigned char **data, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	*data = malloc(st.st_size + 1);
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *data, st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(*data);
		return -EIO;
	}
	*len = n;
	return 0;
}

int synth_gunzip(const char *path, unsigned char **data, size_t *len)
{
	size_t cap = 1 << 16;
	unsigned char buf[1 << 14], *more;
	gzFile gz;
	int n;

	gz = gzopen(path, "rb");
	if (!gz)
		return -errno ? -errno : -ENOMEM;
	/* A gzip stream only: gzread would pass plain data through. */
	if (gzdirect(gz)) {
		gzclose(gz);
		return -EBADMSG;
	}
	*len = 0;
	*data = malloc(cap);
	if (!*data) {
		gzclose(gz);
		return -ENOMEM;
	}
	while ((n = gzread(gz, buf, sizeof(buf))) > 0) {
		if (*len + n > cap) {
			cap = 2 * (*len + n);
			more = realloc(*data, cap);
			if (!more) {
				free(*data);
				gzclose(gz);
				return -ENOMEM;
			}
			*data = more;
		}
		memcpy(*data + *len, buf, n);
		*len += n;
	}
	if (n < 0 || gzclose(gz) != Z_OK) {
		free(*data);
		return -EBADMSG;
	}
	return 0;
}
