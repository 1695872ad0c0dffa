#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The programs of examples/ (built by make tests into build/examples/) still
# show what their READMEs say, against the module: the bad LRU cache's
# report has lru_evict on top; the fixed cache makes the same lookups in
# under a third of the time with lru_evict no longer on top; the Go
# program's pprof read by go tool pprof puts main.isPrime first; the causal
# profile of frames (about 30 s), its point found in the program, ranks
# draw_sky's line first, well ahead of draw_ground's. Prints TAP like the
# kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

ex=$CAUSALPROF_REPO/build/examples
. "$CAUSALPROF_REPO/tests/tap.sh"
export HOME=$tmp/home GOCACHE=$tmp/home/go-cache
mkdir -p "$HOME"
gets=1000000

# run NAME COMMAND...: COMMAND's output in $tmp/NAME.out, its stderr in
# $tmp/NAME.err; fails, showing them, if it exits non-zero
run()
{
	name=$1
	shift
	timeout 200 "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" < /dev/null
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "$* exited $rc; stdout, stderr:"
		show "$tmp/$name.out"
		show "$tmp/$name.err"
		return 1
	fi
	return 0
}

# The first row of a top table (cprof report, go tool pprof -top): "FLAT% NAME".
top_row()
{
	awk '/^ +flat +flat%/ { on = 1; next } on && NF >= 6 { print $2, $6; exit }' "$1"
}

# The flat % of function $2 in top table $1, 0 if absent.
flat_of()
{
	awk -v f="$2" '/^ +flat +flat%/ { on = 1; next }
		on && $6 == f { sub(/%/, "", $2); print $2; found = 1; exit }
		END { if (!found) print 0 }' "$1"
}

# Seconds from the examples' "lru: N gets in S s" line.
lru_secs()
{
	sed -n 's/^lru: [0-9]* gets in \([0-9.]*\) s .*/\1/p' "$1"
}

test_lru()
{
	run lru.rec "$CPROF" record -e cpu-clock -o "$tmp/lru.data" -- "$ex/lru" "$gets" || return 1
	run lru "$CPROF" report -i "$tmp/lru.data" || return 1
	set -- $(top_row "$tmp/lru.out")
	if [ "${2:-}" != lru_evict ] || [ "$(echo "${1%\%} > 70" | bc)" != 1 ]; then
		say "lru_evict is not first with over 70 %:"
		show "$tmp/lru.out"
		return 1
	fi
	return 0
}

test_lru_fixed()
{
	run fixed.rec "$CPROF" record -e cpu-clock -o "$tmp/fixed.data" -- "$ex/lru-fixed" "$gets" ||
		return 1
	run fixed "$CPROF" report -i "$tmp/fixed.data" || return 1
	bad=$(lru_secs "$tmp/lru.rec.out")
	good=$(lru_secs "$tmp/fixed.rec.out")
	say "lru: $bad s, lru-fixed: $good s"
	if [ -z "$bad" ] || [ -z "$good" ] || [ "$(echo "$good * 3 < $bad" | bc)" != 1 ]; then
		say "lru-fixed is not three times as fast:"
		show "$tmp/lru.rec.out"
		show "$tmp/fixed.rec.out"
		return 1
	fi
	set -- $(top_row "$tmp/fixed.out")
	evict=$(flat_of "$tmp/fixed.out" lru_evict)
	if [ "${2:-}" = lru_evict ] || [ "$(echo "$evict < 20" | bc)" != 1 ]; then
		say "lru_evict still on top, or over 20 % ($evict %):"
		show "$tmp/fixed.out"
		return 1
	fi
	return 0
}

test_go()
{
	if [ ! -x "$ex/primes" ] || ! command -v go > /dev/null; then
		reason="no go: the Go example is not built"
		return 4
	fi
	run primes.rec "$CPROF" record -e cpu-clock -o "$tmp/primes.data" -- "$ex/primes" "$gets" ||
		return 1
	run primes.pprof "$CPROF" report -i "$tmp/primes.data" --pprof "$tmp/primes.pb.gz" || return 1
	run primes go tool pprof -top "$tmp/primes.pb.gz" || return 1
	set -- $(top_row "$tmp/primes.out")
	if [ "${2:-}" != main.isPrime ] || [ -s "$tmp/primes.err" ]; then
		say "main.isPrime is not first, or go tool pprof complained:"
		show "$tmp/primes.out"
		show "$tmp/primes.err"
		return 1
	fi
	return 0
}

# The impact of the line of function $2 in causal table $1, or nothing.
impact_of()
{
	awk -v f="($2)" '$2 == "%" && $NF == f { sub(/^\+/, "", $1); print $1; exit }' "$1"
}

test_causal()
{
	run frames.rec "$CPROF" record --causal -o "$tmp/frames.data" -- "$ex/frames" 30 || return 1
	run frames "$CPROF" report --causal -i "$tmp/frames.data" --plot "$tmp/frames.svg" ||
		return 1
	first=$(awk '$2 == "%" && $NF ~ /^\(/ { print $NF; exit }' "$tmp/frames.out")
	sky=$(impact_of "$tmp/frames.out" draw_sky)
	ground=$(impact_of "$tmp/frames.out" draw_ground)
	say "impact: draw_sky ${sky:-none} %, draw_ground ${ground:-none} %"
	if ! grep -q '^# progress point frame (throughput)' "$tmp/frames.out" ||
	   [ "$first" != "(draw_sky)" ] || [ -z "$ground" ] ||
	   [ "$(echo "$sky > $ground + 10" | bc)" != 1 ]; then
		say "draw_sky's line is not first, 10 points ahead of draw_ground's:"
		show "$tmp/frames.out"
		return 1
	fi
	if ! grep -q '<svg' "$tmp/frames.svg"; then
		say "no chart in frames.svg"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..4"
run_test "lru: lru_evict on top" test_lru
run_test "lru-fixed: three times as fast, lru_evict no longer on top" test_lru_fixed
run_test "primes (Go): main.isPrime first in go tool pprof -top" test_go
run_test "frames: the causal profile ranks draw_sky first" test_causal
totals
