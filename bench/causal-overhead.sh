#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Causal-mode overhead, paired: each round runs a ground truth
# (tests/targets/gt_*.c) unprofiled, then under `cprof record --causal
# --fixed-speedup 0` (every experiment at 0 %: nothing inserted, so what
# is left is the cost of sampling, the experiments' bookkeeping and cprof
# itself), then under Debian's coz-profiler (`coz run`, its coz.h build)
# when it is installed. Each program reports its own rate (events per
# second of its own run), so cprof's start-up and its writing of the
# recording after the program ends do not count. Overhead = unprofiled
# rate / profiled rate - 1, per round; the table has the median of the
# rounds and their spread (max - min).
#
# Only meaningful under -icount (one vCPU, deterministic guest time):
# bench/run runs it so; on ordinary TCG the rounds vary by more than the
# overhead, and the script says so and stops.
#
# Env: CAUSALPROF_REPO, CAUSALPROF_KO, CPROF (the VM harness); ICOUNT
# (set by bench/run); PROGS (default "barrier pipe futex"), REPS (rounds,
# default 3), RUN_S (seconds a run, default 6), COZ (0: leave Coz out).

repo=${CAUSALPROF_REPO:?}
targets=$repo/build/tests/targets
src=$repo/tests/targets
progs=$(echo "${PROGS:-barrier pipe futex}" | tr , " ")
reps=${REPS:-3}
run_s=${RUN_S:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${ICOUNT:-}" ]; then
	echo "# causal-overhead: needs -icount (bench/run runs it so); skipped"
	exit 0
fi
grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
use_coz=0
if [ "${COZ:-1}" != 0 ] && command -v coz > /dev/null; then
	use_coz=1
fi

# rate CMD...: the program's own events per second
rate()
{
	"$@" 2> /dev/null | sed -n 's/.* rate \([0-9.]*\).*/\1/p' | tail -n 1
}

# overhead U P: percent
overhead()
{
	awk -v u="$1" -v p="$2" 'BEGIN { if (u == "" || p == "" || p == 0) print "?";
		else printf "%.2f\n", 100 * (u / p - 1) }'
}

# cell FILE: "median (spread)" of the percentages in FILE
cell()
{
	sort -n "$1" | awk '$1 != "?" { v[++n] = $1 } END {
		if (!n) { print "-"; exit }
		m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%+.1f %% (%.1f)", m, v[n] - v[1] }'
}

echo "RESULT "
echo "RESULT ## Causal-mode overhead, paired (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench BENCH=causal-overhead\`, bench/causal-overhead.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, 1 vCPU, -icount shift=$ICOUNT (deterministic guest time), kernel $(uname -r)."
echo "RESULT $reps rounds of ${run_s} s runs; each round: unprofiled, cprof --causal --fixed-speedup 0,"
echo "RESULT Coz (coz run, its coz.h build). Overhead: unprofiled rate / profiled rate - 1,"
echo "RESULT median of the rounds (max - min of the rounds in brackets, points)."
echo "RESULT "
echo "RESULT | program | cprof --causal | Coz |"
echo "RESULT | --- | --- | --- |"
for p in $progs; do
	case $p in
	barrier)
		bin=gt_barrier args="-d $run_s" point="--progress progress" ;;
	pipe)
		bin=gt_pipe args="-d $run_s -P"
		point="--progress gt_pipe.c:$(grep -n '/\* progress line' "$src/gt_pipe.c" | cut -d: -f1)" ;;
	futex)
		bin=gt_futex args="-d $run_s" point= ;;
	*)
		echo "# causal-overhead: no program $p"
		continue ;;
	esac
	exe=$targets/$bin
	[ "$p" = futex ] && exe=$targets/gt_futex_sdt
	: > "$tmp/cprof" ; : > "$tmp/coz"
	r=1
	while [ "$r" -le "$reps" ]; do
		u=$(rate "$exe" $args)
		c=$(rate "$CPROF" record --causal $point --fixed-speedup 0 -o "$tmp/c.data" -- "$exe" $args)
		overhead "$u" "$c" >> "$tmp/cprof"
		echo "# $p round $r: unprofiled $u, cprof $c"
		if [ "$use_coz" = 1 ] && [ -x "$targets/${bin}_coz" ]; then
			u=$(rate "$targets/${bin}_coz" $args)
			z=$(cd "$tmp" && rate coz run --- "$targets/${bin}_coz" $args)
			overhead "$u" "$z" >> "$tmp/coz"
			echo "# $p round $r: unprofiled (coz.h build) $u, Coz $z"
		fi
		r=$((r + 1))
	done
	echo "RESULT | $p | $(cell "$tmp/cprof") | $(cell "$tmp/coz") |"
done
exit 0
