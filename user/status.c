// SPDX-License-Identifier: GPL-2.0
/*
 * cprof status: what the module is doing, and its counters since load.
 */

#include <inttypes.h>
#include <stdio.h>

#include "cprof.h"
#include "nl.h"
#include "options.h"

/* Only -h, which cp_getopt() answers itself. */
static const struct cp_opt opts[] = {
	CP_OPT_HELP,
	CP_OPT_END
};

static const struct cp_usage usage = {
	.name = "cprof status",
	.usage = "usage: cprof status\n",
	.about =
	"Show the causalprof module's version, the state of its session (the\n"
	"target process or system-wide, and whether a netlink socket or /proc\n"
	"started it, while one runs) and its counters since the module was loaded.\n",
	.opts = opts,
};

static const char *const state_names[] = {
	[CAUSALPROF_STATE_IDLE]		= "idle",
	[CAUSALPROF_STATE_RECORDING]	= "recording",
	[CAUSALPROF_STATE_STOPPING]	= "stopping",
};

static const char *const stat_names[] = {
#define LABEL(stat, key, label)	[CAUSALPROF_STAT_##stat] = label ":",
	CAUSALPROF_STATS(LABEL)
#undef LABEL
};

/* A counter added to the enum needs its line in <causalprof/tables.h>. */
_Static_assert(ARRAY_SIZE(stat_names) == __CAUSALPROF_STAT_LAST, "a counter has no name");

static void print_status(const struct cp_status *st)
{
	int i;

	printf("causalprof %s\n", st->version);
	if (st->state < ARRAY_SIZE(state_names))
		printf("%-17s%s\n", "state:", state_names[st->state]);
	else
		printf("%-17s%s (%" PRIu32 ")\n", "state:", "unknown", st->state);
	printf("%-17s%" PRIu64 "\n", "session:", st->session_id);
	if (st->has_target)
		printf("%-17s%" PRIu32 "\n", "target:", st->target_pid);
	else if (st->flags & CAUSALPROF_F_SYSTEM_WIDE)
		printf("%-17s%s\n", "target:", "system-wide");
	else
		printf("%-17s%s\n", "target:", "-");
	if (st->owner == CAUSALPROF_OWNER_NETLINK)
		printf("%-17s%s\n", "owner:", "netlink");
	else if (st->owner == CAUSALPROF_OWNER_PROC)
		printf("%-17s%s\n", "owner:", "proc");
	else
		printf("%-17s%s\n", "owner:", "-");
	for (i = CAUSALPROF_STAT_SESSIONS; i <= CAUSALPROF_STAT_MAX; i++)
		printf("%-17s%" PRIu64 "\n", stat_names[i], st->stats[i]);
}

int cmd_status(int argc, char *argv[])
{
	struct cp_getopt g = { .u = &usage };
	struct cp_status st;
	struct cp_nl nl;
	int ret = 1, err;

	if (cp_getopt(&g, argc, argv) < 0)
		return g.status;
	if (optind < argc)
		return cp_usage_error(&usage, "unexpected argument '%s'", argv[optind]);

	err = cp_nl_open(&nl);
	if (err) {
		cp_nl_open_perror(err);
		return 1;
	}
	err = cp_nl_get_status(&nl, &st);
	if (err) {
		cp_nl_perror(&nl, "cannot get the module's status", err);
		goto out_close;
	}
	print_status(&st);
	ret = 0;
out_close:
	cp_nl_close(&nl);
	return ret;
}
