#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Always-on profiling's cost: build/bench/alwayson (THREADS threads, their
# work in the program, zlib, libm and libc) run unprofiled, under
#
#   e10     cprof record --every 10s (99 Hz, cpu-clock, symbolized)
#   e1      cprof record --every 1s
#   ns10    cprof record --every 10s --no-symbolize
#   perf    perf record -F 99 -g (cpu-clock)
#
# interleaved (the order rotates every repetition), medians compared. The
# program times its own work, so that start-ups (perf's, ~9 s in the VM)
# are not counted; its rounds are calibrated to RUN_S seconds unprofiled.
# cprof says what its reports cost in CPU (the first, which opens and reads
# the files and kallsyms once, and the later ones): the first is reported
# apart, and the "steady" overhead is the run's less that first report
# (one vCPU: what cprof runs the program does not). Each --every 1s run is
# checked for one profile per second of the session (one either way) and
# no interval skipped.
#
# Then, with LONG_S > 0, a long run: cprof record -a --every 1s
# --symbol-cache LONG_CACHE for LONG_S seconds while processes start and
# exit (a busy alwayson, and a round of short programs each second): its
# RSS from the first minutes to the last, the symbols kept against the
# cap, the evictions, the profiles against the seconds.
#
# Meant for one vCPU under -icount (bench/run's stanza sets ALWAYS_ON=1);
# skipped otherwise, so that the run of the other benchmarks leaves it out.
#
# Env: CAUSALPROF_REPO, CPROF (set by the VM harness); REPS (default 3),
# RUN_S (25), THREADS (2), LONG_S (600), LONG_CACHE (MiB, 16: room for libc
# with its debug file, not for all the short programs).

if [ -z "${ALWAYS_ON:-}" ]; then
	echo "# always-on.sh runs from its own stanza of bench/run (BENCH=always-on)"
	exit 0
fi
repo=${CAUSALPROF_REPO:?}
wl=$repo/build/bench/alwayson
reps=${REPS:-3}
run_s=${RUN_S:-25}
threads=${THREADS:-2}
long_s=${LONG_S:-600}
long_cache=${LONG_CACHE:-16}
tmp=$(mktemp -d)
modes="base e10 e1 ns10 perf"
nmodes=5

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
command -v perf > /dev/null || { echo "perf is not installed"; exit 1; }
[ -x "$wl" ] || { echo "no $wl: make -C bench"; exit 1; }

elapsed() { sed -n 's/^elapsed_ns //p' "$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# (max - min) / median, in %
spread() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (v[NR] - v[1]) / v[int((NR + 1) / 2)] * 100 }'; }

# cprof's stderr ($1) into "first each reports written secs samples skipped"
cprof_info()
{
	first=$(sed -nE 's/.*: ([0-9]+) reports: the first ([0-9.]+) s of CPU, then ([0-9.]+) s each.*/\2 \3 \1/p' "$1")
	rec=$(sed -nE 's/.*recorded ([0-9]+) samples \([0-9]+ lost\) in ([0-9.]+) s, ([0-9]+) profiles.*/\3 \2 \1/p' "$1")
	skipped=$(sed -nE 's/.*WARNING: ([0-9]+) intervals skipped.*/\1/p' "$1")
	echo "${first:-0 0 0} ${rec:-0 0 0} ${skipped:-0}"
}

# run MODE ROUNDS: the program's elapsed ns; cprof's figures into $tmp/MODE.info
run()
{
	m=$1
	rm -rf "$tmp/dir"
	case $m in
	base)
		"$wl" "$threads" "$2" > "$tmp/out" ;;
	e10|e1|ns10)
		case $m in
		e10) opt="--every 10s" ;;
		e1) opt="--every 1s" ;;
		ns10) opt="--every 10s --no-symbolize" ;;
		esac
		# shellcheck disable=SC2086
		"$CPROF" record $opt --keep 0 -e cpu-clock -o "$tmp/dir" -- \
			"$wl" "$threads" "$2" > "$tmp/out" 2> "$tmp/cprof.err" &&
			cprof_info "$tmp/cprof.err" >> "$tmp/$m.info" ;;
	perf)
		perf record -q -e cpu-clock -F 99 -g -o "$tmp/p.data" -- \
			"$wl" "$threads" "$2" > "$tmp/out" 2> "$tmp/perf.err" ;;
	esac || { echo "$m failed:"; cat "$tmp"/*.err 2> /dev/null; return 1; }
	elapsed "$tmp/out"
}

# Rounds for RUN_S seconds, from a short run.
t=$(run base 20) || exit 1
rounds=$(awk -v t="$t" -v s="$run_s" 'BEGIN { r = int(20 * s * 1e9 / t); print r < 1 ? 1 : r }')
echo "# calibration: 20 rounds in $t ns: $rounds rounds for $run_s s"

for m in $modes; do : > "$tmp/$m"; : > "$tmp/$m.info"; done
i=0
while [ $i -lt "$reps" ]; do
	order=$(echo $modes $modes | cut -d' ' -f$((i % nmodes + 1))-$((i % nmodes + nmodes)))
	for m in $order; do
		t=$(run "$m" "$rounds") || exit 1
		echo "$t" >> "$tmp/$m"
		echo "# rep $i $m $t ns $(tail -n 1 "$tmp/$m.info" 2> /dev/null | grep -v '^$' || true)"
	done
	i=$((i + 1))
done

args=
for m in $modes; do
	args="$args -v t_$m=$(median < "$tmp/$m") -v d_$m=$(spread < "$tmp/$m")"
done
# cprof's figures, medians: first report, later reports, profiles per session second
for m in e10 e1 ns10; do
	args="$args -v f_$m=$(awk '{ print $1 }' "$tmp/$m.info" | median)"
	args="$args -v e_$m=$(awk '{ print $2 }' "$tmp/$m.info" | median)"
	args="$args -v n_$m=$(awk '{ print $3 }' "$tmp/$m.info" | median)"
	args="$args -v w_$m=$(awk '{ print $4 }' "$tmp/$m.info" | median)"
	args="$args -v s_$m=$(awk '{ print $5 }' "$tmp/$m.info" | median)"
	args="$args -v c_$m=$(awk '{ print $6 }' "$tmp/$m.info" | median)"
	args="$args -v k_$m=$(awk '{ s += $7 } END { print s + 0 }' "$tmp/$m.info")"
done
# --every 1s: every run one profile per second, one either way, none skipped
tiles=$(awk '{ d = $4 - $5; if (d < -1 || d > 1 || $7) bad++ } END { print bad ? "NO (" bad " runs off)" : "yes, every run" }' "$tmp/e1.info")

echo "RESULT "
echo "RESULT ## Always-on profiling (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench BENCH=always-on\`, bench/always-on.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, $(nproc) vCPU${ICOUNT:+, -icount shift=$ICOUNT}, kernel $(uname -r); bench/alwayson.c: $threads threads x $rounds rounds"
echo "RESULT (work in the program, zlib, libm and libc; ~$run_s s unprofiled); cpu-clock at 99 Hz;"
echo "RESULT $reps interleaved repetitions, medians (spread: (max - min) / median)."
echo "RESULT Steady: the overhead less cprof's first report, the one-time load of the files'"
echo "RESULT symbols and of kallsyms (the CPU it took, reported apart)."
echo "RESULT "
echo "RESULT | run | guest time (s) | spread | overhead | steady overhead | / perf's | first report (s CPU) | later reports (s CPU each) | per sample (µs) | profiles / session (s) | skipped |"
echo "RESULT | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
awk $args 'function o(t) { return (t - t_base) / t_base * 100 }
function row(name, m, t, d, f, e, n, w, s, c, k,   ov, st, ps) {
	ov = o(t); st = o(t - f * 1e9); ps = c > 0 && n > 0 ? e * 1e6 / (c / n) : 0
	printf "RESULT | %s | %.2f | %s %% | %+.2f %% | %+.2f %% | %s | %.3f | %.4f | %.1f | %d / %.1f | %d |\n",
		name, t / 1e9, d, ov, st, (po > 0 ? sprintf("%.2fx", st / po) : "n/a"), f, e, ps, w, s, k
}
BEGIN {
	po = o(t_perf)
	printf "RESULT | unprofiled | %.2f | %s %% | | | | | | | | |\n", t_base / 1e9, d_base
	row("`--every 10s`", "e10", t_e10, d_e10, f_e10, e_e10, n_e10, w_e10, s_e10, c_e10, k_e10)
	row("`--every 1s`", "e1", t_e1, d_e1, f_e1, e_e1, n_e1, w_e1, s_e1, c_e1, k_e1)
	row("`--every 10s --no-symbolize`", "ns10", t_ns10, d_ns10, f_ns10, e_ns10, n_ns10, w_ns10, s_ns10, c_ns10, k_ns10)
	printf "RESULT | `perf record -F 99 -g` | %.2f | %s %% | %+.2f %% | | | | | | | |\n", t_perf / 1e9, d_perf, po
	printf "RESULT \n"
	printf "RESULT Targets: `--every 10s` steady within 1.5x perf'"'"'s overhead: %s (%.2fx); `--no-symbolize` within 1.2x: %s (%.2fx, %.2fx steady).\n",
		((po > 0 && o(t_e10 - f_e10 * 1e9) <= 1.5 * po) ? "met" : "NOT met"), (po > 0 ? o(t_e10 - f_e10 * 1e9) / po : 0),
		((po > 0 && o(t_ns10) <= 1.2 * po) ? "met" : "NOT met"), (po > 0 ? o(t_ns10) / po : 0), (po > 0 ? o(t_ns10 - f_ns10 * 1e9) / po : 0)
}'
echo "RESULT \`--every 1s\`: one profile per second of the session (one either way), none skipped: $tiles."

[ "$long_s" -gt 0 ] || exit 0

# The long run: -a, 1 s intervals, processes coming and going.
rm -rf "$tmp/long"
"$CPROF" record -a --every 1s --keep 60 --symbol-cache "$long_cache" -e cpu-clock \
	-o "$tmp/long" > /dev/null 2> "$tmp/long.err" &
cp=$!
"$wl" 1 1000000000 > /dev/null &
busy=$!
start=$(date +%s)
: > "$tmp/rss"
i=0
while [ $(($(date +%s) - start)) -lt "$long_s" ]; do
	case $((i % 5)) in
	0) ls -lR /usr/lib/x86_64-linux-gnu > /dev/null 2>&1 ;;
	1) gzip -c "$CPROF" > /dev/null ;;
	2) awk 'BEGIN { for (i = 0; i < 100000; i++) s += sin(i) } END { print s }' > /dev/null ;;
	3) sort -R /etc/services > /dev/null ;;
	4) "$wl" 1 2 > /dev/null ;;
	esac
	i=$((i + 1))
	if [ $((i % 5)) -eq 0 ]; then
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$cp/status" 2> /dev/null)
		echo "$(($(date +%s) - start)) ${rss:-0}" >> "$tmp/rss"
		sleep 1
	fi
done
kill "$busy"
kill -TERM "$cp"
wait "$cp"
rc=$?
least() { sort -n | awk 'NR == 1 { print $1 } END { if (!NR) print 0 }'; }
early=$(awk -v l="$long_s" '$1 >= 60 && $1 < 120 { print $2 }' "$tmp/rss" | least)
late=$(awk -v l="$long_s" '$1 >= l - 60 { print $2 }' "$tmp/rss" | least)
peak=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$tmp/rss")
set -- $(cprof_info "$tmp/long.err")
kept=$(sed -nE 's/.*symbols kept: ([0-9]+ files, [0-9.]+ MiB \(cap [0-9]+ MiB\), [0-9]+ opened, [0-9]+ evicted).*/\1/p' "$tmp/long.err")
echo "RESULT "
echo "RESULT Long run: \`cprof record -a --every 1s --symbol-cache $long_cache\` for $long_s s (exit $rc) beside a"
echo "RESULT busy alwayson and $i short processes (ls, gzip, awk, sort, alwayson, in turn):"
echo "RESULT RSS least $early KiB in minute 2, least $late KiB in the last minute, peak $peak KiB;"
echo "RESULT $4 profiles in $5 s, $7 skipped; reports: the first $1 s of CPU, then $2 s each;"
echo "RESULT symbols kept at the end: $kept."
grep -E 'warning|WARNING|skipped' "$tmp/long.err" | head -n 5 | sed 's/^/# /'
rm -rf "$tmp"
