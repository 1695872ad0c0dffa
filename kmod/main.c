// SPDX-License-Identifier: GPL-2.0
/*
 * The module's entry points: brings its layers up bottom first (session,
 * debugfs, /proc, netlink last) and tears them down in reverse order.
 */

#include "compat.h"
#include "debugfs.h"
#include "events.h"
#include "netlink.h"
#include "proc.h"
#include "session.h"

#include <linux/init.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include <causalprof/tables.h>

static int __init cp_init(void)
{
	int ret;

	ret = cp_session_init();
	if (ret)
		return ret;

	cp_debugfs_init();

	ret = cp_proc_init();
	if (ret)
		goto err_uninit_debugfs;

	/* Last: from here on requests come in. */
	ret = cp_netlink_init();
	if (ret)
		goto err_uninit_proc;

	pr_info("version " CAUSALPROF_VERSION " loaded\n");
	return 0;

err_uninit_proc:
	cp_proc_uninit();
err_uninit_debugfs:
	cp_debugfs_uninit();
	cp_session_uninit();
	cp_events_uninit();
	return ret;
}

static void __exit cp_exit(void)
{
	/* No new session, and the running one ends while its END can be sent. */
	cp_session_shutdown();
	cp_netlink_uninit();
	cp_proc_uninit();
	cp_debugfs_uninit();
	cp_session_uninit();
	cp_events_uninit();
	pr_debug("unloaded\n");
}

module_init(cp_init);
module_exit(cp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sampling and causal profiling");
MODULE_AUTHOR("The causalprof authors");
MODULE_VERSION(CAUSALPROF_VERSION);
MODULE_ALIAS_GENL_FAMILY(CAUSALPROF_GENL_NAME);
