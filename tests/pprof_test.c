// SPDX-License-Identifier: GPL-2.0
/*
 * cprof report --pprof, no module needed: a recording written by hand
 * around symtarget's real addresses (tests/synth.c) is reported, and the
 * profile decoded again with protobuf-c from user/profile.proto (and by
 * protoc): sample types, totals with the lost samples, inline chains, the
 * kernel's and modules' frames, unknown code, the vDSO, the main mapping,
 * labels, one file per event. The text views are checked on the same
 * recording.
 */

#define _GNU_SOURCE
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "profile.pb-c.h"
#include "helpers/path.h"
#include "synth.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Sample Sample;

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static Profile *decode(const char *path)
{
	unsigned char *data;
	Profile *p;
	size_t len;

	if (synth_gunzip(path, &data, &len))
		return NULL;
	p = perftools__profiles__profile__unpack(NULL, len, data);
	free(data);
	return p;
}

static const char *str(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(bad index)";
}

static const Location *location(const Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	return NULL;
}

static const Location *location_at(const Profile *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->n_location; i++)
		if (p->location[i]->address == addr)
			return p->location[i];
	return NULL;
}

static const Function *function(const Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	return NULL;
}

static const Mapping *mapping(const Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->id == id)
			return p->mapping[i];
	return NULL;
}

/* The name of line @i of location @l, or "". */
static const char *line_func(const Profile *p, const Location *l, size_t i)
{
	const Function *f;

	if (!l || i >= l->n_line)
		return "";
	f = function(p, l->line[i]->function_id);
	return f ? str(p, f->name) : "(no function)";
}

FIXTURE(report)
{
	char dir[64];
	char data[128];
	char pb[128];
	struct sym_run run;
	const struct sym_probe *main_p, *lib_p, *libc_p;
	uint64_t vdso_off;
	Profile *prof;
};

/* __vdso_clock_gettime's offset in this process's vDSO image, 0 if none. */
static uint64_t vdso_symbol(const char *want)
{
	const void *image;
	size_t size = synth_vdso(&image), i, n;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	uint64_t off = 0;
	Elf_Data *d;
	Elf *elf;
	char *copy;

	if (!size)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	while (elf && (scn = elf_nextscn(elf, scn)) && !off) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; d && i < n; i++)
			if (gelf_getsym(d, i, &sym) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), want))
				off = sym.st_value + 2;
	}
	elf_end(elf);
	free(copy);
	return off;
}

FIXTURE_SETUP(report)
{
	char prog[PATH_MAX], lib[PATH_MAX];
	char *argv[] = { "report", "-i", self->data, "--pprof", self->pb, NULL };
	char *err = NULL;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", prog, sizeof(prog)));
	ASSERT_EQ(0, cp_build_path("sym/libsymlib.so", lib, sizeof(lib)));
	ASSERT_EQ(0, synth_probe(prog, lib, &self->run));
	self->main_p = synth_find_probe(&self->run, "main");
	self->lib_p = synth_find_probe(&self->run, "lib");
	self->libc_p = synth_find_probe(&self->run, "libc");
	ASSERT_NE(NULL, self->main_p);
	ASSERT_NE(NULL, self->lib_p);
	ASSERT_NE(NULL, self->libc_p);
	strcpy(self->dir, "/tmp/pprof_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->data, sizeof(self->data), "%s/x.data", self->dir);
	snprintf(self->pb, sizeof(self->pb), "%s/x.pb.gz", self->dir);
	self->vdso_off = vdso_symbol("__vdso_clock_gettime");
	ASSERT_EQ(0, synth_standard(self->data, &self->run, self->vdso_off));
	ASSERT_EQ(0, synth_cprof(argv, NULL, &err));
	EXPECT_STREQ("", err);
	free(err);
	self->prof = decode(self->pb);
	ASSERT_NE(NULL, self->prof);
}

FIXTURE_TEARDOWN(report)
{
	char cmd[128];

	if (self->prof)
		perftools__profiles__profile__free_unpacked(self->prof, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

/* samples/count and cpu-clock/nanoseconds; every sample and lost one counted. */
TEST_F(report, types_and_totals)
{
	const Profile *p = self->prof;
	int64_t count = 0, weight = 0;
	size_t i;

	ASSERT_LT(0, p->n_string_table);
	EXPECT_STREQ("", p->string_table[0]);
	ASSERT_EQ(2, p->n_sample_type);
	EXPECT_STREQ("samples", str(p, p->sample_type[0]->type));
	EXPECT_STREQ("count", str(p, p->sample_type[0]->unit));
	EXPECT_STREQ("cpu-clock", str(p, p->sample_type[1]->type));
	EXPECT_STREQ("nanoseconds", str(p, p->sample_type[1]->unit));
	ASSERT_NE(NULL, p->period_type);
	EXPECT_STREQ("cpu-clock", str(p, p->period_type->type));
	EXPECT_STREQ("nanoseconds", str(p, p->period_type->unit));
	EXPECT_EQ(1000000, p->period);	/* 1 kHz */
	EXPECT_EQ(1738324800250000000LL, p->time_nanos);
	EXPECT_LT(0, p->duration_nanos);
	for (i = 0; i < p->n_sample; i++) {
		ASSERT_EQ(2, p->sample[i]->n_value);
		count += p->sample[i]->value[0];
		weight += p->sample[i]->value[1];
	}
	/* 105 (106 with the vDSO one) samples and 5 lost, 1 ms each. */
	EXPECT_EQ(110 + !!self->vdso_off, count);
	EXPECT_EQ((110 + !!self->vdso_off) * 1000000LL, weight);
	/* Aggregated: one pprof sample per distinct stack. */
	EXPECT_EQ(5 + !!self->vdso_off, p->n_sample);
}

/* Return addresses one byte back, each with its inline chain innermost first. */
TEST_F(report, inline_chains)
{
	const struct sym_probe *probes[] = { self->main_p, self->lib_p };
	const Profile *p = self->prof;
	const Location *l;
	const Function *f;
	const Mapping *m;
	size_t i;

	for (i = 0; i < 2; i++) {
		const struct sym_probe *pr = probes[i];

		l = location_at(p, pr->addr - 1);
		ASSERT_NE(NULL, l);
		ASSERT_EQ(2, l->n_line);
		EXPECT_STREQ(pr->func, line_func(p, l, 0));
		EXPECT_EQ(pr->line, l->line[0]->line);
		EXPECT_STREQ(pr->outer, line_func(p, l, 1));
		EXPECT_EQ(pr->call_line, l->line[1]->line);
		f = function(p, l->line[1]->function_id);
		ASSERT_NE(NULL, f);
		EXPECT_STREQ(pr->file, base(str(p, f->filename)));
		EXPECT_LT(0, f->start_line);
		m = mapping(p, l->mapping_id);
		ASSERT_NE(NULL, m);
		EXPECT_TRUE(m->has_functions && m->has_filenames && m->has_line_numbers &&
			    m->has_inline_frames);
		EXPECT_LE(m->memory_start, l->address);
		EXPECT_GT(m->memory_limit, l->address);
		EXPECT_STRNE("", str(p, m->build_id));
		TH_LOG("%s: %#lx %s:%ld <- %s:%ld in %s", pr->kind, (unsigned long)l->address,
		       line_func(p, l, 0), (long)l->line[0]->line, line_func(p, l, 1),
		       (long)l->line[1]->line, base(str(p, m->filename)));
	}
	m = mapping(p, location_at(p, self->lib_p->addr - 1)->mapping_id);
	EXPECT_STREQ("libsymlib.so", base(str(p, m->filename)));
	/* The interrupted address itself is not moved. */
	l = location_at(p, self->libc_p->addr);
	ASSERT_NE(NULL, l);
	ASSERT_LE(1, l->n_line);
	EXPECT_STREQ("qsort", line_func(p, l, l->n_line - 1));
}

TEST_F(report, kernel_unknown_and_lost)
{
	const Profile *p = self->prof;
	const Location *l;
	const Mapping *m;
	size_t i;
	bool lost = false;

	l = location_at(p, SYNTH_KIP0);
	ASSERT_NE(NULL, l);
	EXPECT_STREQ("do_syscall_64", line_func(p, l, 0));
	m = mapping(p, l->mapping_id);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("[kernel.kallsyms]", str(p, m->filename));
	EXPECT_TRUE(m->has_functions);
	EXPECT_FALSE(m->has_line_numbers);
	l = location_at(p, SYNTH_KIP1 - 1);
	ASSERT_NE(NULL, l);
	EXPECT_STREQ("ext4_foo", line_func(p, l, 0));
	EXPECT_STREQ("[ext4]", str(p, mapping(p, l->mapping_id)->filename));

	/* Unknown code keeps its address, in no mapping. */
	l = location_at(p, SYNTH_UNKNOWN);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0, l->n_line);
	EXPECT_EQ(0, l->mapping_id);

	for (i = 0; i < p->n_sample; i++) {
		const Sample *s = p->sample[i];

		if (s->n_location_id != 1 ||
		    strcmp("[lost samples]", line_func(p, location(p, s->location_id[0]), 0)))
			continue;
		EXPECT_FALSE(lost);
		lost = true;
		EXPECT_EQ(5, s->value[0]);
		EXPECT_EQ(5 * 1000000LL, s->value[1]);
	}
	EXPECT_TRUE(lost);
}

TEST_F(report, vdso)
{
	const Profile *p = self->prof;
	const Location *l;

	if (!self->vdso_off)
		SKIP(return, "no vDSO in this process");
	l = location_at(p, SYNTH_VDSO + self->vdso_off);
	ASSERT_NE(NULL, l);
	ASSERT_LE(1, l->n_line);
	TH_LOG("vDSO: %s", line_func(p, l, 0));
	EXPECT_NE(NULL, strstr(line_func(p, l, l->n_line - 1), "clock_gettime"));
	EXPECT_STREQ("[vdso]", str(p, mapping(p, l->mapping_id)->filename));
}

/* mapping[0] is the main program: the target's executable. */
TEST_F(report, main_mapping_first)
{
	const Profile *p = self->prof;

	ASSERT_LT(0, p->n_mapping);
	EXPECT_STREQ("symtarget", base(str(p, p->mapping[0]->filename)));
}

TEST_F(report, gzip_and_protoc)
{
	char cmd[2 * PATH_MAX], proto[PATH_MAX];
	unsigned char *data;
	size_t len;
	FILE *f;
	int rc;

	ASSERT_EQ(0, synth_slurp(self->pb, &data, &len));
	ASSERT_LT(2, len);
	EXPECT_EQ(0x1f, data[0]);
	EXPECT_EQ(0x8b, data[1]);
	free(data);
	if (system("command -v protoc > /dev/null 2>&1"))
		SKIP(return, "no protoc");
	cp_build_path("../../user/profile.proto", proto, sizeof(proto));
	ASSERT_EQ(0, access(proto, R_OK));
	snprintf(cmd, sizeof(cmd),
		 "gzip -dc '%s' | protoc --decode=perftools.profiles.Profile -I \"$(dirname '%s')\" profile.proto",
		 self->pb, proto);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	len = fread(cmd, 1, sizeof(cmd) - 1, f);
	cmd[len] = '\0';
	rc = pclose(f);
	EXPECT_EQ(0, rc);
	EXPECT_NE(NULL, strstr(cmd, "sample_type"));
}

TEST_F(report, labels)
{
	char *argv[] = { "report", "-i", self->data, "--pprof", self->pb, "--labels", NULL };
	Profile *p;
	size_t i, j;
	int labelled = 0, workers = 0;

	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	p = decode(self->pb);
	ASSERT_NE(NULL, p);
	for (i = 0; i < p->n_sample; i++) {
		const Sample *s = p->sample[i];
		int64_t pid = -1, tid = -1;
		const char *comm = NULL;

		for (j = 0; j < s->n_label; j++) {
			const char *key = str(p, s->label[j]->key);

			if (!strcmp(key, "pid"))
				pid = s->label[j]->num;
			else if (!strcmp(key, "tid"))
				tid = s->label[j]->num;
			else if (!strcmp(key, "comm"))
				comm = str(p, s->label[j]->str);
		}
		if (!s->n_label)
			continue;	/* [lost samples] */
		labelled++;
		EXPECT_EQ(SYNTH_PID, pid);
		ASSERT_NE(NULL, comm);
		if (tid == SYNTH_PID + 1) {
			workers++;
			EXPECT_STREQ("worker", comm);
		} else {
			EXPECT_EQ(SYNTH_PID, tid);
			EXPECT_STREQ("symtarget", comm);
		}
	}
	EXPECT_LE(4, labelled);
	EXPECT_EQ(1, workers);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* Two events: two files, each with its own event's samples. */
TEST_F(report, one_file_per_event)
{
	static const char *const events[] = { "cpu-clock", "cycles" };
	char data[160], out[160], a[160], b[160], one[160];
	char *argv[] = { "report", "-i", data, "--pprof", out, NULL };
	char *argv1[] = { "report", "-i", data, "--pprof", one, "--event", "cycles", NULL };
	uint64_t ips[2] = { self->libc_p->addr, self->main_p->addr };
	struct synth s;
	Profile *p;
	int i;

	snprintf(data, sizeof(data), "%s/two.data", self->dir);
	snprintf(out, sizeof(out), "%s/two.pb.gz", self->dir);
	snprintf(a, sizeof(a), "%s/two.cpu-clock.pb.gz", self->dir);
	snprintf(b, sizeof(b), "%s/two.cycles.pb.gz", self->dir);
	snprintf(one, sizeof(one), "%s/one.pb.gz", self->dir);
	ASSERT_EQ(0, synth_begin(&s, data, SYNTH_PID, events, 2));
	synth_maps(&s, SYNTH_PID, &self->run);
	for (i = 0; i < 30; i++)
		synth_sample(&s, SYNTH_PID, SYNTH_PID, i % 3 ? 0 : 1, i % 3 ? 1000000 : 100000, 0,
			     2, ips);
	synth_end(&s, 30, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	EXPECT_NE(0, access(out, F_OK));
	p = decode(a);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("cpu-clock", str(p, p->sample_type[1]->type));
	ASSERT_EQ(1, p->n_sample);
	EXPECT_EQ(20, p->sample[0]->value[0]);
	EXPECT_EQ(20 * 1000000LL, p->sample[0]->value[1]);
	perftools__profiles__profile__free_unpacked(p, NULL);
	p = decode(b);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("cycles", str(p, p->sample_type[1]->type));
	EXPECT_STREQ("count", str(p, p->sample_type[1]->unit));
	EXPECT_EQ(100000, p->period);
	ASSERT_EQ(1, p->n_sample);
	EXPECT_EQ(10, p->sample[0]->value[0]);
	EXPECT_EQ(10 * 100000LL, p->sample[0]->value[1]);
	perftools__profiles__profile__free_unpacked(p, NULL);

	/* --event: that one, in the file named. */
	ASSERT_EQ(0, synth_cprof(argv1, NULL, NULL));
	p = decode(one);
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("cycles", str(p, p->sample_type[1]->type));
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The sum of sample type @type's values, or -1 without that type. */
static int64_t type_total(const Profile *p, const char *type)
{
	int64_t sum = 0;
	size_t i, t;

	for (t = 0; t < p->n_sample_type && strcmp(str(p, p->sample_type[t]->type), type); t++)
		;
	if (t == p->n_sample_type)
		return -1;
	for (i = 0; i < p->n_sample; i++)
		sum += p->sample[i]->value[t];
	return sum;
}

/* The off-CPU time of the samples labelled reason=@reason. */
static int64_t reason_total(const Profile *p, const char *reason)
{
	int64_t sum = 0;
	size_t i, j, t;

	for (t = 0; t < p->n_sample_type && strcmp(str(p, p->sample_type[t]->type), "off-cpu");
	     t++)
		;
	for (i = 0; t < p->n_sample_type && i < p->n_sample; i++)
		for (j = 0; j < p->sample[i]->n_label; j++)
			if (!strcmp(str(p, p->sample[i]->label[j]->key), "reason") &&
			    !strcmp(str(p, p->sample[i]->label[j]->str), reason))
				sum += p->sample[i]->value[t];
	return sum;
}

/*
 * Off-CPU waits (cprof record --off-cpu): sample types of the cpu-clock
 * profile after its own, each wait labelled with its reason, cpu-clock
 * still the default, wall both; --event off-cpu their own four; the text
 * view's heading. 20 samples of 1 ms; 3 sleeps of 10 ms and 1 ms in the run
 * queue as OFF_CPU records, 5 I/O waits of 50 and 5 ms in all as an
 * OFF_CPU_COUNT.
 */
TEST_F(report, off_cpu_types)
{
	static const char *const events[] = { "cpu-clock" };
	static const char *const types[] = {
		"samples", "cpu-clock", "waits", "off-cpu", "wait", "sched-delay", "wall",
	};
	static const int64_t totals[] = { 20, 20000000, 8, 88000000, 80000000, 8000000, 108000000 };
	char data[160], out[160], one[160];
	char *argv[] = { "report", "-i", data, "--pprof", out, NULL };
	char *argv1[] = { "report", "-i", data, "--pprof", one, "--event", "off-cpu", NULL };
	char *argvt[] = { "report", "-i", data, "--event", "off-cpu", NULL };
	uint64_t ips[3] = { SYNTH_KIP1, self->libc_p->addr, self->main_p->addr };
	char *text = NULL;
	struct synth s;
	Profile *p;
	size_t i;

	snprintf(data, sizeof(data), "%s/off.data", self->dir);
	snprintf(out, sizeof(out), "%s/off.pb.gz", self->dir);
	snprintf(one, sizeof(one), "%s/one.pb.gz", self->dir);
	ASSERT_EQ(0, synth_begin(&s, data, SYNTH_PID, events, 1));
	synth_maps(&s, SYNTH_PID, &self->run);
	for (i = 0; i < 20; i++)
		synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, 1000000, 0, 2, ips + 1);
	for (i = 0; i < 3; i++)
		synth_off_cpu(&s, SYNTH_PID, SYNTH_PID, 10000000, 1000000,
			      CAUSALPROF_OFF_CPU_SLEEP, 1, 2, ips);
	synth_stack(&s, 7, 1, 2, ips);
	synth_off_cpu_count(&s, SYNTH_PID, SYNTH_PID, 7, 5, 50000000, 5000000,
			    CAUSALPROF_OFF_CPU_IO);
	synth_end_waits(&s, 20, 8, 0, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));

	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	p = decode(out);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(ARRAY_SIZE(types), p->n_sample_type);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		EXPECT_STREQ(types[i], str(p, p->sample_type[i]->type));
		EXPECT_EQ(totals[i], type_total(p, types[i])) TH_LOG("%s", types[i]);
	}
	EXPECT_STREQ("cpu-clock", str(p, p->default_sample_type));
	EXPECT_STREQ("cpu-clock", str(p, p->period_type->type));
	EXPECT_EQ(33000000, reason_total(p, "sleep"));
	EXPECT_EQ(55000000, reason_total(p, "io"));
	/* Every address of a wait is a return address: looked up one byte back. */
	EXPECT_NE(NULL, location_at(p, SYNTH_KIP1 - 1));
	perftools__profiles__profile__free_unpacked(p, NULL);

	/* --event off-cpu: the waits' own types, off-cpu the default. */
	ASSERT_EQ(0, synth_cprof(argv1, NULL, NULL));
	p = decode(one);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(4, p->n_sample_type);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(totals[i + 2], type_total(p, types[i + 2])) TH_LOG("%s", types[i + 2]);
	}
	EXPECT_STREQ("off-cpu", str(p, p->default_sample_type));
	perftools__profiles__profile__free_unpacked(p, NULL);

	ASSERT_EQ(0, synth_cprof(argvt, &text, NULL));
	EXPECT_NE(NULL, strstr(text, "# event 1: off-cpu: 8 waits, 0 not recorded, total 88ms: waiting 80ms, run-queue delay 8ms\n"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "# off-cpu by reason: io 55ms (5 waits) sleep 33ms (3 waits)\n"));
	free(text);
}

/* One row of a top table: "flat flat% sum% cum cum%  name". */
static bool find_row(const char *text, const char *name, char *flat, char *flatp, char *cump)
{
	const char *line;
	char n[256], sum[32], cum[32];

	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (*line == '#')
			continue;
		if (sscanf(line, "%31s %31s %31s %31s %31s %255[^\n]", flat, flatp, sum, cum, cump,
			   n) == 6 && !strcmp(n, name))
			return true;
	}
	return false;
}

/* The text views: by function as pprof -top prints it, by line, by thread. */
TEST_F(report, text_views)
{
	char *argv[] = { "report", "-i", self->data, NULL };
	char *lines[] = { "report", "-i", self->data, "--lines", NULL };
	char *threads[] = { "report", "-i", self->data, "--threads", NULL };
	char flat[32], flatp[32], cump[32], want[256], *out = NULL, *err = NULL, *first;
	int extra = !!self->vdso_off;

	ASSERT_EQ(0, synth_cprof(argv, &out, &err));
	EXPECT_STREQ("", err);
	TH_LOG("\n%s", out);
	/* qsort on top: 90 of 110 (or 111) ms. */
	first = strstr(out, "flat  flat%");
	ASSERT_NE(NULL, first);
	first = strchr(first, '\n') + 1;
	EXPECT_EQ(0, strncmp(first, "      90ms ", 11));
	ASSERT_TRUE(find_row(out, "qsort", flat, flatp, cump));
	EXPECT_STREQ(extra ? "81.08%" : "81.82%", flatp);
	ASSERT_TRUE(find_row(out, self->main_p->func, flat, flatp, cump));
	EXPECT_STREQ("0", flat);
	EXPECT_STREQ(extra ? "63.06%" : "63.64%", cump);	/* 60 + 10 kernel */
	ASSERT_TRUE(find_row(out, "[lost samples]", flat, flatp, cump));
	EXPECT_STREQ("5ms", flat);
	ASSERT_TRUE(find_row(out, "<unknown>", flat, flatp, cump));
	EXPECT_STREQ("5ms", flat);
	ASSERT_TRUE(find_row(out, "do_syscall_64", flat, flatp, cump));
	EXPECT_STREQ("10ms", flat);
	free(out);
	free(err);

	ASSERT_EQ(0, synth_cprof(lines, &out, &err));
	EXPECT_STREQ("", err);
	snprintf(want, sizeof(want), "%s", self->main_p->func);
	ASSERT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "symtarget.c:%d\n", self->main_p->line);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "symlib.c:%d\n", self->lib_p->call_line);
	EXPECT_NE(NULL, strstr(out, want));
	free(out);
	free(err);

	ASSERT_EQ(0, synth_cprof(threads, &out, &err));
	EXPECT_STREQ("", err);
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "       30     4242     4243  worker\n"));
	snprintf(want, sizeof(want), "%9d     4242     4242  symtarget\n", 75 + extra);
	EXPECT_NE(NULL, strstr(out, want));
	free(out);
	free(err);
}

/* The samples of location @l (by id), summed. */
static int64_t samples_at(const Profile *p, const Location *l)
{
	int64_t n = 0;
	size_t i, j;

	for (i = 0; l && i < p->n_sample; i++)
		for (j = 0; j < p->sample[i]->n_location_id; j++)
			if (p->sample[i]->location_id[j] == l->id)
				n += p->sample[i]->value[0];
	return n;
}

struct two_images {
	char dir[64], data[128], pb[128];
	struct sym_run old, new;
	const struct sym_probe *old_p, *new_p;
};

static int two_images_setup(struct two_images *t)
{
	char prog[PATH_MAX], lib[PATH_MAX];

	strcpy(t->dir, "/tmp/pprof_test.XXXXXX");
	if (!mkdtemp(t->dir) || cp_build_path("sym/libsymlib.so", lib, sizeof(lib)) ||
	    cp_build_path("sym/symtarget-nopie", prog, sizeof(prog)) ||
	    synth_probe(prog, lib, &t->old) ||
	    cp_build_path("sym/symtarget", prog, sizeof(prog)) || synth_probe(prog, lib, &t->new))
		return -1;
	snprintf(t->data, sizeof(t->data), "%s/x.data", t->dir);
	snprintf(t->pb, sizeof(t->pb), "%s/x.pb.gz", t->dir);
	t->old_p = synth_find_probe(&t->old, "main");
	t->new_p = synth_find_probe(&t->new, "main");
	return t->old_p && t->new_p ? 0 : -1;
}

static Profile *two_images_report(struct two_images *t)
{
	char *argv[] = { "report", "-i", t->data, "--pprof", t->pb, NULL };

	return synth_cprof(argv, NULL, NULL) ? NULL : decode(t->pb);
}

static void two_images_teardown(struct two_images *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (t->dir[0] && system(cmd))
		fprintf(stderr, "cannot remove %s\n", t->dir);
}

/*
 * Samples are attributed to the mappings of their own moment, wherever they
 * are in the file: a process that exec()s symtarget-nopie into symtarget,
 * with samples of each written before the mappings they need, or after the
 * exec that ends them.
 */
TEST(exec_and_time_order)
{
	static const char *const events[] = { "cpu-clock" };
	struct two_images t;
	const Location *l;
	struct synth s;
	uint64_t ip;
	Profile *p;
	size_t i;

	ASSERT_EQ(0, two_images_setup(&t));
	ASSERT_EQ(0, synth_begin(&s, t.data, 77, events, 1));
	s.time = 100;
	synth_comm(&s, 77, 77, "symtarget-nopie", 0);
	ip = t.old_p->addr;
	s.time = 300;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);	/* before its MMAP in the file */
	s.time = 200;
	synth_maps(&s, 77, &t.old);
	s.time = 400;
	synth_comm(&s, 77, 77, "symtarget", CAUSALPROF_COMM_F_EXEC);
	s.time = 500;
	synth_maps(&s, 77, &t.new);
	ip = t.new_p->addr;
	s.time = 600;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	ip = t.old_p->addr;
	s.time = 350;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);	/* after the exec in the file */
	/* Before the mapping was made, and after the exec ended it: nothing there. */
	s.time = 150;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	s.time = 450;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	synth_end(&s, 5, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));

	p = two_images_report(&t);
	ASSERT_NE(NULL, p);
	l = location_at(p, t.old_p->addr);
	ASSERT_NE(NULL, l);
	EXPECT_STREQ("main_inner", line_func(p, l, 0));
	EXPECT_STREQ("symtarget-nopie", base(str(p, mapping(p, l->mapping_id)->filename)));
	EXPECT_EQ(2, samples_at(p, l));
	for (i = 0; i < p->n_location; i++) {
		l = p->location[i];
		if (l->address == t.old_p->addr && !l->mapping_id)
			break;
	}
	ASSERT_LT(i, p->n_location);
	EXPECT_EQ(0, l->n_line);
	EXPECT_EQ(2, samples_at(p, l));
	l = location_at(p, t.new_p->addr);
	ASSERT_NE(NULL, l);
	EXPECT_STREQ("main_inner", line_func(p, l, 0));
	EXPECT_STREQ("symtarget", base(str(p, mapping(p, l->mapping_id)->filename)));
	EXPECT_EQ(1, samples_at(p, l));
	/* The exec'ed program is the main one. */
	EXPECT_STREQ("symtarget", base(str(p, p->mapping[0]->filename)));
	perftools__profiles__profile__free_unpacked(p, NULL);
	two_images_teardown(&t);
}

/*
 * A recorder that reports the exec after the new image's mappings: those
 * are kept, unless the process ran user code between them and the exec
 * (then they were the old image's).
 */
static void late_exec(struct __test_metadata *_metadata, bool user_between)
{
	static const char *const events[] = { "cpu-clock" };
	uint64_t ip, kip = SYNTH_KIP0;
	struct two_images t;
	const Location *l;
	struct synth s;
	Profile *p;

	ASSERT_EQ(0, two_images_setup(&t));
	ASSERT_EQ(0, synth_begin(&s, t.data, 77, events, 1));
	synth_comm(&s, 77, 77, "symtarget-nopie", 0);
	synth_maps(&s, 77, &t.old);
	ip = t.old_p->addr;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	synth_maps(&s, 77, &t.new);
	if (user_between)
		synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	else
		synth_sample(&s, 77, 77, 0, 1000000, 1, 0, &kip);	/* exec running */
	synth_comm(&s, 77, 77, "symtarget", CAUSALPROF_COMM_F_EXEC);
	ip = t.new_p->addr;
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	synth_end(&s, 3, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));

	p = two_images_report(&t);
	ASSERT_NE(NULL, p);
	l = location_at(p, t.new_p->addr);
	ASSERT_NE(NULL, l);
	if (user_between) {
		EXPECT_EQ(0, l->mapping_id);
		EXPECT_EQ(0, l->n_line);
	} else {
		EXPECT_STREQ("main_inner", line_func(p, l, 0));
		ASSERT_NE(0, l->mapping_id);
		EXPECT_STREQ("symtarget", base(str(p, mapping(p, l->mapping_id)->filename)));
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	two_images_teardown(&t);
}

TEST(late_exec_keeps_new_mappings)
{
	late_exec(_metadata, false);
}

TEST(late_exec_after_user_code_does_not)
{
	late_exec(_metadata, true);
}

/*
 * A JIT's code: an anonymous mapping ("//anon"), named from the PERFMAP
 * record; its other code keeps its address, and the mapping then claims no
 * functions. A recording without PERFMAP (as cprof wrote them before) still
 * reads, its JIT code "[anon]".
 */
static void jit_recording(struct __test_metadata *_metadata, const char *path, bool perfmap)
{
	static const char *const events[] = { "cpu-clock" };
	static const char map[] = "7f0000001000 100 JS:*hotLoop /app/hot.js:3\n"
				  "7f0000001080 10 JS:*inner /app/hot.js:9\n";
	const struct sym_map anon = {
		.start = 0x7f0000000000ULL, .end = 0x7f0000010000ULL, .path = "//anon",
	};
	struct cp_rec_perfmap head = { .pid = 77 };
	uint64_t ips[] = { 0x7f0000001010ULL, 0x7f0000001084ULL, 0x7f0000005000ULL };
	struct iovec iov[2];
	struct synth s;
	int i;

	ASSERT_EQ(0, synth_begin(&s, path, 77, events, 1));
	synth_comm(&s, 77, 77, "node", 0);
	synth_mmap(&s, 77, &anon);
	for (i = 0; i < 3; i++)
		synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ips[i]);
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ips[0]);
	synth_end(&s, 4, 0);
	if (perfmap) {
		iov[0] = (struct iovec){ .iov_base = &head.pid, .iov_len = 8 };
		iov[1] = (struct iovec){ .iov_base = (void *)map, .iov_len = strlen(map) };
		cp_rec_putv(&s.w, CP_REC_PERFMAP, 0, iov, 2);
	}
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));
}

TEST(jit_code)
{
	char dir[] = "/tmp/pprof_test.XXXXXX", data[64], pb[64], cmd[96];
	char *argv[] = { "report", "-i", data, "--pprof", pb, NULL };
	char *targv[] = { "report", "-i", data, NULL };
	const Location *l;
	const Mapping *m;
	char *out = NULL;
	Profile *p;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/jit.data", dir);
	snprintf(pb, sizeof(pb), "%s/jit.pb.gz", dir);
	jit_recording(_metadata, data, true);
	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	p = decode(pb);
	ASSERT_NE(NULL, p);
	l = location_at(p, 0x7f0000001010ULL);
	ASSERT_NE(NULL, l);
	EXPECT_STREQ("JS:*hotLoop /app/hot.js:3", line_func(p, l, 0));
	EXPECT_EQ(2, samples_at(p, l));
	/* The later line names what it covers. */
	EXPECT_STREQ("JS:*inner /app/hot.js:9", line_func(p, location_at(p, 0x7f0000001084ULL), 0));
	l = location_at(p, 0x7f0000005000ULL);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0, l->n_line);
	m = mapping(p, l->mapping_id);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("[anon]", str(p, m->filename));
	EXPECT_FALSE(m->has_functions);
	perftools__profiles__profile__free_unpacked(p, NULL);
	ASSERT_EQ(0, synth_cprof(targv, &out, NULL));
	EXPECT_NE(NULL, strstr(out, "  JS:*hotLoop /app/hot.js:3\n"));
	EXPECT_NE(NULL, strstr(out, "  [anon]\n"));
	free(out);
	out = NULL;

	/* Without its perf map. */
	jit_recording(_metadata, data, false);
	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	p = decode(pb);
	ASSERT_NE(NULL, p);
	l = location_at(p, 0x7f0000001010ULL);
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0, l->n_line);
	EXPECT_STREQ("[anon]", str(p, mapping(p, l->mapping_id)->filename));
	perftools__profiles__profile__free_unpacked(p, NULL);
	ASSERT_EQ(0, synth_cprof(targv, &out, NULL));
	EXPECT_EQ(NULL, strstr(out, "hotLoop"));
	EXPECT_NE(NULL, strstr(out, "  [anon]\n"));
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	system(cmd);
}

/*
 * A stripped program's static function, in text views: "FILE+0xOFFSET" of
 * its start (from .eh_frame_hdr), by line the address's own offset; its
 * location keeps the address and has no line.
 */
TEST(stripped_code)
{
	static const char *const events[] = { "cpu-clock" };
	char dir[] = "/tmp/pprof_test.XXXXXX", data[64], pb[64], cmd[96];
	char *argv[] = { "report", "-i", data, "--pprof", pb, NULL };
	char *targv[] = { "report", "-i", data, NULL };
	char *largv[] = { "report", "-i", data, "--lines", NULL };
	struct sym_map m = { .start = 0x555500000000ULL, .end = 0x555500001000ULL, .pgoff = 0x1000 };
	uint64_t ip = m.start + 0x1248 - 0x1000;	/* in spin_a (0x1230), past its prologue */
	char *out = NULL;
	struct synth s;
	Profile *p;

	ASSERT_EQ(0, cp_build_path("sym/stripme-stripped", m.path, sizeof(m.path)));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/s.data", dir);
	snprintf(pb, sizeof(pb), "%s/s.pb.gz", dir);
	ASSERT_EQ(0, synth_begin(&s, data, 77, events, 1));
	synth_comm(&s, 77, 77, "stripme-strippe", 0);
	synth_mmap(&s, 77, &m);
	synth_sample(&s, 77, 77, 0, 1000000, 0, 1, &ip);
	synth_end(&s, 1, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	ASSERT_EQ(0, synth_finish(&s));
	ASSERT_EQ(0, synth_cprof(targv, &out, NULL));
	EXPECT_NE(NULL, strstr(out, "  stripme-stripped+0x1230\n"));
	free(out);
	out = NULL;
	ASSERT_EQ(0, synth_cprof(largv, &out, NULL));
	EXPECT_NE(NULL, strstr(out, "  stripme-stripped+0x1248\n"));
	free(out);
	ASSERT_EQ(0, synth_cprof(argv, NULL, NULL));
	p = decode(pb);
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, location_at(p, ip));
	EXPECT_EQ(0, location_at(p, ip)->n_line);
	EXPECT_EQ(0, p->n_function);
	perftools__profiles__profile__free_unpacked(p, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	system(cmd);
}

TEST_HARNESS_MAIN
