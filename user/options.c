// SPDX-License-Identifier: GPL-2.0
/*
 * Option tables: getopt_long()'s arrays and the --help text of a command
 * from one description, and its usage errors.
 */

#define _GNU_SOURCE
#include <assert.h>
#include <stdarg.h>
#include <string.h>

#include "options.h"

#define HELP_COLUMN	26	/* where an option's help starts */

static bool is_option(const struct cp_opt *o)
{
	return o->id > 0;
}

static bool has_short(const struct cp_opt *o)
{
	return o->id > 0 && o->id < CP_OPT_LONG;
}

/* "+:e:c:ah" and the long options, from the table. */
static void build(struct cp_getopt *g)
{
	const struct cp_opt *o;
	char *s = g->shortopts;
	size_t n = 0;

	if (g->u->in_order)
		*s++ = '+';
	*s++ = ':';	/* a missing argument is ':', not '?' */
	for (o = g->u->opts; o->id || o->help; o++) {
		if (!is_option(o))
			continue;
		assert(n < CP_OPT_MAX && (o->name || has_short(o)));
		if (has_short(o)) {
			assert(o->id != ':' && o->id != '?' && o->id != '+');
			*s++ = o->id;
			if (o->arg)
				*s++ = ':';
		}
		if (o->name)
			g->longopts[n++] = (struct option){
				.name = o->name,
				.has_arg = o->arg ? required_argument : no_argument,
				.val = o->id,
			};
	}
	*s = '\0';
	g->longopts[n] = (struct option){ 0 };
}

static const struct cp_opt *find_id(const struct cp_opt *opts, int id)
{
	const struct cp_opt *o;

	for (o = opts; o->id || o->help; o++)
		if (is_option(o) && o->id == id)
			return o;
	return NULL;
}

/* What getopt_long() refused, in the words of the element it stopped at. */
static int bad_option(struct cp_getopt *g, int c, char *argv[])
{
	const char *elem = argv[optind - 1];
	int len = strcspn(elem, "=");
	bool is_long = !strncmp(elem, "--", 2);

	if (c == ':' && is_long)
		return cp_usage_error(g->u, "option '%.*s' needs an argument", len, elem);
	if (c == ':')
		return cp_usage_error(g->u, "option '-%c' needs an argument", optopt);
	/* optopt: an unknown letter, or the option a --long=ARG was not for */
	if (optopt && find_id(g->u->opts, optopt) && is_long)
		return cp_usage_error(g->u, "option '%.*s' takes no argument", len, elem);
	if (optopt && optopt < CP_OPT_LONG)
		return cp_usage_error(g->u, "unknown option '-%c'", optopt);
	return cp_usage_error(g->u, "unknown option '%.*s'", len, elem);
}

int cp_getopt(struct cp_getopt *g, int argc, char *argv[])
{
	int c;

	if (!g->started) {
		build(g);
		g->started = true;
		optind = 0;	/* glibc: start afresh, whatever parsed before */
		opterr = 0;
	}
	c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
	switch (c) {
	case -1:
		return 0;
	case 'h':
		cp_usage_print(g->u, stdout);
		g->status = 0;
		return -1;
	case ':':
	case '?':
		g->status = bad_option(g, c, argv);
		return -1;
	default:
		return c;
	}
}

const struct cp_opt *cp_opt_find(const struct cp_opt *opts, const char *arg)
{
	const struct cp_opt *o;

	for (o = opts; o->id || o->help; o++) {
		if (!is_option(o))
			continue;
		if (arg[0] == '-' && arg[1] == '-' && o->name && !strcmp(arg + 2, o->name))
			return o;
		if (arg[0] == '-' && has_short(o) && arg[1] == o->id && !arg[2])
			return o;
	}
	return NULL;
}

/* "  -e, --event EV" or "      --no-inherit", then the help from HELP_COLUMN. */
static void print_opt(const struct cp_opt *o, FILE *f)
{
	const char *line = o->help, *end;
	int n, pad;

	if (has_short(o))
		n = fprintf(f, "  -%c%s", o->id, o->name ? ", " : "");
	else
		n = fprintf(f, "      ");
	if (o->name)
		n += fprintf(f, "--%s", o->name);
	if (o->arg)
		n += fprintf(f, " %s", o->arg);
	if (n >= HELP_COLUMN) {
		fputc('\n', f);
		n = 0;
	}
	pad = HELP_COLUMN - n;
	for (;;) {
		end = strchrnul(line, '\n');
		fprintf(f, "%*s%.*s\n", pad, "", (int)(end - line), line);
		if (!*end)
			break;
		line = end + 1;
		pad = HELP_COLUMN;
	}
}

void cp_opts_print(const struct cp_opt *opts, FILE *f)
{
	const struct cp_opt *o;

	for (o = opts; o->id || o->help; o++) {
		if (is_option(o))
			print_opt(o, f);
		else
			fprintf(f, "%s\n", o->help);
	}
}

void cp_usage_print(const struct cp_usage *u, FILE *f)
{
	fputs(u->usage, f);
	if (u->about)
		fprintf(f, "\n%s", u->about);
	fputc('\n', f);
	cp_opts_print(u->opts, f);
	if (u->notes)
		fprintf(f, "\n%s", u->notes);
}

int cp_usage_error(const struct cp_usage *u, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", u->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%sTry '%s --help' for more.\n", u->usage, u->name);
	return 2;
}
