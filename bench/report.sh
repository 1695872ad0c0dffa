#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Report speed: "cprof report --pprof" (and its top table) on a recording
# of at least a million samples, next to "perf report --stdio" on a "perf
# record" of the same workload at the same rate: wall time and peak memory
# (/usr/bin/time -v), median of REPS runs each.
#
# Both recordings are real: two processes of the bad LRU cache
# (build/tests/targets/lru), one per vCPU, sampled with cpu-clock and call
# stacks at RATE Hz for DURATION seconds, which under TCG makes about 10000
# samples a second in all, depending on the host's load. So that both
# reports read the same number of samples, cprof's recording is then cut to
# perf's count, or has its samples repeated up to it
# (build/tests/tools/recgrow); both counts are reported.
#
# Env: CAUSALPROF_REPO, CAUSALPROF_KO, CPROF (set by the VM harness);
# RATE (default 50000), DURATION (seconds, default 110: over a million samples
# each), REPS (default 3).

repo=${CAUSALPROF_REPO:?}
lru=$repo/build/tests/targets/lru
recgrow=$repo/build/tests/tools/recgrow
rate=${RATE:-50000}
secs=${DURATION:-110}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
command -v perf > /dev/null || { echo "perf is not installed"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed"; exit 1; }
[ -x "$lru" ] && [ -x "$recgrow" ] || { echo "no $lru or $recgrow: make tests"; exit 1; }

workload="$lru $secs & $lru $secs; wait"

echo "# cprof record at $rate Hz for $secs s"
"$CPROF" record -e cpu-clock -F "$rate" -o "$tmp/c.data" -- sh -c "$workload" \
	> /dev/null 2> "$tmp/c.rec" || { cat "$tmp/c.rec"; exit 1; }
cat "$tmp/c.rec"
csamples=$(sed -n 's/.*recorded \([0-9]*\) samples (\([0-9]*\) lost).*/\1/p' "$tmp/c.rec")
clost=$(sed -n 's/.*recorded \([0-9]*\) samples (\([0-9]*\) lost).*/\2/p' "$tmp/c.rec")

echo "# perf record at $rate Hz for $secs s"
perf record -q -e cpu-clock -F "$rate" -g -o "$tmp/p.data" -- sh -c "$workload" \
	> /dev/null 2> "$tmp/p.rec" || { cat "$tmp/p.rec"; exit 1; }
psamples=$(perf report -i "$tmp/p.data" --stats 2> /dev/null |
	awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
echo "# perf: $psamples samples"
[ -n "$psamples" ] && [ "$psamples" -gt 0 ] || { echo "no sample count from perf"; exit 1; }
"$recgrow" "$tmp/c.data" "$tmp/c.same" "$psamples" > /dev/null || exit 1
mv "$tmp/c.same" "$tmp/c.data"

# measure NAME CMD...: one run; appends "seconds kbytes" to $tmp/NAME
measure()
{
	name=$1
	shift
	/usr/bin/time -v "$@" > "$tmp/$name.out" 2> "$tmp/$name.time" || {
		echo "$name failed:"
		tail -n 30 "$tmp/$name.time"
		return 1
	}
	awk -F': ' '/Elapsed \(wall clock\)/ {
			n = split($2, t, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + t[i]
		}
		/Maximum resident set size/ { kb = $2 }
		END { print s, kb }' "$tmp/$name.time" >> "$tmp/$name"
}

median() { sort -n | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }'; }

i=0
while [ "$i" -lt "$reps" ]; do
	measure pprof "$CPROF" report -i "$tmp/c.data" --pprof "$tmp/c.pb.gz" || exit 1
	measure top "$CPROF" report -i "$tmp/c.data" || exit 1
	measure perf perf report -i "$tmp/p.data" --stdio || exit 1
	echo "# rep $i: pprof $(tail -n 1 "$tmp/pprof"), top $(tail -n 1 "$tmp/top"), perf $(tail -n 1 "$tmp/perf") (s kB)"
	i=$((i + 1))
done

for n in pprof top perf; do
	t=$(awk '{ print $1 }' "$tmp/$n" | median)
	m=$(awk '{ print $2 }' "$tmp/$n" | median)
	eval "${n}_s=$t ${n}_kb=$m"
done

echo "RESULT "
echo "RESULT ## Report speed (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench\`, bench/report.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, 2 vCPUs, kernel $(uname -r). Recordings of 2 bad-LRU processes"
echo "RESULT (build/tests/targets/lru) for $secs s, cpu-clock at $rate Hz with call stacks:"
echo "RESULT perf record: $psamples samples, $(($(stat -c %s "$tmp/p.data") / 1048576)) MiB; cprof record: $csamples"
echo "RESULT samples ($clost lost), $([ "$csamples" -lt "$psamples" ] && echo repeated || echo cut) to the same $psamples"
echo "RESULT ($(($(stat -c %s "$tmp/c.data") / 1048576)) MiB, with a 4 MiB copy of kallsyms) by tests/tools/recgrow."
echo "RESULT Wall time and peak RSS (/usr/bin/time -v), median of $reps runs."
echo "RESULT "
echo "RESULT | command | time (s) | peak RSS (MiB) | time vs perf | RSS vs perf |"
echo "RESULT | --- | --- | --- | --- | --- |"
awk -v ps="$pprof_s" -v pk="$pprof_kb" -v ts="$top_s" -v tk="$top_kb" \
    -v fs="$perf_s" -v fk="$perf_kb" 'BEGIN {
	printf "RESULT | cprof report --pprof | %.2f | %.1f | %.1fx faster | %.2f |\n",
		ps, pk / 1024, fs / ps, pk / fk
	printf "RESULT | cprof report (top table) | %.2f | %.1f | %.1fx faster | %.2f |\n",
		ts, tk / 1024, fs / ts, tk / fk
	printf "RESULT | perf report --stdio | %.2f | %.1f | 1 | 1 |\n", fs, fk / 1024
}'
