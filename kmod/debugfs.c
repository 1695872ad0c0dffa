// SPDX-License-Identifier: GPL-2.0

#include "debugfs.h"
#include "stats.h"

#include <linux/debugfs.h>
#include <linux/init.h>

static struct dentry *debugfs_dir;

static int stat_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(stat_fops, stat_get, NULL, "%llu\n");

/* debugfs is optional: failures only mean the files are missing. */
void __init causalprof_debugfs_init(void)
{
	int i;

	debugfs_dir = debugfs_create_dir("causalprof", NULL);
	for_each_causalprof_stat(i)
		debugfs_create_file_unsafe(causalprof_stat_name(i), 0444, debugfs_dir,
					   &causalprof_stats[i], &stat_fops);
}

void causalprof_debugfs_uninit(void)
{
	debugfs_remove_recursive(debugfs_dir);
}
