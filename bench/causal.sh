#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Causal profiling accuracy on three ground truths (tests/targets/gt_*.c),
# each with a knob that really shortens a line:
#
#   barrier  two threads meet at a barrier, a() twice as long as b()
#            (truth: a() min(x, 50 %), b() 0); point: a function
#   pipe     producer -> pipe -> consumer, two processes (-P), producing
#            2 units, consuming 1.2 (truth: produce() min(x, 40 %),
#            consume() 0); point: FILE:LINE. Coz 0.2.2 profiles the process
#            it starts, not the producer it forks (plasma-umass/coz#43):
#            it reads no produce() there, an answer it does not have
#   pipet    the same pipe between two threads of one process, which Coz
#            can profile
#   futex    4 threads, a lock on a raw futex, critical section 2 units,
#            other work 0.5 (truth: crit() about x, other() 0); point:
#            cprof.h (gt_futex_sdt)
#   futex2   the same lock, 2 threads, critical section 1.0 unit, other
#            work 0.5 (-t 2 -C 10 -O 5: issue 26's held-out program; on
#            two CPUs crit() about x up to 55 %)
#   cond     producer -> queue of 4 -> consumer, two threads, a pthread
#            mutex and condition variables (the C library's futex
#            wake-ups), 2 units and 1.2 as the pipe (truth on two CPUs:
#            produce() min(x, 40 %), consume() 0); point: FILE:LINE
#   wait     the barrier with thread 2 a timed sleep (-w) of half a()'s
#            time instead of b(): on one CPU too the truth saturates
#            (a() min(x, 50 %)); columns a() 20, 40, 60 and 80 %
#   gochan   Go (Debian's 1.19): a producer and a consumer goroutine over
#            a channel, producing 2 units, consuming 1.2 (gt_chan.go; on
#            two CPUs produce() min(x, 40 %), consume() 0); point
#            main.progress; --fixed-line with --no-go too
#   gomutex  Go: four goroutines and a sync.Mutex, crit() 2 units, other()
#            0.5 (gt_mutex.go); point main.progress; --no-go too
#   gopool   Go: 32 worker goroutines fed from a channel, each counting
#            its items, work() 0.2 units an item, tidy()
#            0.01 every 20 ms (gt_pool.go; work() about x, tidy() about 0);
#            point main.finish; --no-go too
#   gochan123, gomutex123, gopool123  the same built by Go 1.23 (Debian's
#            golang-1.23-go from backports), when it was there at build time
#
# and the barrier once more with its point from Coz's coz.h, default mode.
#
# The truth is measured unprofiled in this VM boot: interleaved rounds of
# the program with the line really shortened by 0, 20, 40, 60 % (the line
# that matters) and 40 % (the one that does not), medians and their spread.
# Then the predictions of cprof record --causal (default mode, and
# --fixed-line for each of the two lines) and of Debian's coz-profiler
# (coz run, the same three runs) at those speedups, in ROUNDS interleaved
# rounds of profiled runs: a run's prediction is the mean of its rows
# within 5 points of that speedup, weighted by their experiments (Coz's
# numbers through its own viewer, Debian's profile.js, run by node); the
# table has the median of the rounds' predictions and their range.
# Errors (median - truth) are in points.
#
# bench/run runs it twice: on one vCPU under -icount (ICOUNT set: guest
# time is deterministic: the rounds of the truth agree within about 1 %,
# so the errors are the profiler's own, not noise; the threads share the CPU, so the truths differ from
# those on two CPUs), then on two ordinary vCPUs (the truths as designed,
# measured through TCG's noise).
#
# Env: CAUSALPROF_REPO, CAUSALPROF_KO, CPROF (set by the VM harness);
# PROGS (default "barrier pipe futex wait", or comma-separated), REPS (truth rounds, default 5),
# TRUTH_S (seconds a truth run, default 6), RUN_S (seconds a profiled run,
# default 90), ROUNDS (profiled runs of each tool and mode, default 3),
# COZ (0: leave Coz out), MODPARAMS (module parameters for the run,
# comma-separated NAME=VALUE, e.g. spin_pause_us=2000).

repo=${CAUSALPROF_REPO:?}
targets=$repo/build/tests/targets
viewer=/usr/share/coz-profiler/viewer/js/profile.js
progs=$(echo "${PROGS:-barrier pipe futex wait}" | tr , " ")
reps=${REPS:-5}
truth_s=${TRUTH_S:-6}
run_s=${RUN_S:-90}
rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -q '^causalprof ' /proc/modules || insmod "${CAUSALPROF_KO:?}" || exit 1
for p in $(echo "${MODPARAMS:-}" | tr , " "); do
	echo "${p#*=}" > "/sys/module/causalprof/parameters/${p%%=*}" || exit 1
	echo "module parameter ${p%%=*}=${p#*=}"
done

# prog NAME: sets bin, cozbin, src, the lines and knobs of the one that
# matters (main) and the one that does not (other), and the point's spec.
prog()
{
	case $1 in
	barrier)
		bin=gt_barrier main=a other=b mknob=-a oknob=-b point="--progress progress"
		what="barrier, point a function (--progress progress)" ;;
	pipe)
		bin=gt_pipe main=produce other=consume mknob=-p oknob=-c
		what="pipe between two processes, point FILE:LINE" ;;
	pipet)
		bin=gt_pipe main=produce other=consume mknob=-p oknob=-c
		what="pipe between two threads, point FILE:LINE" ;;
	futex)
		bin=gt_futex main=crit other=other mknob=-s oknob=-o point=
		what="raw futex lock, 4 threads, point cprof.h" ;;
	cond)
		bin=gt_cond main=produce other=consume mknob=-p oknob=-c
		what="producer and consumer threads, a queue of 4 and condition variables, point FILE:LINE" ;;
	futex2)
		bin=gt_futex main=crit other=other mknob=-s oknob=-o point=
		what="raw futex lock, 2 threads, critical section 1.0 unit, other work 0.5 (-t 2 -C 10 -O 5), point cprof.h" ;;
	wait)
		bin=gt_barrier main=a other=a mknob=-a oknob=-a point="--progress progress"
		what="barrier, thread 2 a timed sleep of half a()'s time (-w), point a function" ;;
	gochan)
		bin=gt_chan-go main=produce other=consume mknob=-p oknob=-c point="--progress main.progress"
		what="Go channel, producer and consumer goroutines, point main.progress" ;;
	gomutex)
		bin=gt_mutex-go main=crit other=other mknob=-s oknob=-o point="--progress main.progress"
		what="Go sync.Mutex, four goroutines, point main.progress" ;;
	gopool)
		bin=gt_pool-go main=work other=tidy mknob=-s oknob=-o point="--progress main.finish"
		what="Go worker pool, 32 goroutines fed from a channel, point main.finish" ;;
	gopool123)
		bin=gt_pool-go1.23 main=work other=tidy mknob=-s oknob=-o point="--progress main.finish"
		what="Go 1.23 worker pool, 32 goroutines fed from a channel, point main.finish" ;;
	gochan123)
		bin=gt_chan-go1.23 main=produce other=consume mknob=-p oknob=-c point="--progress main.progress"
		what="Go 1.23 channel, producer and consumer goroutines, point main.progress" ;;
	gomutex123)
		bin=gt_mutex-go1.23 main=crit other=other mknob=-s oknob=-o point="--progress main.progress"
		what="Go 1.23 sync.Mutex, four goroutines, point main.progress" ;;
	esac
	extra=
	ocol=40
	src=$repo/tests/targets/$bin.c
	case $bin in *-go*) src=$repo/tests/targets/${bin%-go*}.go ;; esac
	cozbin=$targets/${bin}_coz
	args="-d $run_s"
	case $1 in
	futex2)
		extra="-t 2 -C 10 -O 5"
		args="$args $extra"
		bin=gt_futex_sdt ;;
	pipe)
		# the truth's runs too
		extra=-P
		args="$args $extra"
		point="--progress $bin.c:$(grep -n '/\* progress line' "$src" | cut -d: -f1)" ;;
	pipet)
		point="--progress $bin.c:$(grep -n '/\* progress line' "$src" | cut -d: -f1)" ;;
	cond)
		point="--progress $bin.c:$(grep -n '/\* progress line' "$src" | cut -d: -f1)" ;;
	futex)
		bin=gt_futex_sdt ;;
	wait)
		# a()'s time: a round when b() does nothing (-b 100)
		for r in $(seq "$reps"); do
			"$targets/$bin" -d "$truth_s" -b 100 | sed -n 's/.*rate //p'
		done > "$tmp/rate.calib"
		extra="-w $(median < "$tmp/rate.calib" | awk '{ printf "%d", 1e6 / $1 / 2 }')"
		args="$args $extra"
		what="$what: $extra"
		ocol=80 ;;
	esac
	lmain=$(grep -n "/\* $main line" "$src" | cut -d: -f1)
	lother=$(grep -n "/\* $other line" "$src" | cut -d: -f1)
	base=${src##*/}
}

# median of the numbers on stdin
median()
{
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# spread of the numbers on stdin: (max - min) / median, percent
spread()
{
	sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.0f", m ? 100 * (v[NR] - v[1]) / m : 0 }'
}

# truth NAME: program speedup in time per event, percent (median rates)
truth()
{
	awk -v b="$(median < "$tmp/rate.base")" -v k="$(median < "$tmp/rate.$1")" \
		'BEGIN { printf "%.1f", 100 * (1 - b / k) }'
}

# cprof_rows FILE LINE: "SPEEDUP PROGRAM EXPERIMENTS" rows of that line
cprof_rows()
{
	awk -v want="$base:$2" '
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
	' "$viewer" "$1" "$base:$2" 2> /dev/null
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

# keep TOOL: appends the run's predictions to $tmp/TOOL.v{20,40,60,o}
keep()
{
	for at in 20 40 60; do
		echo "$(near "$tmp/$1.m" "$at")" >> "$tmp/$1.v$at"
	done
	# the last column: a() 80 % for wait, else the other line at 40 %
	if [ "$p" = wait ]; then set -- "$1" m 80; else set -- "$1" o 40; fi
	echo "$(near "$tmp/$1.$2" "$3")" >> "$tmp/$1.vo"
}

# boot_median: the 90 % bootstrap interval of the median of the numbers
# on stdin, "lo, hi" (2000 resamples, a fixed seed)
boot_median()
{
	awk 'BEGIN { srand(1) } { v[NR] = $1 } END {
		for (b = 0; b < 2000; b++) {
			for (i = 1; i <= NR; i++) r[i] = v[1 + int(rand() * NR)]
			for (i = 2; i <= NR; i++)
				for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
			m[b] = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
		}
		n = 2000
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && m[j - 1] > m[j]; j--) { t = m[j]; m[j] = m[j - 1]; m[j - 1] = t }
		printf "%.1f, %.1f", m[int(0.05 * n)], m[int(0.95 * n) - 1] }'
}

# truth_ci KNOB: the truth's 90 % bootstrap interval, "lo, hi": the
# rounds of the base and of the knob resampled, medians, 100 (1 - b / k)
truth_ci()
{
	awk 'BEGIN { srand(2) }
		FNR == 1 { f++ }
		f == 1 { b[++nb] = $1 } f == 2 { k[++nk] = $1 }
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			for (r = 0; r < 2000; r++) {
				for (i = 1; i <= nb; i++) rb[i] = b[1 + int(rand() * nb)]
				for (i = 1; i <= nk; i++) rk[i] = k[1 + int(rand() * nk)]
				s[r] = 100 * (1 - med(rb, nb) / med(rk, nk))
			}
			for (i = 1; i < 2000; i++)
				for (j = i; j > 0 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
			printf "%.1f, %.1f", s[100], s[1899]
		}' "$tmp/rate.base" "$tmp/rate.$1"
}

# cell FILE TRUTH [KNOB]: "median (error) [least, most]" of the rounds'
# predictions ("-": a round with no rows near that speedup); from 3
# rounds on, the median's 90 % bootstrap interval {lo, hi} too, and with
# KNOB a verdict: "ok" when within 5 points of the truth or inside the
# truth's 90 % interval, "OFF" when not.
cell()
{
	grep -vx -- - "$1" | sort -n > "$1.s"
	v=$(median < "$1.s" | awk '{ printf "%.1f", $1 }')
	if [ -z "$v" ]; then
		echo "- (-)"
		return
	fi
	c="$v ($(err "$v" "$2")) [$(sed -n '1p' "$1.s"), $(sed -n '$p' "$1.s")]"
	if [ "$(wc -l < "$1.s")" -ge 3 ]; then
		c="$c {$(boot_median < "$1.s")}"
	fi
	if [ -n "${3:-}" ]; then
		c="$c $(truth_ci "$3" | awk -v v="$v" -v t="$2" -F', ' '{
			d = v - t; print ((d >= -5 && d <= 5) || (v >= $1 && v <= $2)) ? "ok" : "OFF" }')"
	fi
	echo "$c"
}

# run_cprof NAME BIN [ARGS...]: rows of both lines into $tmp/NAME.{m,o}
run_cprof()
{
	name=$1 exe=$2
	shift 2
	timeout $((run_s * 3)) "$CPROF" record --causal $point -o "$tmp/$name.data" \
		"$@" -- "$exe" $args > /dev/null 2> "$tmp/$name.err" ||
		echo "# $name: cprof record failed: $(tail -n 1 "$tmp/$name.err")"
	"$CPROF" report --causal --top 10 -i "$tmp/$name.data" > "$tmp/$name.txt" 2>&1
	cprof_rows "$tmp/$name.txt" "$lmain" > "$tmp/$name.m"
	cprof_rows "$tmp/$name.txt" "$lother" > "$tmp/$name.o"
}

run_coz()
{
	name=$1
	shift
	(cd "$tmp" && rm -f profile.coz &&
	 timeout $((run_s * 3)) coz run "$@" --- "$cozbin" $args > /dev/null 2>&1)
	cp "$tmp/profile.coz" "$tmp/$name.coz" 2> /dev/null || : > "$tmp/$name.coz"
	coz_rows "$tmp/$name.coz" "$lmain" > "$tmp/$name.m"
	coz_rows "$tmp/$name.coz" "$lother" > "$tmp/$name.o"
}

# The period of the 0 % experiments of a recording (ms per visit).
baseline_ms()
{
	sed -n 's/.*; baseline \([0-9.]*\) ms per visit.*/\1/p' "$tmp/$1.txt" | head -n 1
}

label()
{
	case $1 in
	cdef) echo "cprof, default" ;; cfix) echo "cprof, --fixed-line" ;;
	ccoz) echo "cprof, default, coz.h point" ;;
	gfix) echo "cprof, --fixed-line --no-go" ;;
	zdef) echo "Coz, default" ;; zfix) echo "Coz, --fixed-line" ;;
	esac
}

use_coz=0
if [ "${COZ:-1}" != 0 ] && command -v coz > /dev/null && command -v node > /dev/null &&
   [ -r "$viewer" ]; then
	use_coz=1
fi

echo "RESULT "
echo "RESULT ## Causal accuracy on ground truths (${BENCH_DATE:-$(date -u '+%Y-%m-%dT%H:%MZ')}, \`make bench BENCH=${BENCH_NAME:-causal}\`, bench/causal.sh)"
echo "RESULT "
if [ -n "${ICOUNT:-}" ]; then
	echo "RESULT QEMU/TCG, 1 vCPU, -icount shift=$ICOUNT: deterministic guest time, rounds agree within 1 %"
	echo "RESULT (but the threads share one CPU: the truths are not those of two). Kernel $(uname -r)."
	echo "RESULT Truth: unprofiled, $reps interleaved rounds"
else
	echo "RESULT QEMU/TCG, $(nproc) vCPUs, kernel $(uname -r). Truth: unprofiled, $reps interleaved rounds"
fi
echo "RESULT of ${truth_s} s, medians (spread: (max - min) / median of the rounds' rates). Predictions:"
echo "RESULT $rounds interleaved rounds of runs of ${run_s} s; a run's prediction is the mean of its rows"
echo "RESULT within 5 points of the speedup (cprof: its report; Coz: its viewer). A cell: the median"
echo "RESULT of the rounds' predictions (median - truth, in points) [the least and the most]"
echo "RESULT {the median's 90 % bootstrap interval, from $rounds rounds}, ok when within 5 points of"
echo "RESULT the truth or inside the truth's 90 % bootstrap interval {in the truth's row}, else OFF."

for p in $progs; do
	prog "$p"
	if [ ! -x "$targets/$bin" ]; then
		echo "RESULT"
		echo "RESULT ### $what: not measured, no $bin (its compiler was not there at build time)"
		continue
	fi
	rm -f "$tmp"/rate.*
	knobs="base:|m20:$mknob 20|m40:$mknob 40|m60:$mknob 60|o40:$oknob $ocol"
	r=1
	while [ "$r" -le "$reps" ]; do
		IFS='|'
		for k in $knobs; do
			IFS=' '
			"$targets/$bin" -d "$truth_s" $extra ${k#*:} | sed -n 's/.*rate //p' >> "$tmp/rate.${k%%:*}"
		done
		IFS=' '
		r=$((r + 1))
	done

	rm -f "$tmp"/*.v* "$tmp"/cdef.p0 "$tmp"/cdef.pair
	pt=$point
	r=1
	while [ "$r" -le "$rounds" ]; do
		# the overhead, paired: an unprofiled run just before the
		# default-mode one, its rate against that run's 0 % experiments
		k=$("$targets/$bin" -d "$truth_s" $extra | sed -n 's/.*rate //p')
		run_cprof cdef "$targets/$bin"
		p0=$(baseline_ms cdef)
		echo "$p0" >> "$tmp/cdef.p0"
		awk -v p="$p0" -v k="$k" 'BEGIN { if (p > 0 && k > 0) printf "%.2f\n", 100 * (p * k / 1000 - 1) }' \
			>> "$tmp/cdef.pair"
		run_cprof cfix "$targets/$bin" --fixed-line "$base:$lmain"
		if [ "$p" != wait ]; then
			run_cprof cfixo "$targets/$bin" --fixed-line "$base:$lother"
			cat "$tmp/cfixo.o" >> "$tmp/cfix.o"
		fi
		tools="cdef cfix"
		case $p in
		go*)
			run_cprof gfix "$targets/$bin" --no-go --fixed-line "$base:$lmain"
			run_cprof gfixo "$targets/$bin" --no-go --fixed-line "$base:$lother"
			cat "$tmp/gfixo.o" >> "$tmp/gfix.o"
			tools="$tools gfix" ;;
		esac
		if [ "$p" = barrier ] && [ -x "$cozbin" ]; then
			point=
			run_cprof ccoz "$cozbin"
			point=$pt
			tools="$tools ccoz"
		fi
		if [ "$use_coz" = 1 ] && [ -x "$cozbin" ]; then
			run_coz zdef
			run_coz zfix --fixed-line "$src:$lmain"
			if [ "$p" != wait ]; then
				run_coz zfixo --fixed-line "$src:$lother"
				cat "$tmp/zfixo.o" >> "$tmp/zfix.o"
			fi
			tools="$tools zdef zfix"
		fi
		for t in $tools; do
			keep "$t"
			# the first round's reports go to the log
			if [ "$r" = 1 ] && [ -e "$tmp/$t.txt" ]; then
				cp "$tmp/$t.txt" "$tmp/$t.first"
			fi
		done
		r=$((r + 1))
	done

	echo "RESULT "
	echo "RESULT ### $what"
	echo "RESULT "
	echo "RESULT | tool | $main() 20 % | $main() 40 % | $main() 60 % | $other() $ocol % |"
	echo "RESULT | --- | --- | --- | --- | --- |"
	row="| truth (spread) {90 % interval} |"
	for k in m20 m40 m60 o40; do
		row="$row $(truth "$k") ($(spread < "$tmp/rate.$k") %) {$(truth_ci "$k")} |"
	done
	echo "RESULT $row (baseline spread $(spread < "$tmp/rate.base") %)"
	for t in $tools; do
		row="| $(label "$t") |"
		for at in 20 40 60; do
			row="$row $(cell "$tmp/$t.v$at" "$(truth "m$at")" "m$at") |"
		done
		echo "RESULT $row $(cell "$tmp/$t.vo" "$(truth o40)" o40) |"
	done
	p0=$(median < "$tmp/cdef.p0")
	echo "RESULT "
	echo "RESULT Causal-mode overhead: cprof's 0 % experiments (default mode) take ${p0:-?} ms per event,"
	echo "RESULT unprofiled runs $(median < "$tmp/rate.base" | awk '{ printf "%.3f", 1000 / $1 }') ms: $(median < "$tmp/rate.base" |
		awk -v p="$p0" '{ if (p == "") print "?"; else printf "%+.1f", 100 * (p * $1 / 1000 - 1) }') %."
	echo "RESULT Paired (each round's 0 % experiments against an unprofiled run just before it):"
	echo "RESULT median $(median < "$tmp/cdef.pair" | awk '{ printf "%+.1f", $1 }') % [$(sort -n "$tmp/cdef.pair" | head -n 1),"\
		"$(sort -n "$tmp/cdef.pair" | tail -n 1)] over $(wc -l < "$tmp/cdef.pair") rounds."
	for t in $tools; do
		if [ -e "$tmp/$t.first" ]; then
			sed 's/^/# /' "$tmp/$t.first" | head -n 60
		fi
	done
done
exit 0
