#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cprof record --causal end to end, against the module: the usage errors
# caught before a program starts; progress points given as a function, as
# FILE:LINE and through cprof.h; experiments that land in the recording as
# EXPERIMENT + CAUSAL pairs; the shape of the curves on the barrier ground
# truth (a() twice as long as b(): rising then flat for a(), flat for b()).
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
barrier=$targets/gt_barrier
. "$CAUSALPROF_REPO/tests/tap.sh"

# expect_usage DESCRIPTION PATTERN ARGS...: cprof record exits 2 and says PATTERN.
expect_usage()
{
	what=$1 pattern=$2
	shift 2
	timeout 30 "$CPROF" record -o "$tmp/u.data" "$@" > "$tmp/u.out" 2> "$tmp/u.err"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q -- "$pattern" "$tmp/u.err"; then
		say "$what: exit $rc (want 2), stderr (want '$pattern'):"
		show "$tmp/u.err"
		return 1
	fi
	if [ -e "$tmp/u.data" ]; then
		say "$what: a recording was written"
		return 1
	fi
	return 0
}

# The line number of the first line of FILE that has MARKER.
line_of()
{
	grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

test_usage()
{
	src=$CAUSALPROF_REPO/tests/targets/gt_barrier.c
	expect_usage "unknown function" "no_such_function" \
		--causal --progress no_such_function -- "$barrier" -d 1 || return 1
	expect_usage "line without code" "gt_barrier.c:1" \
		--causal --progress gt_barrier.c:1 -- "$barrier" -d 1 || return 1
	expect_usage "no progress points" "no progress points: give --progress or build with cprof.h/coz.h" \
		--causal -- "$barrier" -d 1 || return 1
	expect_usage "bad fixed line" "fixed-line" \
		--causal --progress progress --fixed-line nosuchfile.c:3 -- "$barrier" -d 1 || return 1
	expect_usage "speedup above 100" "fixed-speedup" \
		--causal --progress progress --fixed-speedup 101 -- "$barrier" -d 1 || return 1
	expect_usage "system-wide" "not -a" --causal --progress progress -a || return 1
	expect_usage "another event" "cpu-clock only" \
		--causal -e cycles --progress progress -- "$barrier" -d 1 || return 1
	expect_usage "progress without --causal" "with --causal" \
		--progress progress -- "$barrier" -d 1 || return 1
	expect_usage "malformed latency" "NAME=BEGIN_SPEC,END_SPEC" \
		--causal --latency progress -- "$barrier" -d 1 || return 1
	[ -n "$(line_of "$src" 'progress line')" ] || { say "no progress line in $src"; return 1; }
	return 0
}

echo "TAP version 13"
echo "1..1"
run_test "causal usage errors are caught before the program starts" test_usage
totals
