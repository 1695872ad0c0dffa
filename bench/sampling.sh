#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sampling overhead, stage by stage: a CPU-bound workload (a thread per
# CPU) run unprofiled, then under more and more of cprof's pipeline, and
# under "perf record" at the same event (cpu-clock), rate and call-graph
# setting, at 1 kHz and 10 kHz. The stages, each one adding a step:
#
#   ticks     only the cpu-clock timers ticking: a session on a sleeping
#             process, every tick finds a non-target and returns (the part
#             of any cpu-clock sampler's overhead that no sampler can avoid)
#   handler   cprof record --no-callchain, the module's discard_samples=1:
#             the overflow handler writes stackless records into the ring,
#             the drains skip them unread
#   ring      cprof record with stacks, discard_samples=1: the stack walk
#             and the record written to the ring, skipped unread
#   netlink   cprof record -o /dev/null: drained into netlink messages,
#             received and parsed by cprof, its stdio writes going to
#             /dev/null, which keeps nothing
#   cprof     cprof record -o FILE: the whole recording
#   raw       cprof record --raw -o FILE: the same, one record per sample
#   perf      perf record -g
#
# cprof record aggregates in the kernel by default (CAUSALPROF_F_AGGREGATE):
# from handler to cprof the stages are those of aggregated sessions (the
# handler counts into its CPU's table, the drains skip the counts unread
# with discard_samples); raw is the whole recording without aggregation.
#
# Runs are interleaved (the order rotates every repetition) and medians are
# compared, since TCG timings vary by about 10 % from run to run. The
# workload times its own work, so perf's start-up (~9 s in the VM) is not
# counted. Samples per run are the module's counters (/proc/causalprof/
# status) before and after; the ticks stage's are the handler stage's,
# scaled to its run time.
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
modes="base ticks handler ring netlink cprof raw perf"
nmodes=8
discard=/sys/module/causalprof/parameters/discard_samples

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
command -v perf > /dev/null || { echo "perf is not installed"; exit 1; }
[ -w "$discard" ] || { echo "no $discard: an older module?"; exit 1; }

sleep 100000 &
sleeper=$!
trap 'kill $sleeper 2> /dev/null; echo 0 > $discard' EXIT

elapsed() { sed -n 's/^elapsed_ns //p' "$1"; }
status() { sed -n "s/^$1: //p" /proc/causalprof/status; }

# record RATE OUTPUT [OPTION]: cprof record, its samples and lost (the
# module's counts) appended to $tmp/$m.$rate.count
record()
{
	s0=$(status samples); l0=$(status lost)
	"$CPROF" record -e cpu-clock -F "$1" -o "$2" $3 -- \
		"$wl" "$threads" "$iters" > "$tmp/out" 2> "$tmp/cprof.err" || return 1
	echo "$(($(status samples) - s0)) $(($(status lost) - l0))" >> "$tmp/$m.$1.count"
}

# run MODE RATE: prints the workload's elapsed ns
run()
{
	m=$1
	case $1 in
	base)
		"$wl" "$threads" "$iters" > "$tmp/out" ;;
	ticks)
		echo "start pid=$sleeper event=cpu-clock freq=$2" > /proc/causalprof/control &&
		"$wl" "$threads" "$iters" > "$tmp/out"
		ret=$?
		echo stop > /proc/causalprof/control
		[ $ret = 0 ] ;;
	handler|ring)
		[ "$1" = handler ] && opt=--no-callchain || opt=
		echo 1 > $discard && record "$2" /dev/null $opt
		ret=$?
		echo 0 > $discard
		[ $ret = 0 ] ;;
	netlink)
		record "$2" /dev/null ;;
	cprof)
		record "$2" "$tmp/c.data" ;;
	raw)
		record "$2" "$tmp/r.data" --raw ;;
	perf)
		perf record -q -e cpu-clock -F "$2" -g -o "$tmp/p.data" -- \
			"$wl" "$threads" "$iters" > "$tmp/out" 2> "$tmp/perf.err" ;;
	esac || { echo "$1 at $2 Hz failed:"; cat "$tmp"/*.err 2>/dev/null; return 1; }
	elapsed "$tmp/out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# (max - min) / median, in %
spread() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (v[NR] - v[1]) / v[int((NR + 1) / 2)] * 100 }'; }
# samples per run, and lost in all
count() { awk '{ s += $1; l += $2 } END { printf "%d %d", s / NR, l }' "$1"; }

echo "RESULT "
echo "RESULT ## Sampling overhead by stage (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench\`, bench/sampling.sh)"
echo "RESULT "
echo "RESULT QEMU/TCG, $(nproc) vCPUs${ICOUNT:+, -icount shift=$ICOUNT}, kernel $(uname -r); workload: $threads threads x $iters rounds;"
echo "RESULT cpu-clock; $reps interleaved repetitions, medians."
if [ -n "${ICOUNT:-}" ]; then
	echo "RESULT Guest time is deterministic under -icount (one guest instruction = 2^$ICOUNT ns)."
else
	echo "RESULT Ordinary TCG: wall times vary by 10-25 % from run to run, more than the"
	echo "RESULT overheads; the lost counts are the point here, the -icount table the overheads."
fi
echo "RESULT Stages: ticks = the cpu-clock timers alone (a session on a sleeping process);"
echo "RESULT handler = \`cprof record --no-callchain\` with \`discard_samples=1\` (records written"
echo "RESULT to the ring, skipped unread by the drains); ring = the same with stacks; netlink ="
echo "RESULT \`cprof record -o /dev/null\` (drained, sent, received and parsed, not written);"
echo "RESULT cprof = \`cprof record -o FILE\` (aggregated in the kernel, the default);"
echo "RESULT raw = \`cprof record --raw -o FILE\` (one record per sample); perf = \`perf record -g\`."
echo "RESULT Up to cprof the stages are those of aggregated sessions (the handler counts into"
echo "RESULT its CPU's table; with \`discard_samples=1\` the drains skip the counts unread)."
for rate in 1000 10000; do
	for m in $modes; do : > "$tmp/$m"; : > "$tmp/$m.$rate.count"; done
	i=0
	while [ $i -lt "$reps" ]; do
		# the order rotates: every mode leads once in $nmodes repetitions
		order=$(echo $modes $modes | cut -d' ' -f$((i % nmodes + 1))-$((i % nmodes + nmodes)))
		for m in $order; do
			t=$(run "$m" "$rate") || exit 1
			echo "$t" >> "$tmp/$m"
			echo "# $rate Hz rep $i $m $t ns"
		done
		i=$((i + 1))
	done
	args="-v r=$rate"
	for m in $modes; do
		args="$args -v t_$m=$(median < "$tmp/$m") -v d_$m=$(spread < "$tmp/$m")"
	done
	for m in handler ring netlink cprof raw; do
		set -- $(count "$tmp/$m.$rate.count")
		args="$args -v s_$m=$1 -v l_$m=$2"
	done
	echo "$args" > "$tmp/args.$rate"
done

echo "RESULT "
echo "RESULT Overhead over the unprofiled run (median guest time):"
echo "RESULT "
echo "RESULT | rate | unprofiled (ms) | ticks only | handler, no stacks | + stacks, ring only | + netlink, not written | cprof record | cprof record --raw | perf record -g | cprof / perf overhead |"
echo "RESULT | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for rate in 1000 10000; do
	awk $(cat "$tmp/args.$rate") 'function o(t) { return sprintf("%+.1f %%", (t - t_base) / t_base * 100) }
	BEGIN {
		po = t_perf - t_base
		printf "RESULT | %d Hz | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, t_base / 1e6,
			o(t_ticks), o(t_handler), o(t_ring), o(t_netlink), o(t_cprof), o(t_raw), o(t_perf),
			(po > 0 ? sprintf("%.2f", (t_cprof - t_base) / po) : "n/a")
	}'
done
echo "RESULT "
echo "RESULT Guest time per sample, (stage - unprofiled) / samples, in µs, and in parentheses"
echo "RESULT what the stage adds to the one before; samples per run (lost in all runs):"
echo "RESULT "
echo "RESULT | rate | ticks only | handler, no stacks | + stacks, ring only | + netlink, not written | cprof record (+ file) | cprof record --raw | perf record -g | samples per run (lost) |"
echo "RESULT | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for rate in 1000 10000; do
	awk $(cat "$tmp/args.$rate") 'function us(t, s) { return (t - t_base) / s / 1e3 }
	BEGIN {
		# the ticks: as many as the handler stage had samples, per ns
		s_ticks = s_handler * t_ticks / t_handler
		a = us(t_ticks, s_ticks); b = us(t_handler, s_handler); c = us(t_ring, s_ring)
		d = us(t_netlink, s_netlink); e = us(t_cprof, s_cprof); w = us(t_raw, s_raw)
		p = us(t_perf, s_cprof)
		printf "RESULT | %d Hz | %.2f | %.2f (%+.2f) | %.2f (%+.2f) | %.2f (%+.2f) | %.2f (%+.2f) | %.2f | %.2f | %d / %d / %d / %d / %d (%d / %d / %d / %d / %d) |\n",
			r, a, b, b - a, c, c - b, d, d - c, e, e - d, w, p,
			s_handler, s_ring, s_netlink, s_cprof, s_raw,
			l_handler, l_ring, l_netlink, l_cprof, l_raw
	}'
done
echo "RESULT "
echo "RESULT The sampler's own work above the ticks, µs per sample, against the target"
echo "RESULT (at most half of perf's):"
echo "RESULT "
echo "RESULT | rate | cprof record | cprof record --raw | perf record -g | target | overhead above the ticks: cprof / raw / perf (points) |"
echo "RESULT | --- | --- | --- | --- | --- | --- |"
for rate in 1000 10000; do
	awk $(cat "$tmp/args.$rate") 'function us(t, s) { return (t - t_base) / s / 1e3 }
	function pt(t) { return (t - t_ticks) / t_base * 100 }
	BEGIN {
		s_ticks = s_handler * t_ticks / t_handler
		a = us(t_ticks, s_ticks)
		e = us(t_cprof, s_cprof) - a; w = us(t_raw, s_raw) - a; p = us(t_perf, s_cprof) - a
		printf "RESULT | %d Hz | %.2f | %.2f | %.2f | %.2f | %+.1f / %+.1f / %+.1f |\n",
			r, e, w, p, p / 2, pt(t_cprof), pt(t_raw), pt(t_perf)
	}'
done
echo "RESULT "
echo "RESULT perf's per sample: its time over cprof's sample count (perf counts its own)."
echo "RESULT Samples per run: handler / ring / netlink / cprof / raw. Spread of the repetitions,"
echo "RESULT (max - min) / median, base / ticks / handler / ring / netlink / cprof / raw / perf:"
for rate in 1000 10000; do
	awk $(cat "$tmp/args.$rate") 'BEGIN {
		printf "RESULT %d Hz: %s / %s / %s / %s / %s / %s / %s / %s %%.\n", r,
			d_base, d_ticks, d_handler, d_ring, d_netlink, d_cprof, d_raw, d_perf
	}'
done
echo "RESULT "
rm -rf "$tmp"
