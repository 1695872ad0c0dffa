#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cprof record and cprof report end to end, against the module: a recording
# of a busy two-thread program, its exit status passed through, its file and
# its report; a recording cut by SIGINT; an event the machine cannot sample;
# the default event. Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
spin=$targets/spin
. "$CAUSALPROF_REPO/tests/tap.sh"

state()
{
	sed -n 's/^state: //p' /proc/causalprof/status
}

# wait_gone PID SECONDS: poll until the background job PID exits; its status in $rc.
wait_gone()
{
	i=0
	while kill -0 "$1" 2> /dev/null; do
		i=$((i + 1))
		[ "$i" -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
	wait "$1"
	rc=$?
	return 0
}

# A PMU is there when cycles can be sampled; test_cycles finds out.
pmu=unknown

test_record()
{
	out=$tmp/x.data
	timeout 60 "$CPROF" record -e cpu-clock -o "$out" -- "$spin" -t 2 -s 2 -x 3 \
		> "$tmp/record.out" 2> "$tmp/record.err"
	rc=$?
	if [ "$rc" -ne 3 ]; then
		say "cprof record exited $rc, the target 3; stderr:"
		show "$tmp/record.err"
		return 1
	fi
	line=$(grep -E 'recorded [0-9]+ samples \(0 lost\)' "$tmp/record.err")
	samples=$(printf '%s\n' "$line" | sed -E 's/.*recorded ([0-9]+) samples.*/\1/')
	if [ -z "$line" ] || [ "$samples" -eq 0 ]; then
		say "no 'recorded N samples (0 lost)' with N > 0; stderr:"
		show "$tmp/record.err"
		return 1
	fi
	say "$line"
	magic=$(head -c 8 "$out")
	if [ "$magic" != CPROFREC ]; then
		say "$out starts with '$magic', not CPROFREC"
		return 1
	fi
	return 0
}

# The top table by function has the target's hot function first; the thread
# view has both workers.
test_report()
{
	out=$tmp/x.data
	[ -f "$out" ] || { say "no recording from the previous test"; return 1; }
	"$CPROF" report -i "$out" > "$tmp/report.out" 2> "$tmp/report.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/report.err" ]; then
		say "cprof report exited $rc; stderr:"
		show "$tmp/report.err"
		return 1
	fi
	# "flat flat% sum% cum cum% name", heaviest first, after the column titles
	top=$(grep -v '^#' "$tmp/report.out" | sed -n '2p')
	if [ "$(printf '%s\n' "$top" | awk '{ print $NF }')" != hot_spin ]; then
		say "the top function is not hot_spin: '$top'; the report:"
		show "$tmp/report.out"
		return 1
	fi
	say "top function: $top"
	"$CPROF" report -i "$out" --threads > "$tmp/threads.out" 2> "$tmp/report.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/report.err" ]; then
		say "cprof report --threads exited $rc; stderr:"
		show "$tmp/report.err"
		return 1
	fi
	# "weight weight% samples pid tid comm"; both workers are there
	threads=$(grep -v '^#' "$tmp/threads.out" | awk '$6 == "spin" && $3 > 0' | wc -l)
	if [ "$threads" -lt 2 ]; then
		say "fewer than 2 threads of spin in the thread view:"
		show "$tmp/threads.out"
		return 1
	fi
	return 0
}

# cum% of function $2 in the top table $1 (0 if absent)
cum_of()
{
	awk -v f="$2" '/^ *flat  *flat%/ { on = 1; next }
		       on && $6 == f { sub("%", "", $5); print $5; found = 1; exit }
		       END { if (!found) print 0 }' "$1"
}

# The same deterministic workload (groundtruth: a() twice as long as b()),
# recorded raw and aggregated (the default): the recordings differ (SAMPLE
# records, or COUNT and STACK records, by recsum), the top tables agree.
test_raw_vs_aggregated()
{
	gt=$targets/groundtruth
	recsum=$CAUSALPROF_REPO/build/tests/tools/recsum
	for mode in raw agg; do
		opt=
		[ "$mode" = raw ] && opt=--raw
		timeout 60 "$CPROF" record -e cpu-clock $opt -o "$tmp/$mode.data" -- \
			timeout 4 "$gt" 20 10 > /dev/null 2> "$tmp/$mode.err"
		rc=$?
		# timeout's status: the target was killed, as meant
		if [ "$rc" -ne 124 ]; then
			say "cprof record $opt exited $rc; stderr:"
			show "$tmp/$mode.err"
			return 1
		fi
		"$recsum" "$tmp/$mode.data" > "$tmp/$mode.sum" || { say "recsum $mode failed"; return 1; }
		"$CPROF" report -i "$tmp/$mode.data" > "$tmp/$mode.top" 2> "$tmp/$mode.rerr" || {
			show "$tmp/$mode.rerr"
			return 1
		}
		say "$mode: $(grep '^records' "$tmp/$mode.sum"), a() $(cum_of "$tmp/$mode.top" a)%, b() $(cum_of "$tmp/$mode.top" b)%"
	done
	set -- $(sed -n 's/^records sample \([0-9]*\) count \([0-9]*\) stack \([0-9]*\)$/\1 \2 \3/p' "$tmp/raw.sum")
	if [ "${1:-0}" -eq 0 ] || [ "$2" -ne 0 ] || [ "$3" -ne 0 ]; then
		say "--raw: not SAMPLE records only"
		return 1
	fi
	set -- $(sed -n 's/^records sample \([0-9]*\) count \([0-9]*\) stack \([0-9]*\)$/\1 \2 \3/p' "$tmp/agg.sum")
	if [ "${2:-0}" -eq 0 ] || [ "$3" -eq 0 ] || [ "$1" -ne 0 ]; then
		say "default: not COUNT and STACK records only"
		return 1
	fi
	awk -v ra="$(cum_of "$tmp/raw.top" a)" -v rb="$(cum_of "$tmp/raw.top" b)" \
	    -v aa="$(cum_of "$tmp/agg.top" a)" -v ab="$(cum_of "$tmp/agg.top" b)" 'BEGIN {
		d = ra - aa; if (d < 0) d = -d
		e = rb - ab; if (e < 0) e = -e
		# a() above b() in both (2:1 unless the VM is starved), and the
		# two tables within 8 points of each other
		ok = rb > 0 && ab > 0 && ra / rb > 1.2 && aa / ab > 1.2 && d < 8 && e < 8
		exit !ok }' || {
		say "the top tables disagree; raw:"
		show "$tmp/raw.top"
		say "aggregated:"
		show "$tmp/agg.top"
		return 1
	}
	return 0
}

# SIGINT to cprof while the target runs: the file is finished and readable.
test_sigint()
{
	out=$tmp/int.data
	# --raw: the file grows with every sample (aggregated, by a few KiB a
	# second), so that the signal comes while the target runs
	"$CPROF" record --raw -e cpu-clock -o "$out" -- "$spin" -t 1 -s 60 \
		> /dev/null 2> "$tmp/int.err" &
	bg=$!
	# recording: the file grows past its header and META (bounded wait)
	i=0
	while [ "$(stat -c %s "$out" 2> /dev/null || echo 0)" -lt 65536 ]; do
		i=$((i + 1))
		if [ "$i" -gt 200 ] || ! kill -0 "$bg" 2> /dev/null; then
			say "the recording did not grow to 64 KiB in 20 s; stderr:"
			show "$tmp/int.err"
			return 1
		fi
		sleep 0.1
	done
	kill -INT "$bg"
	if ! wait_gone "$bg" 20; then
		say "cprof still runs 20 s after SIGINT"
		return 1
	fi
	bg=
	# the target was stopped with a signal: 128 + SIGTERM or SIGINT
	if [ "$rc" -ne 143 ] && [ "$rc" -ne 130 ]; then
		say "cprof exited $rc after SIGINT; stderr:"
		show "$tmp/int.err"
		return 1
	fi
	if ! grep -q 'recorded [0-9]* samples' "$tmp/int.err"; then
		say "no summary after SIGINT; stderr:"
		show "$tmp/int.err"
		return 1
	fi
	"$CPROF" report -i "$out" > "$tmp/int.report" 2> "$tmp/int.report.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/int.report.err" ] ||
	   ! grep -q ' hot_spin' "$tmp/int.report"; then
		say "cprof report of the interrupted recording exited $rc; stderr:"
		show "$tmp/int.report.err"
		show "$tmp/int.report"
		return 1
	fi
	[ "$(state)" = idle ] || { say "state $(state) after cprof exited"; return 1; }
	return 0
}

# An event the machine cannot sample: an error that names it, no file, no session.
test_cycles()
{
	"$CPROF" record -e cycles -o "$tmp/c.data" -- true > /dev/null 2> "$tmp/c.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pmu=yes
		reason="a PMU samples cycles here"
		return 4
	fi
	pmu=no
	if ! grep -q cycles "$tmp/c.err"; then
		say "cprof record -e cycles exited $rc without naming cycles; stderr:"
		show "$tmp/c.err"
		return 1
	fi
	say "$(head -n 1 "$tmp/c.err")"
	[ "$(state)" = idle ] || { say "state $(state) after the failed start"; return 1; }
	return 0
}

# No -e: cycles, and where there is no PMU, cpu-clock after a notice.
test_default_event()
{
	out=$tmp/d.data
	timeout 60 "$CPROF" record -o "$out" -- "$spin" -t 1 -s 1 \
		> /dev/null 2> "$tmp/d.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "cprof record without -e exited $rc; stderr:"
		show "$tmp/d.err"
		return 1
	fi
	if [ "$pmu" = yes ]; then
		reason="a PMU samples cycles here: no fallback"
		return 4
	fi
	if ! grep -q 'cpu-clock' "$tmp/d.err"; then
		say "no notice of the fallback to cpu-clock; stderr:"
		show "$tmp/d.err"
		return 1
	fi
	if ! grep -qa 'event.0.name=cpu-clock' "$out"; then
		say "the recording's META does not name cpu-clock as event 0"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..6"
run_test "record passes the exit status and counts its samples" test_record
run_test "report shows threads and the hot function first" test_report
run_test "aggregated and raw recordings give the same top table" test_raw_vs_aggregated
run_test "SIGINT finishes a readable recording" test_sigint
run_test "cycles without a PMU fails naming it" test_cycles
run_test "the default event falls back to cpu-clock" test_default_event
totals
