// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's option tables (user/options.c), on their own: that --help shows
 * every option getopt_long() is given, that the parse returns what the
 * table says, and the usage errors. No module needed: runs on the build
 * host as well as in the VM.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "options.h"

enum t_opt {
	T_EVENT = 'e', T_ALL = 'a', T_SHORT = 'x',
	T_QUIET = CP_OPT_LONG, T_RUNS, T_LONG_ARG, T_WIDE,
};

/* Every kind of entry: short and long, long only, short only, text. */
static const struct cp_opt t_opts[] = {
	CP_OPT(T_EVENT, "event", "EV[,EV...]", "events\nand a second line"),
	CP_OPT(T_ALL, "all-cpus", NULL, "the whole system"),
	CP_OPT(T_SHORT, NULL, "N", "short only"),
	CP_OPT_HELP,
	CP_OPT_TEXT("\nA heading:"),
	CP_OPT(T_QUIET, "quiet", NULL, "long only"),
	CP_OPT(T_RUNS, "runs", "N", "long only, with an argument"),
	CP_OPT(T_LONG_ARG, "long-argument", "NAME=BEGIN,END", "its help on the next line"),
	CP_OPT(T_WIDE, "exactly-wide", "ABCDE", "no room for a space: the next line"),
	CP_OPT_END
};

static const struct cp_usage t_usage = {
	.name = "cprof test",
	.usage = "usage: cprof test [-e EV] [--quiet] [ARGS...]\n",
	.about = "What it does.\n",
	.opts = t_opts,
	.notes = "Notes.\n",
};

static const struct cp_usage t_usage_in_order = {
	.name = "cprof test",
	.usage = "usage: cprof test [-a] CMD [ARGS...]\n",
	.opts = t_opts,
	.in_order = true,
};

/* What @fd (1 or 2) gets until read_captured(): a temporary file. */
struct capture {
	int fd, saved;
	FILE *file;
	char text[4096];
};

static void capture(struct capture *c, int fd)
{
	fflush(NULL);
	c->fd = fd;
	c->file = tmpfile();
	c->saved = dup(fd);
	if (!c->file || c->saved < 0 || dup2(fileno(c->file), fd) < 0)
		abort();
}

static const char *captured(struct capture *c)
{
	size_t n;

	fflush(NULL);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	return c->text;
}

/* Parses @argv to its end: the ids, as a string of letters ('L' for long ones). */
static int parse_all(const struct cp_usage *u, char **argv, char *ids, struct cp_getopt *g)
{
	int argc = 0, c;

	while (argv[argc])
		argc++;
	*g = (struct cp_getopt){ .u = u };
	while ((c = cp_getopt(g, argc, argv)) > 0)
		*ids++ = c < CP_OPT_LONG ? c : 'L';
	*ids = '\0';
	return c;
}

/* Has @help an option line that starts with @opt as a word? */
static bool has_option_line(const char *help, const char *opt)
{
	const char *line, *at;
	size_t len = strlen(opt);

	for (line = help; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (line[0] != ' ' || line[strspn(line, " ")] != '-')
			continue;
		for (at = strstr(line, opt); at && at < strchrnul(line, '\n');
		     at = strstr(at + 1, opt))
			if ((at[-1] == ' ') && strchr(" ,\n", at[len]))
				return true;
	}
	return false;
}

/*
 * The parser's own arrays against the help: every long option and every
 * short one getopt_long() is given has its line in --help.
 */
TEST(help_shows_every_parsed_option)
{
	char *argv[] = { "cprof test", NULL }, ids[16], opt[64];
	struct cp_getopt g;
	struct capture out;
	const char *help, *s;
	int n = 0;

	capture(&out, STDOUT_FILENO);
	cp_usage_print(&t_usage, stdout);
	help = captured(&out);
	ASSERT_EQ(0, parse_all(&t_usage, argv, ids, &g));
	for (n = 0; g.longopts[n].name; n++) {
		snprintf(opt, sizeof(opt), "--%s", g.longopts[n].name);
		EXPECT_TRUE(has_option_line(help, opt)) TH_LOG("%s not in:\n%s", opt, help);
	}
	EXPECT_EQ(7, n);
	for (s = g.shortopts; *s; s++) {
		if (*s == ':' || *s == '+')
			continue;
		snprintf(opt, sizeof(opt), "-%c", *s);
		EXPECT_TRUE(has_option_line(help, opt)) TH_LOG("%s not in:\n%s", opt, help);
	}
	EXPECT_STREQ(":e:ax:h", g.shortopts);
}

TEST(help_layout)
{
	struct capture out;
	const char *help;

	capture(&out, STDOUT_FILENO);
	cp_usage_print(&t_usage, stdout);
	help = captured(&out);
	EXPECT_STREQ("usage: cprof test [-e EV] [--quiet] [ARGS...]\n"
		     "\n"
		     "What it does.\n"
		     "\n"
		     "  -e, --event EV[,EV...]  events\n"
		     "                          and a second line\n"
		     "  -a, --all-cpus          the whole system\n"
		     "  -x N                    short only\n"
		     "  -h, --help              show this help\n"
		     "\n"
		     "A heading:\n"
		     "      --quiet             long only\n"
		     "      --runs N            long only, with an argument\n"
		     "      --long-argument NAME=BEGIN,END\n"
		     "                          its help on the next line\n"
		     "      --exactly-wide ABCDE\n"
		     "                          no room for a space: the next line\n"
		     "\n"
		     "Notes.\n", help);
}

TEST(parse_permuted)
{
	char *argv[] = { "cprof test", "-e", "cycles", "op", "--runs=3", "-ax", "5", "--quiet",
			 "--long-argument", "a=b,c", "--", "-a", NULL };
	struct cp_getopt g;
	char ids[16];

	ASSERT_EQ(0, parse_all(&t_usage, argv, ids, &g));
	EXPECT_STREQ("eLaxLL", ids);
	/* permuted: the operands after the options */
	ASSERT_EQ(10, optind);
	EXPECT_STREQ("op", argv[optind]);
	EXPECT_STREQ("-a", argv[optind + 1]);
}

TEST(parse_in_order)
{
	char *argv[] = { "cprof test", "-a", "cmd", "-e", "x", NULL };
	struct cp_getopt g;
	char ids[16];

	ASSERT_EQ(0, parse_all(&t_usage_in_order, argv, ids, &g));
	EXPECT_STREQ("a", ids);
	EXPECT_EQ(2, optind);
	/* a second parse (as of the command's own argv) starts afresh */
	ASSERT_EQ(0, parse_all(&t_usage_in_order, argv + 2, ids, &g));
	EXPECT_STREQ("e", ids);
	EXPECT_EQ(3, optind);
}

TEST(help_option)
{
	char *argv[] = { "cprof test", "--quiet", "--help", "--bogus", NULL };
	struct capture out, err;
	struct cp_getopt g;
	char ids[16];

	capture(&out, STDOUT_FILENO);
	capture(&err, STDERR_FILENO);
	ASSERT_EQ(-1, parse_all(&t_usage, argv, ids, &g));
	EXPECT_STREQ("", captured(&err));
	EXPECT_EQ(0, strncmp(captured(&out), "usage: cprof test", 17));
	EXPECT_EQ(0, g.status);
	EXPECT_STREQ("L", ids);
}

struct error_case {
	char *argv[4];
	const char *msg;
};

static const struct error_case errors[] = {
	{ { "cprof test", "--bogus", NULL }, "unknown option '--bogus'" },
	{ { "cprof test", "--bogus=1", NULL }, "unknown option '--bogus'" },
	{ { "cprof test", "-z", NULL }, "unknown option '-z'" },
	{ { "cprof test", "-az", NULL }, "unknown option '-z'" },
	{ { "cprof test", "--quiet", "-za", NULL }, "unknown option '-z'" },
	{ { "cprof test", "-e", NULL }, "option '-e' needs an argument" },
	{ { "cprof test", "-ae", NULL }, "option '-e' needs an argument" },
	{ { "cprof test", "--event", NULL }, "option '--event' needs an argument" },
	{ { "cprof test", "--runs", NULL }, "option '--runs' needs an argument" },
	{ { "cprof test", "--quiet=1", NULL }, "option '--quiet' takes no argument" },
	{ { "cprof test", "--all-cpus=1", NULL }, "option '--all-cpus' takes no argument" },
	{ { "cprof test", "--help=1", NULL }, "option '--help' takes no argument" },
};

TEST(usage_errors)
{
	struct capture out, err;
	struct cp_getopt g;
	char ids[16], want[256];
	const char *text;
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		capture(&out, STDOUT_FILENO);
		capture(&err, STDERR_FILENO);
		EXPECT_EQ(-1, parse_all(&t_usage, (char **)errors[i].argv, ids, &g));
		text = captured(&err);
		EXPECT_STREQ("", captured(&out));
		EXPECT_EQ(2, g.status);
		snprintf(want, sizeof(want), "cprof test: %s\n%sTry 'cprof test --help' for more.\n",
			 errors[i].msg, t_usage.usage);
		EXPECT_STREQ(want, text) TH_LOG("%s %s", errors[i].argv[1], errors[i].argv[2]);
	}
}

TEST(usage_error)
{
	struct capture err;

	capture(&err, STDERR_FILENO);
	EXPECT_EQ(2, cp_usage_error(&t_usage, "-c takes %s, not '%s'", "a count", "x"));
	EXPECT_STREQ("cprof test: -c takes a count, not 'x'\n"
		     "usage: cprof test [-e EV] [--quiet] [ARGS...]\n"
		     "Try 'cprof test --help' for more.\n", captured(&err));
}

TEST(find)
{
	EXPECT_EQ(T_EVENT, cp_opt_find(t_opts, "-e")->id);
	EXPECT_EQ(T_EVENT, cp_opt_find(t_opts, "--event")->id);
	EXPECT_EQ(T_QUIET, cp_opt_find(t_opts, "--quiet")->id);
	EXPECT_EQ('h', cp_opt_find(t_opts, "-h")->id);
	EXPECT_EQ(NULL, cp_opt_find(t_opts, "--even"));
	EXPECT_EQ(NULL, cp_opt_find(t_opts, "-ea"));
	EXPECT_EQ(NULL, cp_opt_find(t_opts, "-"));
	EXPECT_EQ(NULL, cp_opt_find(t_opts, "--"));
	EXPECT_EQ(NULL, cp_opt_find(t_opts, "e"));
}

TEST_HARNESS_MAIN
