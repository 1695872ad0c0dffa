#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The HTTP/2 example (examples/go-http2) under cprof's Go hooks: the
# standard library's HTTP/2 server over TLS on the loopback, a client
# keeping 10 requests in flight on one connection, a latency point from
# the server's processHeaders() of a request to its closeStream() (function
# specs, no source change). The server serves every request while the
# hooks and the latency point's uprobes fire, the point counts the
# requests, and the profile ranks the handler's work() first: its impact
# (the mean of its predictions) a third of its truth at 40 % or more, the
# truth measured just before in the same boot, its curve rising, and
# tidy(), the janitor no request waits for, below it.
#
# tests/vm/check runs it in a boot of its own on single-threaded TCG
# (VM_ACCEL=tcg,thread=single, single_programs in tests/vm/lib.sh): uprobes
# in Go 1.19's runtime crash the program under multi-threaded TCG, with or
# without the module (Documentation/testing.rst). Prints TAP like the
# kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/causal.sh"

srv=$CAUSALPROF_REPO/build/examples/gohttp2
src=$CAUSALPROF_REPO/examples/go-http2/main.go
addr=127.0.0.1:8443
run_s=${CAUSAL_RUN_S:-90}
truth_s=${CAUSAL_TRUTH_S:-8}
latency='req=net/http.(*http2serverConn).processHeaders,net/http.(*http2serverConn).closeStream'
RECORD_TIMEOUT=$((run_s * 3))

# listening FILE: waits (30 s at most) for the server's "listening" line.
listening()
{
	i=0
	while ! grep -q '^listening' "$1" 2> /dev/null; do
		i=$((i + 1))
		[ "$i" -le 300 ] || { say "no server after 30 s:"; show "$1"; return 1; }
		sleep 0.1
	done
}

# load SEC: the client for SEC seconds; its line in $tmp/load.out.
load()
{
	if ! "$srv" load -addr "$addr" -d "$1" > "$tmp/load.out" 2> "$tmp/load.err"; then
		say "gohttp2 load failed:"
		show "$tmp/load.err"
		return 1
	fi
}

# field NAME: a number of the client's line.
field()
{
	sed -n "s/^\(.* \)\{0,1\}$1 \([0-9.]*\).*/\2/p" "$tmp/load.out"
}

# served ARGS...: the requests a second of an unprofiled server with ARGS.
served()
{
	"$srv" serve -addr "$addr" -d $((truth_s + 30)) "$@" > "$tmp/srv.out" 2>&1 &
	pid=$!
	ok=0
	listening "$tmp/srv.out" && load "$truth_s" && ok=1
	kill "$pid"
	wait "$pid" 2> /dev/null
	[ "$ok" = 1 ] && field rate
}

# profiled NAME LINE: a --fixed-line LINE recording of the server, loaded
# by the client meanwhile; the report in $tmp/NAME.txt.
profiled()
{
	timeout "$RECORD_TIMEOUT" "$CPROF" record --causal -o "$tmp/$1.data" --fixed-line "$2" \
		--latency "$latency" -- "$srv" serve -addr "$addr" -d "$run_s" \
		> "$tmp/$1.out" 2> "$tmp/$1.err" &
	bg=$!
	listening "$tmp/$1.out" && load $((run_s - 10)) || return 1
	wait "$bg"
	rc=$?
	bg=
	if [ "$rc" -ne 0 ]; then
		say "cprof record exited $rc (the server under the hooks died?):"
		show "$tmp/$1.err"
		return 1
	fi
	"$CPROF" report --causal -i "$tmp/$1.data" > "$tmp/$1.txt" 2> "$tmp/$1.rerr" || {
		say "cprof report --causal failed:"
		show "$tmp/$1.rerr"
		return 1
	}
}

setup()
{
	if [ ! -x "$srv" ]; then
		reason="no build/examples/gohttp2 (needs Debian's golang-go)"
		return 4
	fi
	ip link set lo up 2> /dev/null
	lwork=main.go:$(line_of "$src" "// work line")
	ltidy=main.go:$(line_of "$src" "// tidy line")
	base=$(served) || return 1
	t40=$(truth "$base" "$(served -w 40)")
	o40=$(truth "$base" "$(served -t 40)")
	say "unprofiled: $base requests/s; truth: work() 40 % $t40 %, tidy() 40 % $o40 %"
}

t_serves()
{
	[ -n "${lwork:-}" ] || { reason=$setup_reason; return 4; }
	profiled work "$lwork" || return 1
	answered=$(field events)
	visits=$(sed -n 's/^# progress point req (latency): \([0-9]*\) visits.*/\1/p' "$tmp/work.txt")
	say "client: $answered requests answered; latency point: ${visits:-no} visits in the experiments"
	# Experiments take part of the run, the cool-offs between them the rest.
	if [ -z "$answered" ] || [ -z "$visits" ] || [ "$visits" -lt $((answered / 10)) ] ||
	   [ "$visits" -gt $((answered + 1)) ]; then
		say "wanted between a tenth of the requests and all of them (and one); the report:"
		show "$tmp/work.txt"
		return 1
	fi
}

# impact NAME LINE: the impact the report gives LINE (the mean of its
# predictions over 0-100 %), or none.
impact()
{
	awk -v want="$2" '/^ +[-+][0-9.]+ %  / && index($0, want " ") {
			v = $1; sub(/^\+/, "", v); print v; found = 1; exit }
		END { if (!found) print "none" }' "$tmp/$1.txt"
}

# work() matters: its impact is a third of its truth at 40 % or more, and
# its rows from 60 % on read above those up to 30 % by half of that truth.
# Not its value at 40 % against the truth: a --fixed-line run spreads its
# experiments over 21 speedups, a handful each, and its rows move by 10
# points from one speedup to the next; with the hooks on one CPU's worth
# of time it also reads low (examples/go-http2/README.md: 8 to 15 points at
# 40 and 60 %, and -16 in one run of this test). With no delay inserted
# the impact read 0.3 and the rows fell.
t_work()
{
	[ -s "$tmp/work.txt" ] || { reason="no recording (the test before failed or skipped)"; return 4; }
	imp=$(impact work "$lwork") lo=$(span work "$lwork" 0 30) hi=$(span work "$lwork" 60 100)
	say "work(): impact $imp %, predicted $(predicted work "$lwork" 40) % at 40 % (truth $t40 %), rows up to 30 %: $lo %, from 60 %: $hi %"
	if ! awk -v i="$imp" -v lo="$lo" -v hi="$hi" -v t="$t40" 'BEGIN {
			exit !(i != "none" && lo != "none" && hi != "none" && t != "none" &&
			       i >= t / 3 && hi - lo >= t / 2) }'; then
		say "wanted an impact of $t40 / 3 or more and a rise of $t40 / 2; the report:"
		show "$tmp/work.txt"
		return 1
	fi
}

# tidy()'s impact below work()'s by a third of work()'s truth at 40 %: the
# profile says which of the two is worth making faster.
t_tidy()
{
	[ -n "${lwork:-}" ] || { reason=$setup_reason; return 4; }
	[ -s "$tmp/work.txt" ] || { reason="no recording of work() (the first test failed)"; return 4; }
	profiled tidy "$ltidy" || return 1
	w=$(impact work "$lwork") o=$(impact tidy "$ltidy")
	say "tidy(): impact $o %, predicted $(predicted tidy "$ltidy" 40) % at 40 % (truth $o40 %); work(): impact $w %"
	if ! awk -v w="$w" -v o="$o" -v t="$t40" 'BEGIN {
			exit !(w != "none" && o != "none" && t != "none" && o < w - t / 3) }'; then
		say "tidy() not below work() by $t40 / 3 points; the report:"
		show "$tmp/tidy.txt"
		return 1
	fi
}

echo "TAP version 13"
echo "1..3"
setup_reason=
setup
case $? in
0) ;;
4) setup_reason=$reason; lwork= ;;
*) setup_reason="the unprofiled server failed"; lwork= ;;
esac
run_test "HTTP/2 server under the Go hooks: every request answered, the latency point counts them" t_serves
run_test "HTTP/2 server: work() matters, its curve rising" t_work
run_test "HTTP/2 server: tidy(), which no request waits for, ranks below work()" t_tidy
totals
