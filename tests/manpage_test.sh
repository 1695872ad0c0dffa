#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The man page, Documentation/cprof.1, against cprof itself (no module
# needed: tests/manpage_test.sh runs on the host too): every command that
# `cprof help` lists has its entry, every option that `cprof COMMAND --help`
# shows (long and short) appears in the page, and so do cprof's own options;
# every option a synopsis names has its line in the help; the page has the
# sections a man page owes its reader; groff renders it without a warning.
# Prints TAP like the kselftest harness.
#
# A command's option lines in --help and the options its parser takes come
# from one table (user/options.c; tests/options_test checks that the two
# agree), so an option the page lacks is one the parser takes.

set -u

repo=${CAUSALPROF_REPO:-$(cd "$(dirname "$0")/.." && pwd -P)}
cprof=${CPROF:-$repo/user/cprof}
page=$repo/Documentation/cprof.1
. "$repo/tests/tap.sh"

# The page as words: roff's \- as -, font changes and \& dropped.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\(em/--/g' "$page" > "$tmp/page"

# The commands of `cprof help`: the lines under "Commands:".
commands()
{
	"$cprof" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}

# Options in a usage text: --long-names and -x, as separate words, from its
# synopsis (up to the first blank line) and its option table (lines that
# start with an option); only those of the synopsis, only those of the table.
words()
{
	grep -oE '(^|[][ ,|{(])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ ,|{(]//' | sort -u
}
synopsis_options()
{
	awk 'NR == 1, /^$/' "$1" | words
}
table_options()
{
	grep -E '^ +-' "$1" | words
}
options()
{
	{ synopsis_options "$1"; table_options "$1"; } | sort -u
}

# help_of COMMAND: its --help into $tmp/COMMAND.help (cprof's own: "top").
help_of()
{
	if [ "$1" = top ]; then
		"$cprof" --help > "$tmp/top.help" 2>&1
	else
		"$cprof" "$1" --help > "$tmp/$1.help" 2>&1
	fi
}

# in_page WORD: the page has WORD, not as part of a longer option.
in_page()
{
	grep -qE -- "(^|[^A-Za-z0-9-])$1([^A-Za-z0-9-]|\$)" "$tmp/page"
}

test_commands()
{
	ret=0
	for c in $(commands); do
		if ! grep -qE "^\.(B|BR|TP) \"?$c( |\"|\$)|^\.B $c\b|^\.SH $(echo "$c" | tr a-z A-Z)\$" "$tmp/page"; then
			say "command '$c' has no entry in cprof.1"
			ret=1
		fi
	done
	[ -n "$(commands)" ] || { say "cprof help lists no commands"; ret=1; }
	return $ret
}

# each_help CHECK: CHECK NAME FILE on the --help of cprof and of each command.
each_help()
{
	ret=0
	for c in top $(commands); do
		[ "$c" = help ] && continue
		name=cprof
		[ "$c" = top ] || name="cprof $c"
		help_of "$c" || { say "$name --help failed"; ret=1; continue; }
		"$1" "$name" "$tmp/$c.help" || ret=1
	done
	return $ret
}

options_in_page()
{
	bad=0
	for o in $(options "$2"); do
		in_page "$o" && continue
		say "$1: option $o is not in cprof.1"
		bad=1
	done
	return $bad
}

# The synopses are written by hand, the option lines come from the table:
# an option a synopsis names that the parser does not take is a typo.
synopsis_in_table()
{
	bad=0
	table_options "$2" > "$2.table"
	for o in $(synopsis_options "$2"); do
		grep -qxe "$o" "$2.table" && continue
		say "$1: option $o of the synopsis has no line in --help"
		bad=1
	done
	return $bad
}

test_options()
{
	each_help options_in_page
}

test_synopses()
{
	each_help synopsis_in_table
}

test_sections()
{
	ret=0
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'EXIT STATUS' ENVIRONMENT FILES \
		 EXAMPLES 'SEE ALSO'; do
		if ! grep -qxE "\.SH (\"$s\"|$s)" "$page"; then
			say "cprof.1 has no $s section"
			ret=1
		fi
	done
	return $ret
}

test_renders()
{
	if ! command -v groff > /dev/null; then
		reason="no groff"
		return 4
	fi
	if ! groff -man -Tutf8 -ww -z "$page" > "$tmp/groff" 2>&1 || [ -s "$tmp/groff" ]; then
		say "groff on cprof.1:"
		show "$tmp/groff"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..5"
if [ ! -x "$cprof" ]; then
	for t in commands options synopses sections renders; do
		n=$((n + 1)) skipped=$((skipped + 1))
		echo "ok $n $t # SKIP build cprof first (make cprof)"
	done
	totals
	exit
fi
run_test "every command of cprof help has an entry in cprof.1" test_commands
run_test "every option of cprof COMMAND --help is in cprof.1" test_options
run_test "every option of a synopsis has its line in --help" test_synopses
run_test "cprof.1 has the sections of a man page" test_sections
run_test "groff renders cprof.1 without a warning" test_renders
totals
