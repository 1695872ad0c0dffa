#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sampling overhead: a CPU-bound workload (a thread per CPU) run
# unprofiled, under "cprof record" and under "perf record" at the same
# event (cpu-clock), rate and call-graph setting, at 1 kHz and 10 kHz, and
# with only the cpu-clock timers ticking (a session on a sleeping process:
# the part of any cpu-clock sampler's overhead that no sampler can avoid). Runs are interleaved
# (the order rotates every repetition) and medians are compared, since TCG
# timings vary by about 10 % from run to run. The workload times its own
# work, so perf's start-up (~9 s in the VM) is not counted.
#
# Env: CAUSALPROF_REPO, CAUSALPROF_KO, CPROF (set by the VM harness);
# REPS (default 7), ITERS (default 150000000), THREADS (default: the
# number of CPUs).

repo=${CAUSALPROF_REPO:?}
wl=$repo/build/bench/workload
reps=${REPS:-7}
iters=${ITERS:-150000000}
threads=${THREADS:-$(nproc)}
tmp=$(mktemp -d)

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
command -v perf > /dev/null || { echo "perf is not installed"; exit 1; }

sleep 100000 &
sleeper=$!
trap 'kill $sleeper 2> /dev/null' EXIT

elapsed() { sed -n 's/^elapsed_ns //p' "$1"; }

# run MODE RATE: prints the workload's elapsed ns
run()
{
	case $1 in
	base)
		"$wl" "$threads" "$iters" > "$tmp/out" ;;
	timer)
		# The sampling interrupts alone: a session whose target sleeps,
		# so every cpu-clock tick finds a non-target and returns.
		echo "start pid=$sleeper event=cpu-clock freq=$2" > /proc/causalprof/control &&
		"$wl" "$threads" "$iters" > "$tmp/out"
		echo stop > /proc/causalprof/control ;;
	cprof)
		"$CPROF" record -e cpu-clock -F "$2" -o "$tmp/c.data" -- \
			"$wl" "$threads" "$iters" > "$tmp/out" 2> "$tmp/cprof.err"
		sed -n 's/.*recorded \([0-9]*\) samples (\([0-9]*\) lost).*/\1 \2/p' \
			"$tmp/cprof.err" >> "$tmp/cprof.$2.summary" ;;
	perf)
		perf record -q -e cpu-clock -F "$2" -g -o "$tmp/p.data" -- \
			"$wl" "$threads" "$iters" > "$tmp/out" 2> "$tmp/perf.err" ;;
	esac || { echo "$1 at $2 Hz failed:"; cat "$tmp"/*.err 2>/dev/null; return 1; }
	elapsed "$tmp/out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "RESULT "
echo "RESULT ## Sampling overhead (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench\`, bench/sampling.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, $(nproc) vCPUs${ICOUNT:+, -icount shift=$ICOUNT}, kernel $(uname -r); workload: $threads threads x $iters rounds;"
echo "RESULT cpu-clock with call stacks; $reps interleaved repetitions, medians."
if [ -n "${ICOUNT:-}" ]; then
	echo "RESULT Guest time is deterministic under -icount (one guest instruction = 2^$ICOUNT ns):"
	echo "RESULT the repetitions agree to 0.1 %, whatever else the host runs."
else
	echo "RESULT Ordinary TCG: wall times vary by 10-25 % from run to run, more than the"
	echo "RESULT overheads; the lost counts are the point here, the -icount table the overheads."
fi
echo "RESULT "
echo "RESULT | rate | unprofiled (ms) | timer ticks only | cprof (ms) | cprof overhead | perf (ms) | perf overhead | cprof / perf overhead | cprof samples (lost) |"
echo "RESULT | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for rate in 1000 10000; do
	: > "$tmp/base"; : > "$tmp/timer"; : > "$tmp/cprof"; : > "$tmp/perf"
	i=0
	while [ $i -lt "$reps" ]; do
		case $((i % 3)) in
		0) order="base timer cprof perf" ;;
		1) order="cprof perf base timer" ;;
		2) order="perf base timer cprof" ;;
		esac
		for m in $order; do
			t=$(run "$m" "$rate") || exit 1
			echo "$t" >> "$tmp/$m"
			echo "# $rate Hz rep $i $m $t ns"
		done
		i=$((i + 1))
	done
	b=$(median < "$tmp/base"); f=$(median < "$tmp/timer"); c=$(median < "$tmp/cprof"); p=$(median < "$tmp/perf")
	samples=$(awk '{ s += $1; l += $2 } END { printf "%d per run (%d lost in all)", s / NR, l }' \
		"$tmp/cprof.$rate.summary")
	awk -v r="$rate" -v b="$b" -v f="$f" -v c="$c" -v p="$p" -v s="$samples" 'BEGIN {
		co = (c - b) / b * 100; po = (p - b) / b * 100
		ratio = po > 0 ? sprintf("%.2f", co / po) : "n/a"
		printf "RESULT | %d Hz | %.0f | %+.1f %% | %.0f | %+.1f %% | %.0f | %+.1f %% | %s | %s |\n",
			r, b / 1e6, (f - b) / b * 100, c / 1e6, co, p / 1e6, po, ratio, s
	}'
done
rm -rf "$tmp"
