#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Off-CPU profiles end to end (kmod/offcpu.c, cprof record --off-cpu,
# cprof report's off-cpu and wall events), on tests/targets/offcpu.c: its
# main thread sleeps in sleep_wait() (clock_nanosleep(), 40 times 15 ms)
# while a thread reads a pipe in pipe_wait(), fed every 15 ms by a
# producer process; the program times each wait around its call. Then:
# - recorded beside cpu-clock (in-kernel aggregation), as OFF_CPU records
#   (--raw) and alone (-e off-cpu): go tool pprof -sample_index=off-cpu
#   -top -cum puts sleep_wait() first of the program's functions, with
#   the time the program measured around clock_nanosleep() within 5 %,
#   and pipe_wait() with the time it measured around read() within 5 %;
# - cprof report --event off-cpu: the waits by reason, sleep the most,
#   what it put on sleep_wait() and pipe_wait() the same;
# - the wall sample type: cpu-clock and off-cpu added up; wait and
#   sched-delay add up to off-cpu;
# - only the session's targets: a copy of the program run meanwhile,
#   outside the session, has no wait in the recording;
# - the module's cap (max_off_cpu_rate): over it waits are counted, not
#   recorded, and said so;
# - --off-cpu with --causal or --every, and -e off-cpu alone with -F or
#   -c: exit 2 and a message.
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

target=$CAUSALPROF_REPO/build/tests/targets/offcpu
params=/sys/module/causalprof/parameters
. "$CAUSALPROF_REPO/tests/tap.sh"
export HOME=$tmp/home GOCACHE=$tmp/home/go-cache
mkdir -p "$HOME"

# Off-CPU time against the program's own measure: within TOLERANCE %.
TOLERANCE=5

# record NAME ARGS...: cprof record ARGS -- offcpu into $tmp/NAME.data; the
# program's line in $tmp/NAME.out
record()
{
	name=$1
	shift
	timeout 120 "$CPROF" record -o "$tmp/$name.data" "$@" -- "$target" \
		> "$tmp/$name.out" 2> "$tmp/$name.rec.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "cprof record $* exited $rc; stderr:"
		show "$tmp/$name.rec.err"
		return 1
	fi
	say "$(grep 'recorded' "$tmp/$name.rec.err")"
	say "offcpu: $(cat "$tmp/$name.out")"
}

# measured NAME FIELD: the program's sleep_ns or pipe_ns, in microseconds
measured()
{
	awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) printf "%d\n", $(i + 1) / 1000 }' \
		"$tmp/$1.out"
}

# pprof_cum NAME INDEX: go tool pprof -sample_index=INDEX -top -cum of
# $tmp/NAME.pb.gz into $tmp/NAME.INDEX.top, in microseconds
pprof_cum()
{
	go tool pprof -sample_index="$2" -top -cum -unit=us -nodecount=1000 \
		"$tmp/$1.pb.gz" > "$tmp/$1.$2.top" 2> "$tmp/$1.$2.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/$1.$2.err" ]; then
		say "go tool pprof -sample_index=$2 exited $rc; stderr:"
		show "$tmp/$1.$2.err"
		return 1
	fi
}

# cum FILE FUNCTION: FUNCTION's cum in a pprof -top table, in us (0: none)
cum()
{
	awk -v fn="$2" '$6 == fn { v = $4; sub(/us$/, "", v); printf "%d\n", v; found = 1; exit }
			END { if (!found) print 0 }' "$1"
}

# total FILE: the total of a pprof -top table's header, in us
total()
{
	awk '/^Showing nodes accounting for/ {
		v = $(NF - 1); sub(/us$/, "", v); printf "%d\n", v; exit }' "$1"
}

# within GOT WANT: GOT is within TOLERANCE % of WANT
within()
{
	[ "$2" -gt 0 ] && [ $((100 * ($1 - $2))) -le $((TOLERANCE * $2)) ] &&
		[ $((100 * ($2 - $1))) -le $((TOLERANCE * $2)) ]
}

status_u64()
{
	awk -v k="$1" '$1 == k ":" || $1 == k { print $NF; exit }' /proc/causalprof/status
}

# The time the off-CPU hooks took on every CPU so far (debugfs), ns.
hooks_ns()
{
	cat /sys/kernel/debug/causalprof/cpu*/off_cpu_ns 2> /dev/null |
		awk '{ s += $1 } END { printf "%d\n", s }'
}

# The program's own functions, for "first of them in the table".
OWN='^(sleep_wait|pipe_wait|reader|produce|nap)$'

test_truth()
{
	name=$1
	shift
	if ! command -v go > /dev/null; then
		reason="no go tool pprof"
		return 4
	fi
	hooks0=$(hooks_ns)
	waits0=$(status_u64 off_cpu)
	record "$name" "$@" || return 1
	waits=$(($(status_u64 off_cpu) - waits0))
	[ "$waits" -gt 0 ] &&
		say "$name: the hooks took $((($(hooks_ns) - hooks0) / waits)) ns a wait recorded (TCG)"
	if ! "$CPROF" report -i "$tmp/$name.data" --pprof "$tmp/$name.pb.gz" \
		2> "$tmp/$name.rep.err"; then
		show "$tmp/$name.rep.err"
		return 1
	fi
	pprof_cum "$name" off-cpu || return 1
	first=$(awk -v own="$OWN" 'NR > 6 && $6 ~ own { print $6; exit }' "$tmp/$name.off-cpu.top")
	sleep_us=$(measured "$name" sleep_ns)
	pipe_us=$(measured "$name" pipe_ns)
	got_sleep=$(cum "$tmp/$name.off-cpu.top" sleep_wait)
	got_pipe=$(cum "$tmp/$name.off-cpu.top" pipe_wait)
	say "$name: first of the program's functions: $first"
	say "$name: sleep_wait measured ${sleep_us} us, off-cpu ${got_sleep} us; pipe_wait measured ${pipe_us} us, off-cpu ${got_pipe} us"
	sed -n '1,16p' "$tmp/$name.off-cpu.top" > "$tmp/$name.head"
	show "$tmp/$name.head"
	echo "$name $sleep_us $got_sleep $pipe_us $got_pipe" >> "$tmp/truths"
	[ "$first" = sleep_wait ] || return 1
	within "$got_sleep" "$sleep_us" || return 1
	within "$got_pipe" "$pipe_us" || return 1
}

# cprof report's own off-cpu table, of the first recording: the waits by
# reason (sleep the most: the main thread's and the producer's), and the
# same time on sleep_wait() and pipe_wait() as pprof's.
test_text()
{
	name=agg
	[ -e "$tmp/$name.data" ] || { reason="no recording"; return 4; }
	if ! "$CPROF" report -i "$tmp/$name.data" --event off-cpu --node-fraction 0 \
		> "$tmp/text" 2> "$tmp/text.err"; then
		show "$tmp/text.err"
		return 1
	fi
	sed -n '1,12p' "$tmp/text" > "$tmp/text.head"
	show "$tmp/text.head"
	grep -q '^# event 1: off-cpu: [0-9]* waits, 0 not recorded' "$tmp/text" || return 1
	grep -q '^# off-cpu by reason:.* sleep ' "$tmp/text" || return 1
	# The text table's cum of sleep_wait, against pprof's (both rounded).
	cum_ms=$(awk '$6 == "sleep_wait" { v = $4
			if (v ~ /ms$/) v = v + 0; else if (v ~ /us$/) v = v / 1000
			else if (v ~ /s$/) v = v * 1000
			print int(v); exit }' "$tmp/text")
	pp_ms=$(($(cum "$tmp/$name.off-cpu.top" sleep_wait) / 1000))
	say "sleep_wait in cprof report: ${cum_ms:-none} ms; in pprof: $pp_ms ms"
	[ -n "$cum_ms" ] && [ $((cum_ms - pp_ms)) -le 1 ] && [ $((pp_ms - cum_ms)) -le 1 ]
}

# The sample types of a cpu-clock and off-cpu profile: wall is cpu-clock
# plus off-cpu, and off-cpu is wait plus sched-delay.
test_types()
{
	name=agg
	[ -e "$tmp/$name.pb.gz" ] || { reason="no profile"; return 4; }
	for t in cpu-clock wall wait sched-delay; do
		pprof_cum "$name" $t || return 1
	done
	cpu=$(total "$tmp/$name.cpu-clock.top")
	off=$(total "$tmp/$name.off-cpu.top")
	wall=$(total "$tmp/$name.wall.top")
	wait=$(total "$tmp/$name.wait.top")
	delay=$(total "$tmp/$name.sched-delay.top")
	say "totals (us): cpu-clock $cpu, off-cpu $off, wall $wall; wait $wait, sched-delay $delay"
	# pprof rounds each total to 4 digits.
	within "$wall" $((cpu + off)) && within $((wait + delay)) "$off"
}

# A copy of the program, started outside the session while it records
# another: none of its waits is recorded.
test_targets_only()
{
	cp "$target" "$tmp/outsider"
	"$tmp/outsider" 10 60 10 10 > /dev/null &
	bg=$!
	record only -e off-cpu || return 1
	wait "$bg"
	bg=
	"$CPROF" report -i "$tmp/only.data" --threads > "$tmp/only.threads" 2> "$tmp/only.err" ||
		{ show "$tmp/only.err"; return 1; }
	show "$tmp/only.threads"
	# Every thread is the program's (named offcpu; cprof before its exec),
	# of a process one of whose threads is named offcpu: not the
	# outsider's, nor any other process's, named or not ([unknown]).
	awk '$1 == "weight" { on = 1; next }
	     on && NF >= 6 {
		n++; pids[$4] = 1
		if ($6 == "offcpu") ours[$4] = 1
		else if ($6 != "cprof") bad = 1
	     }
	     END { for (p in pids) if (!(p in ours)) bad = 1; exit bad || !n }' "$tmp/only.threads"
}

# max_off_cpu_rate 100 a second per CPU: 1 a 10 ms window. The program's
# 1 ms sleeps exceed it; the others are counted (off_cpu_capped), told by
# cprof record and cprof report, and what was recorded stays under the cap.
test_cap()
{
	old=$(cat $params/max_off_cpu_rate)
	before=$(status_u64 off_cpu_capped)
	echo 100 > $params/max_off_cpu_rate
	timeout 120 "$CPROF" record -e off-cpu -o "$tmp/cap.data" -- "$target" 1 300 10 5 \
		> "$tmp/cap.out" 2> "$tmp/cap.rec.err"
	rc=$?
	echo "$old" > $params/max_off_cpu_rate
	show "$tmp/cap.rec.err"
	[ "$rc" -eq 0 ] || return 1
	capped=$(($(status_u64 off_cpu_capped) - before))
	say "off_cpu_capped went up by $capped"
	[ "$capped" -gt 0 ] || return 1
	grep -q "off-CPU waits not recorded.*over the module's max_off_cpu_rate" \
		"$tmp/cap.rec.err" || return 1
	"$CPROF" report -i "$tmp/cap.data" > "$tmp/cap.top" 2> "$tmp/cap.err" ||
		{ show "$tmp/cap.err"; return 1; }
	head -n 6 "$tmp/cap.top" > "$tmp/cap.head"
	show "$tmp/cap.head"
	grep -q "over max_off_cpu_rate" "$tmp/cap.top" || return 1
	# 300 sleeps of 1 ms take 0.3 s at least: at most 100 waits a CPU-second
	# recorded, and some slack for a window's edges.
	waits=$(awk '/^# event 0: off-cpu:/ { print $5; exit }' "$tmp/cap.top")
	say "recorded $waits waits of some 330"
	[ -n "$waits" ] && [ "$waits" -lt 250 ]
}

test_usage()
{
	usage_error "--off-cpu and --causal exclude" \
		"$CPROF" record --off-cpu --causal -- "$target" || return 1
	usage_error "--off-cpu and --causal exclude" \
		"$CPROF" record -e off-cpu --causal -- "$target" || return 1
	usage_error "--off-cpu and --every exclude" \
		"$CPROF" record --off-cpu --every 1s -o "$tmp/every" -- "$target" || return 1
	usage_error "-e off-cpu alone samples nothing: -F" \
		"$CPROF" record -e off-cpu -F 99 -- "$target" || return 1
	usage_error "-e off-cpu alone samples nothing: -c" \
		"$CPROF" record -e off-cpu -c 1000 -- "$target" || return 1
	usage_error "empty event name" "$CPROF" record -e cpu-clock,,off-cpu -- "$target" ||
		return 1
	usage_error "unknown event 'offcpu'" "$CPROF" record -e offcpu -- "$target"
}

run_test "beside cpu-clock: sleep_wait first, waits within $TOLERANCE %" test_truth agg \
	-e cpu-clock,off-cpu -F 1000
run_test "OFF_CPU records (--raw): the same" test_truth raw --off-cpu -e cpu-clock --raw
run_test "-e off-cpu alone: the same" test_truth alone -e off-cpu
run_test "cprof report's off-cpu table: by reason, the same times" test_text
run_test "wall is cpu-clock plus off-cpu, off-cpu wait plus sched-delay" test_types
run_test "only the session's targets have their waits recorded" test_targets_only
run_test "over max_off_cpu_rate waits are counted, not recorded" test_cap
run_test "bad --off-cpu combinations: exit 2" test_usage
[ -e "$tmp/truths" ] && say "name sleep_us off_cpu_us pipe_us off_cpu_us:" && show "$tmp/truths"
totals
