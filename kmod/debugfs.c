// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs/causalprof: read-only views for developers of the module-wide
 * and per-CPU counters, the causal engine, the progress points and the
 * Go hooks.
 */

#include "causal.h"
#include "debugfs.h"
#include "gohooks.h"
#include "progress.h"
#include "stats.h"

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>

static struct dentry *debugfs_dir;

static int stat_get(void *data, u64 *val)
{
	*val = cp_stat_read((uintptr_t)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(stat_fops, stat_get, NULL, "%llu\n");

static int local64_get(void *data, u64 *val)
{
	*val = local64_read((local64_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(local64_fops, local64_get, NULL, "%llu\n");

/* cpuN/: the overflow handler's counters on CPU N. */
static void __init create_cpu_dir(int cpu)
{
	struct cp_cpu_stats *st = per_cpu_ptr(&cp_cpu_stats, cpu);
	const struct {
		const char *name;
		local64_t *val;
	} files[] = {
		{ "samples",	&st->samples },
		{ "lost",	&st->lost },
		{ "overflows",	&st->overflows },
		{ "ring_hwm",	&st->ring_hwm },
		{ "handler_ns",	&st->handler_ns },
		{ "fallback",	&st->fallback },
	};
	struct dentry *dir;
	char name[16];
	unsigned int i;

	snprintf(name, sizeof(name), "cpu%d", cpu);
	dir = debugfs_create_dir(name, debugfs_dir);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file_unsafe(files[i].name, 0444, dir, files[i].val, &local64_fops);
}

/* debugfs is optional: failures only mean the files are missing. */
void __init cp_debugfs_init(void)
{
	int i, cpu;

	debugfs_dir = debugfs_create_dir("causalprof", NULL);
	for_each_cp_stat(i)
		debugfs_create_file_unsafe(cp_stat_name(i), 0444, debugfs_dir,
					   (void *)(uintptr_t)i, &stat_fops);
	for_each_possible_cpu(cpu)
		create_cpu_dir(cpu);
	cp_causal_debugfs(debugfs_dir);
	cp_progress_debugfs(debugfs_dir);
	cp_gohooks_debugfs(debugfs_dir);
}

void cp_debugfs_uninit(void)
{
	debugfs_remove_recursive(debugfs_dir);
}
