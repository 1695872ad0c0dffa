#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The man page, Documentation/cprof.1, against cprof itself (no module
# needed: tests/manpage_test.sh runs on the host too): every command that
# `cprof help` lists has its entry, every option that `cprof COMMAND --help`
# shows (long and short) appears in the page, and so do cprof's own options;
# the page has the sections a man page owes its reader; groff renders it
# without a warning. Prints TAP like the kselftest harness.

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
# start with an option).
options()
{
	{ awk 'NR == 1, /^$/' "$1"; grep -E '^ +-' "$1"; } |
		grep -oE '(^|[][ ,|{(])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ ,|{(]//' | sort -u
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

test_options()
{
	ret=0
	for c in $(commands); do
		[ "$c" = help ] && continue
		"$cprof" "$c" --help > "$tmp/$c.help" 2>&1 || {
			say "cprof $c --help failed"
			ret=1
			continue
		}
		for o in $(options "$tmp/$c.help"); do
			if ! in_page "$o"; then
				say "cprof $c: option $o is not in cprof.1"
				ret=1
			fi
		done
	done
	"$cprof" --help > "$tmp/top.help" 2>&1
	for o in $(options "$tmp/top.help") --version -h --help; do
		if ! in_page "$o"; then
			say "cprof: option $o is not in cprof.1"
			ret=1
		fi
	done
	return $ret
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
echo "1..4"
if [ ! -x "$cprof" ]; then
	for t in commands options sections renders; do
		n=$((n + 1)) skipped=$((skipped + 1))
		echo "ok $n $t # SKIP build cprof first (make cprof)"
	done
	totals
	exit
fi
run_test "every command of cprof help has an entry in cprof.1" test_commands
run_test "every option of cprof COMMAND --help is in cprof.1" test_options
run_test "cprof.1 has the sections of a man page" test_sections
run_test "groff renders cprof.1 without a warning" test_renders
totals
