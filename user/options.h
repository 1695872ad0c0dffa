/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_OPTIONS_H
#define CPROF_OPTIONS_H

/*
 * A command's options described once, as perf's parse_options: one table
 * gives getopt_long() its arrays and --help its text, so the parser and the
 * help cannot disagree; cp_usage_error() is the one way a command reports
 * a usage error.
 *
 * A command names its options in an enum (a short option's id is its
 * letter, a long-only one's from CP_OPT_LONG on) and switches on
 * (enum ...)cp_getopt() without a default, so the compiler (-Wswitch) says
 * when an option has no case. cp_getopt() itself handles -h/--help, unknown
 * options and missing arguments.
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define CP_OPT_MAX	32	/* options in one table */
#define CP_OPT_LONG	0x100	/* the first id of an option with no short form */

struct cp_opt {
	int id;			/* the short option's letter, or from CP_OPT_LONG on; 0: text */
	const char *name;	/* the long option, without "--" */
	const char *arg;	/* its argument's name in the help; NULL: it takes none */
	const char *help;	/* lines separated by '\n'; text: printed as it is */
};

#define CP_OPT(id, name, arg, help)	{ (id), (name), (arg), (help) }
/* A heading or a note between the options (a leading "\n" for a blank line). */
#define CP_OPT_TEXT(text)		{ 0, NULL, NULL, (text) }
#define CP_OPT_HELP			{ 'h', "help", NULL, "show this help" }
#define CP_OPT_END			{ 0, NULL, NULL, NULL }

/* A command's help: usage, a blank line, about, the options, notes. */
struct cp_usage {
	const char *name;	/* "cprof record": the prefix of its messages */
	const char *usage;	/* the synopsis: "usage: cprof record ..." lines */
	const char *about;	/* a paragraph (or more) on what it does, or NULL */
	const struct cp_opt *opts;	/* ends with CP_OPT_END */
	const char *notes;	/* after the options, or NULL */
	bool in_order;		/* options end at the first operand (a command's own) */
};

/* A parse under way: zero it but for .u, then call cp_getopt() until it is <= 0. */
struct cp_getopt {
	const struct cp_usage *u;
	int status;		/* what the command returns when cp_getopt() was < 0 */
	bool started;
	struct option longopts[CP_OPT_MAX + 1];
	char shortopts[2 * CP_OPT_MAX + 3];
};

/*
 * The next option in @argv: its id (> 0; optarg its argument), 0 after the
 * last (optind the first operand), or -1 when the command is to return
 * g->status at once: 0 after --help printed the help on stdout, 2 after a
 * usage error (an unknown option, a missing or unwanted argument).
 */
int cp_getopt(struct cp_getopt *g, int argc, char *argv[]);

/* The entry of @opts that @arg ("-h", "--help") spells out in full, or NULL. */
const struct cp_opt *cp_opt_find(const struct cp_opt *opts, const char *arg);

/* The option lines of @opts, as --help shows them. */
void cp_opts_print(const struct cp_opt *opts, FILE *f);

/* The whole help of @u. */
void cp_usage_print(const struct cp_usage *u, FILE *f);

/*
 * "NAME: message", the synopsis and "Try 'NAME --help' for more." on stderr;
 * returns 2, the exit status of a usage error.
 */
int cp_usage_error(const struct cp_usage *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CPROF_OPTIONS_H */
