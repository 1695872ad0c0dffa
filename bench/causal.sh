#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Causal profiling accuracy on a ground truth (tests/targets/gt_barrier.c:
# two threads meet at a barrier, a() twice as long as b()). The truth is
# measured unprofiled in this VM boot: interleaved rounds of the program
# with a() or b() really shortened (-a PCT, -b PCT), medians and their
# spread. Then the predictions of cprof record --causal (default mode and
# --fixed-line) and of Debian's coz-profiler (coz run, default mode and
# --fixed-line) for a() at 20, 40, 60 % and b() at 40 %, each the mean of
# the rows within 5 points of that speedup, weighted by their experiments
# (Coz's numbers through its own viewer, Debian's profile.js, run by
# node). Errors are in points.
#
# Env: CAUSALPROF_REPO, CAUSALPROF_KO, CPROF (set by the VM harness); REPS
# (truth rounds, default 3), TRUTH_S (seconds a truth run, default 8),
# RUN_S (seconds a profiled run, default 90).

repo=${CAUSALPROF_REPO:?}
gt=$repo/build/tests/targets/gt_barrier
gtcoz=$repo/build/tests/targets/gt_barrier_coz
src=$repo/tests/targets/gt_barrier.c
viewer=/usr/share/coz-profiler/viewer/js/profile.js
reps=${REPS:-3}
truth_s=${TRUTH_S:-8}
run_s=${RUN_S:-90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
la=$(grep -n '/\* a line' "$src" | cut -d: -f1)
lb=$(grep -n '/\* b line' "$src" | cut -d: -f1)

# rate KNOB: rounds per second of one unprofiled run
rate()
{
	"$gt" -d "$truth_s" $1 | sed -n 's/.*rate //p'
}

# median of the numbers on stdin
median()
{
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# spread of the numbers on stdin: (max - min) / median, percent
spread()
{
	sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f", m ? 100 * (v[NR] - v[1]) / m : 0 }'
}

knobs="base:|a20:-a 20|a40:-a 40|a60:-a 60|b40:-b 40"
r=1
while [ "$r" -le "$reps" ]; do
	IFS='|'
	for k in $knobs; do
		IFS=' '
		name=${k%%:*}
		rate "${k#*:}" >> "$tmp/rate.$name"
	done
	IFS=' '
	r=$((r + 1))
done
base=$(median < "$tmp/rate.base")
# truth NAME: program speedup in time per round, percent
truth()
{
	awk -v b="$base" -v k="$(median < "$tmp/rate.$1")" 'BEGIN { printf "%.1f", 100 * (1 - b / k) }'
}

# cprof_rows FILE LINE: "SPEEDUP PROGRAM EXPERIMENTS" rows of that line
cprof_rows()
{
	awk -v want="gt_barrier.c:$2" '
		/^ +[-+][0-9.]+ %  / { on = index($0, want " ") > 0; next }
		on && /^ +[0-9]+ %/ { v = $3; sub(/^\+/, "", v); print $1, v, $NF }
	' "$1"
}

# coz_rows FILE LINE: the same through Coz's viewer
coz_rows()
{
	node -e '
		const fs = require("fs"), vm = require("vm");
		vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"));
		const p = new Profile(fs.readFileSync(process.argv[2], "utf8"), null, null,
			() => 1, () => {});
		for (const r of p.getSpeedupData(1))
			if (r.name.endsWith(process.argv[3]))
				for (const m of r.progress_points[0].measurements)
					console.log(Math.round(m.speedup * 100), (100 * m.progress_speedup).toFixed(1), 1);
	' "$viewer" "$1" "gt_barrier.c:$2" 2> /dev/null
}

# near ROWS AT: the prediction at AT % (rows within 5 points, weighted)
near()
{
	awk -v at="$2" '
		$1 >= at - 5 && $1 <= at + 5 { s += $2 * $3; n += $3 }
		END { if (n) printf "%.1f", s / n; else print "-" }' "$1"
}

err()
{
	awk -v p="$1" -v t="$2" 'BEGIN { if (p == "-") print "-"; else printf "%+.1f", p - t }'
}

run_cprof()
{
	name=$1
	shift
	timeout $((run_s * 2)) "$CPROF" record --causal --progress progress -o "$tmp/$name.data" \
		"$@" -- "$gt" -d "$run_s" > /dev/null 2> "$tmp/$name.err"
	"$CPROF" report --causal --top 5 -i "$tmp/$name.data" > "$tmp/$name.txt" 2>&1
	cprof_rows "$tmp/$name.txt" "$la" > "$tmp/$name.a"
	cprof_rows "$tmp/$name.txt" "$lb" > "$tmp/$name.b"
}

run_coz()
{
	name=$1
	shift
	(cd "$tmp" && rm -f profile.coz &&
	 timeout $((run_s * 2)) coz run "$@" --- "$gtcoz" -d "$run_s" > /dev/null 2>&1)
	cp "$tmp/profile.coz" "$tmp/$name.coz" 2> /dev/null || : > "$tmp/$name.coz"
	coz_rows "$tmp/$name.coz" "$la" > "$tmp/$name.a"
	coz_rows "$tmp/$name.coz" "$lb" > "$tmp/$name.b"
}

run_cprof cdef
run_cprof cfixa --fixed-line "gt_barrier.c:$la"
run_cprof cfixb --fixed-line "gt_barrier.c:$lb"
cat "$tmp/cfixb.b" >> "$tmp/cfixa.b"
if command -v coz > /dev/null && [ -x "$gtcoz" ] && command -v node > /dev/null; then
	run_coz zdef
	run_coz zfixa --fixed-line "$src:$la"
	run_coz zfixb --fixed-line "$src:$lb"
	cat "$tmp/zfixb.b" >> "$tmp/zfixa.b"
	tools="cdef cfixa zdef zfixa"
else
	tools="cdef cfixa"
fi

# The period of the 0 % experiments of a recording (ms per visit).
baseline_ms()
{
	sed -n 's/.*; baseline \([0-9.]*\) ms per visit.*/\1/p' "$tmp/$1.txt" | head -n 1
}

label() {
	case $1 in
	cdef) echo "cprof, default" ;; cfixa) echo "cprof, --fixed-line" ;;
	zdef) echo "Coz, default" ;; zfixa) echo "Coz, --fixed-line" ;;
	esac
}

echo "RESULT "
echo "RESULT ## Causal accuracy: barrier ground truth (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench BENCH=causal\`, bench/causal.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, $(nproc) vCPUs, kernel $(uname -r). tests/targets/gt_barrier: a() twice as"
echo "RESULT long as b(), meeting at a barrier. Truth: unprofiled, $reps interleaved rounds of ${truth_s} s,"
echo "RESULT medians (spread of the baseline: $(spread < "$tmp/rate.base") %). Predictions: runs of ${run_s} s,"
echo "RESULT each the mean of the rows within 5 points (cprof: its report; Coz: its viewer). Error = prediction - truth, in points."
echo "RESULT "
echo "RESULT | tool | a() 20 % | a() 40 % | a() 60 % | b() 40 % |"
echo "RESULT | --- | --- | --- | --- | --- |"
echo "RESULT | truth | $(truth a20) % | $(truth a40) % | $(truth a60) % | $(truth b40) % |"
for t in $tools; do
	row="| $(label "$t") |"
	for at in 20 40 60; do
		p=$(near "$tmp/$t.a" "$at")
		row="$row $p ($(err "$p" "$(truth "a$at")")) |"
	done
	p=$(near "$tmp/$t.b" 40)
	row="$row $p ($(err "$p" "$(truth b40)")) |"
	echo "RESULT $row"
done
p0=$(baseline_ms cdef)
echo "RESULT "
echo "RESULT Causal-mode overhead: cprof's 0 % experiments (default mode) take ${p0:-?} ms per round,"
echo "RESULT unprofiled runs $(awk -v b="$base" 'BEGIN { printf "%.3f", 1000 / b }') ms: $(awk -v p="$p0" -v b="$base" 'BEGIN { if (p == "") print "?"; else printf "%+.1f", 100 * (p * b / 1000 - 1) }') %."
