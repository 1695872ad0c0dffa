// SPDX-License-Identifier: GPL-2.0
/*
 * cprof: the command-line client of the causalprof kernel module.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cprof.h"
#include "options.h"

static int cmd_help(int argc, char *argv[]);

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char *argv[]);
	const char *desc;
} cmds[] = {
	{ "record", cmd_record, "sample a program, a process or the whole system into a file" },
	{ "report", cmd_report, "summarize a recording: top functions, lines, threads, or pprof" },
	{ "status", cmd_status, "show the module's version, session and counters" },
	{ "help",   cmd_help,   "show this help, or the help of one command" },
};

/* cprof's own options, before a command: -h and --help run "help". */
enum cprof_opt { OPT_HELP = 'h', OPT_VERSION = CP_OPT_LONG };

static const struct cp_opt opts[] = {
	CP_OPT_HELP,
	CP_OPT(OPT_VERSION, "version", NULL, "show cprof's version"),
	CP_OPT_END
};

/* The help of cprof itself is printed by usage(): it lists the commands. */
static const struct cp_usage cprof_usage = {
	.name = "cprof",
	.usage = "usage: cprof <command> [<args>]\n"
		 "       cprof --version\n",
	.opts = opts,
};

static void usage(FILE *f)
{
	size_t i;

	fputs(cprof_usage.usage, f);
	fputs("\nCommands:\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].desc);
	fputs("\nOptions:\n", f);
	cp_opts_print(opts, f);
	fputs("\n"
	      "'cprof help <command>' or 'cprof <command> --help' shows the help\n"
	      "of one command.\n", f);
}

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static int bad_cmd(const char *name)
{
	return cp_usage_error(&cprof_usage, "unknown command '%s'", name);
}

/* Runs @cmd with argv[0] set to "cprof <name>", which it uses in messages. */
static int run(const struct cmd *cmd, int argc, char *argv[])
{
	char prog[64];

	snprintf(prog, sizeof(prog), "cprof %s", cmd->name);
	argv[0] = prog;
	return cmd->fn(argc, argv);
}

static int cmd_help(int argc, char *argv[])
{
	const struct cp_opt *opt = argc > 1 ? cp_opt_find(opts, argv[1]) : NULL;
	const struct cmd *cmd;
	char *help_argv[] = { NULL, "--help", NULL };

	if (argc > 2)
		return cp_usage_error(&cprof_usage, "help takes one command, not '%s' too", argv[2]);
	if (argc == 1 || (opt && opt->id == OPT_HELP) || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return bad_cmd(argv[1]);
	return run(cmd, 2, help_argv);
}

/*
 * Like perf's run_builtin(): a command that printed everything it meant to
 * still fails if its output did not reach stdout (a full disk, /dev/full).
 * Closing an already closed stdout (EBADF) is not an error by itself.
 */
static int close_stdout(int ret)
{
	const char *why = NULL;

	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		why = errno ? strerror(errno) : "write error";
	else if (fclose(stdout) && errno != EBADF)
		why = strerror(errno);
	if (!why)
		return ret;
	fprintf(stderr, "cprof: cannot write to standard output: %s\n", why);
	return ret ? ret : 1;
}

int main(int argc, char *argv[])
{
	const struct cp_opt *opt;
	const struct cmd *cmd;
	int ret;

	/* As git and perf: a bare "cprof" is a usage error. */
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	opt = argv[1][0] == '-' ? cp_opt_find(opts, argv[1]) : NULL;
	if (argv[1][0] == '-' && !opt)
		return cp_usage_error(&cprof_usage, "unknown option '%s'", argv[1]);
	if (opt && opt->id == OPT_VERSION) {
		if (argc > 2)
			return cp_usage_error(&cprof_usage, "--version takes no arguments");
		printf("cprof %s\n", CAUSALPROF_VERSION);
		return close_stdout(0);
	}
	cmd = find_cmd(opt ? "help" : argv[1]);
	if (!cmd)
		return bad_cmd(argv[1]);
	ret = run(cmd, argc - 1, argv + 1);
	return close_stdout(ret);
}
