#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# FUNC%return progress points end to end: cprof record --causal resolves
# the spec to every exit of the function (user/funcbody.c) and the module
# counts them as one probe of several sites. Against programs that say how
# many calls they made (tests/targets/retcount.c, and goret.go built by
# each Go installed), read in /proc/causalprof/progress before they exit:
# - C: a function that leaves by ret, rep ret and a tail call (jmp to
#   another function): its %return point counts exactly its calls, as its
#   entry point does; so does one with a part elsewhere that no symbol
#   names, some calls coming back from it, some leaving from it; a
#   conditional tail call is refused;
# - Go: a recursive function whose goroutines' stacks grow (runtime
#   morestack, the function restarted, the stack copied): its entry point
#   (placed at the stack check's jbe, the hits that take it to morestack
#   not counted but seen: debugfs progress/restarts grows) and its %return
#   point both count exactly the calls made;
# - --latency NAME=FUNC,FUNC%return measures the time spent in a function
#   that sleeps MS ms: MS to 2 MS on average, begins and ends exact;
# - %return after anything but a function, or another suffix: exit 2.
# Experiments run at 0 % (--fixed-speedup 0): no delay lands in the
# measured time. Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
retcount=$targets/retcount
. "$CAUSALPROF_REPO/tests/tap.sh"	# its counter is $n: not used here

# record STATE ARGS...: cprof record --causal ARGS in the background until
# the program writes STATE; then the module's points into $tmp/progress,
# STATE into $tmp/state, STATE removed (the program exits), cprof waited for.
record()
{
	state=$1
	shift
	rm -f "$state"
	"$CPROF" record --causal --fixed-speedup 0 -o "$tmp/r.data" "$@" \
		> "$tmp/r.out" 2> "$tmp/r.err" &
	bg=$!
	i=0
	while [ ! -e "$state" ]; do
		if ! kill -0 "$bg" 2> /dev/null || [ $i -ge 1200 ]; then
			say "cprof record $*: the program did not finish its calls"
			show "$tmp/r.err"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	cat /proc/causalprof/progress > "$tmp/progress"
	cp "$state" "$tmp/state"
	# The program idles a second more before it exits: cprof record
	# exits 1 when no experiment completed, and 3000 calls of a C
	# function took 0.6 s in all once (a CI run on 6.1, 2026-11-28),
	# before the first experiment ended.
	sleep 1
	rm -f "$state"
	wait "$bg"
	rc=$?
	bg=
	if [ "$rc" -ne 0 ]; then
		say "cprof record $*: exit $rc"
		show "$tmp/r.err"
		return 1
	fi
}

# field ID KEY: the value of KEY= on point ID's line of $tmp/progress.
field()
{
	awk -v id="id=$1" -v key="$2=" '$1 == id {
		for (i = 2; i <= NF; i++)
			if (index($i, key) == 1)
				print substr($i, length(key) + 1)
	}' "$tmp/progress"
}

# expect ID KEY VALUE: point ID's KEY is VALUE.
expect()
{
	got=$(field "$1" "$2")
	[ "$got" = "$3" ] && return 0
	say "point $1: $2=$got, want $3"
	show "$tmp/progress"
	return 1
}

# mean_within ID LO_MS HI_MS: point ID's mean latency (area / ends) in [LO, HI] ms.
mean_within()
{
	area=$(field "$1" area_ns) ends=$(field "$1" ends)
	if ! awk -v a="$area" -v e="$ends" -v lo="$2" -v hi="$3" \
	     'BEGIN { m = e ? a / e / 1e6 : -1; exit !(m >= lo && m <= hi) }'; then
		say "point $1: area_ns=$area over $ends ends, not $2 to $3 ms each"
		show "$tmp/progress"
		return 1
	fi
}

test_c_exits()
{
	calls=3000
	record "$tmp/st" --progress multi_exit --progress 'multi_exit%return' \
		--progress 'coldy%return' -- "$retcount" "$tmp/st" $calls 0 0 || return 1
	expect 1 count $calls && expect 2 count $calls &&
		expect 2 sites 3 &&	# ret, rep ret, jmp tail_target
		expect 3 count $calls && expect 3 sites 2	# its body's ret, its part's
}

test_c_latency()
{
	k=20 ms=20
	record "$tmp/st" --latency 'slow=slow,slow%return' \
		-- "$retcount" "$tmp/st" 0 $k $ms || return 1
	expect 1 begins $k && expect 1 ends $k && expect 1 inflight 0 &&
		mean_within 1 $ms $((2 * ms))
}

# go_exits GO: goret built by GO (go, go1.23).
go_exits()
{
	prog=$targets/goret-$1
	if [ ! -x "$prog" ]; then
		reason="$prog not built ($1 not installed)"
		return 4
	fi
	k=10 ms=20
	r0=$(cat /sys/kernel/debug/causalprof/progress/restarts)
	record "$tmp/st" --progress main.deep --progress 'main.deep%return' \
		--latency 'sleepy=main.sleepy,main.sleepy%return' \
		-- "$prog" "$tmp/st" 50 40 $k $ms || return 1
	r1=$(cat /sys/kernel/debug/causalprof/progress/restarts)
	calls=$(awk '{ print $2 }' "$tmp/state")
	[ "$calls" = $((50 * 41)) ] || { say "goret made $calls calls"; return 1; }
	say "stack checks that grew the stack: $((r1 - r0))"
	[ "$r1" -gt "$r0" ] || { say "no restart at main.deep's stack check"; return 1; }
	expect 1 count "$calls" && expect 2 count "$calls" &&
		expect 3 begins $k && expect 3 ends $k && mean_within 3 $ms $((2 * ms))
}

# usage DESCRIPTION PATTERN SPEC: --progress SPEC is refused (exit 2, PATTERN said).
usage()
{
	usage_error "$2" timeout 60 "$CPROF" record --causal -o "$tmp/u.data" \
		--progress "$3" -- "$retcount" "$tmp/u" 0 0 0 || { say "($1)"; return 1; }
}

test_refused()
{
	usage "conditional tail call" "a conditional jump out of the function at cond_tail+0x3" \
		'cond_tail%return' &&
	usage "a line" "%return follows a function" 'retcount.c:60%return' &&
	usage "a USDT probe" "%return follows a function" 'sdt:cprof:x%return' &&
	usage "another suffix" "the only suffix is %return" 'multi_exit%ret' &&
	usage "no function" "no function 'nosuch'" 'nosuch%return'
}

echo "TAP version 13"
echo "1..5"
run_test c_exits test_c_exits
run_test c_latency test_c_latency
run_test go_exits go_exits go
run_test go1.23_exits go_exits go1.23
run_test refused test_refused
totals
