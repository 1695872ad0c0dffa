// SPDX-License-Identifier: GPL-2.0
/*
 * The module: loading it with finit_module(2), reloading it with parameters,
 * its sysfs parameters and reference count, its debugfs counters.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "helpers.h"
#include "internal.h"

const char *cp_ko_path(void)
{
	const char *ko = getenv("CAUSALPROF_KO");

	return ko && *ko ? ko : NULL;
}

int cp_module_load_params(const char *ko, const char *params)
{
	int fd, ret = 0;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		ret = -errno;
	close(fd);
	return ret;
}

int cp_module_load(const char *ko)
{
	return cp_module_load_params(ko, "");
}

int cp_module_unload(void)
{
	if (syscall(SYS_delete_module, CP_MODULE, O_NONBLOCK))
		return -errno;
	return 0;
}

bool cp_module_loaded(void)
{
	return access(CP_SYSFS, F_OK) == 0;
}

int cp_module_ensure_loaded(void)
{
	const char *ko = cp_ko_path();

	if (cp_module_loaded())
		return 0;
	if (!ko)
		return -ENOENT;
	return cp_module_load(ko);
}

/*
 * The contract says every test program leaves the module loaded. Teardowns
 * reload it after a failed assertion; this covers a test killed by its
 * timeout or a signal, in the harness' main process only.
 */
static pid_t main_pid;

static void __attribute__((constructor)) remember_main(void)
{
	main_pid = getpid();
}

static void __attribute__((destructor)) reload_at_exit(void)
{
	if (getpid() != main_pid || cp_module_loaded() || !cp_ko_path())
		return;
	fprintf(stderr, "# %s was left unloaded, reloading: %s\n", CP_MODULE,
		strerror(-cp_module_ensure_loaded()));
}

int cp_debugfs_u64(const char *name, uint64_t *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", CP_DEBUGFS, name);
	return cp_read_u64_file(path, val);
}

int cp_cpu_counts(long cpu, uint64_t *samples, uint64_t *lost, uint64_t *overflows)
{
	const struct {
		const char *name;
		uint64_t *val;
	} counters[] = { { "samples", samples }, { "lost", lost }, { "overflows", overflows } };
	char name[64];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(name, sizeof(name), "cpu%ld/%s", cpu, counters[i].name);
		ret = cp_debugfs_u64(name, counters[i].val);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Load the module afresh with params ("" for the defaults). A request still
 * running in the module holds a reference for a moment: retry, bounded.
 */
int cp_module_reload(const char *params)
{
	int64_t deadline = cp_now_ms() + CP_WAIT_MS;
	const char *ko = cp_ko_path();
	int ret;

	if (!ko)
		return -ENOENT;
	while (cp_module_loaded()) {
		ret = cp_module_unload();
		if (!ret)
			break;
		if (ret != -EAGAIN || cp_now_ms() > deadline)
			return ret;
		cp_sleep_ms(10);
	}
	return cp_module_load_params(ko, params);
}

/* /sys/module/causalprof/parameters/NAME, for the writable ones */
int cp_module_param_get(const char *name, uint64_t *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/parameters/%s", CP_SYSFS, name);
	return cp_read_u64_file(path, val);
}

int cp_module_param_set(const char *name, uint64_t val)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/parameters/%s", CP_SYSFS, name);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	return cp_write_file(path, buf, strlen(buf));
}

int cp_module_refs_settle(void)
{
	uint64_t n = 1;
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = cp_module_param_get("../refcnt", &n);
		if (ret)
			return ret;
		if (!n)
			return 0;
		usleep(10000);
	}
	return -EBUSY;
}
