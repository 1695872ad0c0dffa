// SPDX-License-Identifier: GPL-2.0
/*
 * cprof: the command-line client of the causalprof kernel module.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cprof.h"

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

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: cprof <command> [<args>]\n"
	      "       cprof --version\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].desc);
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
	fprintf(stderr, "cprof: unknown command '%s'\n", name);
	usage(stderr);
	return 2;
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
	const struct cmd *cmd;
	char *help_argv[] = { NULL, "--help", NULL };

	if (argc > 2) {
		fprintf(stderr, "%s: too many arguments\n", argv[0]);
		usage(stderr);
		return 2;
	}
	if (argc == 1 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
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
	const struct cmd *cmd;
	int ret;

	/* As git and perf: a bare "cprof" is a usage error. */
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2) {
			fprintf(stderr, "cprof: --version takes no arguments\n");
			usage(stderr);
			return 2;
		}
		printf("cprof %s\n", CAUSALPROF_VERSION);
		return close_stdout(0);
	}
	if (argv[1][0] == '-' && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		fprintf(stderr, "cprof: unknown option '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	cmd = find_cmd(argv[1][0] == '-' ? "help" : argv[1]);
	if (!cmd)
		return bad_cmd(argv[1]);
	ret = run(cmd, argc - 1, argv + 1);
	return close_stdout(ret);
}
