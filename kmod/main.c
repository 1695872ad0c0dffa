// SPDX-License-Identifier: GPL-2.0
/*
 * The module's entry points: brings its layers up bottom first (session,
 * debugfs, /proc, netlink last) and tears them down in reverse order.
 */

#include "compat.h"
#include "debugfs.h"
#include "netlink.h"
#include "proc.h"
#include "session.h"

#include <linux/init.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include <causalprof/tables.h>

static int __init causalprof_init(void)
{
	int ret;

	ret = causalprof_session_init();
	if (ret)
		return ret;

	causalprof_debugfs_init();

	ret = causalprof_proc_init();
	if (ret)
		goto err_uninit_debugfs;

	/* Last: from here on requests come in. */
	ret = causalprof_netlink_init();
	if (ret)
		goto err_uninit_proc;

	pr_info("version " CAUSALPROF_VERSION " loaded\n");
	return 0;

err_uninit_proc:
	causalprof_proc_uninit();
err_uninit_debugfs:
	causalprof_debugfs_uninit();
	causalprof_session_uninit();
	return ret;
}

static void __exit causalprof_exit(void)
{
	/* No new session, and the running one ends while its END can be sent. */
	causalprof_session_shutdown();
	causalprof_netlink_uninit();
	causalprof_proc_uninit();
	causalprof_debugfs_uninit();
	causalprof_session_uninit();
	pr_debug("unloaded\n");
}

module_init(causalprof_init);
module_exit(causalprof_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sampling and causal profiling");
MODULE_AUTHOR("The causalprof authors");
MODULE_VERSION(CAUSALPROF_VERSION);
MODULE_ALIAS_GENL_FAMILY(CAUSALPROF_GENL_NAME);
