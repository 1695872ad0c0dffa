#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The accuracy of cprof record --causal on Go programs, with the Go hooks
# and without (--no-go), against ground truth measured in the same boot,
# as causal_truth_test.sh does for C (its method and its reasons to run on
# one vCPU under -icount only): tests/targets/gt_chan.go, a producer and a
# consumer goroutine over a buffered channel; gt_mutex.go, four goroutines
# contending for a sync.Mutex; gt_pool.go, 32 worker goroutines fed from a
# channel; built by Debian's go (1.19).
# On one CPU the goroutines take turns on the one P: the channel's item is
# produce() + consume() (2 + 1.2 units), the lock's event crit() + other()
# (2 + 0.5 units), the pool's item work() (0.2 units).
#
# Checked: the channel's produce() at 20 and 40 % and consume() at 40 %
# (--fixed-line), with the hooks and with --no-go, each within tol points
# of its truth. GO_TRUTH_ALL=1 measures every cell of the table
# (Documentation/go.rst): every program, the function that matters at 20,
# 40 and 60 % and the other at 40 %, both ways, and prints them without
# checking (the 60 % truths over runs of 60 s, GO_TRUTH_LONG_S). And the
# channel's pace in experiments at 0 and 60 % (t_monitor, below). Prints
# TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/causal.sh"

# Points a prediction may be off: the checked cells were within 2.9 of
# the truth both ways, two rounds (2026-11-27, Documentation/go.rst); with a thread
# that runs a goroutine owing the delay inserted while it was runnable,
# produce() read 16 and 59 points low at 20 and 40 %.
tol=${CAUSAL_TOL:-8}
# 180 s recordings: about 45 experiments, several within 5 points of 20
# and 40 %. 45 s ones had 11, one in each such window, and one experiment
# in a few reads 8 to 13 points off its row (2026-11-28, 6.12: a 45 % row
# of 12.9 % against a truth of 24.1 % failed a CI run). Items of half the
# default unit (-u, GO_TRUTH_UNIT) give more experiments still, but read
# consume() 6 points high at 40 % (21.0 and 20.6 against 15.0 %, hooks
# and --no-go), not understood yet (perhaps: on one CPU a pause lends its
# CPU to the others, the more so the more hand-offs a pause overlaps).
run_s=${CAUSAL_RUN_S:-180}
unit=${GO_TRUTH_UNIT:-500000}
truth_s=${CAUSAL_TRUTH_S:-15}
long_s=${GO_TRUTH_LONG_S:-60}
all=${GO_TRUTH_ALL:-0}
# The programs built by the default go, or by GO_TRUTH_GO=go1.23 (the
# gt_NAME-go1.23 the tests' Makefile builds when Debian's golang-1.23-go is in)
gover=${GO_TRUTH_GO:-go}
RECORD_TIMEOUT=$((run_s * 4))

# cell NAME FILE:LINE AT TRUTH CHECK: close_to with CHECK 1; else only
# the prediction against the truth, printed.
cell()
{
	if [ "$5" = 1 ]; then
		close_to "$1" "$2" "$3" "$4"
		return
	fi
	say "$1: $2 at $3 %: predicted $(predicted "$1" "$2" "$3") %, truth $4 %"
}

# program NAME BIN SRC MAIN MKNOB OTHER OKNOB [POINT]: the truths, then a
# --fixed-line recording of each line with the hooks and with --no-go,
# the progress point POINT (main.progress).
program()
{
	tn=$1 bin=$2 src=$3 main=$4 mknob=$5 other=$6 oknob=$7 point=${8:-main.progress}
	lmain=${src##*/}:$(line_of "$src" "/* $main line */")
	lother=${src##*/}:$(line_of "$src" "/* $other line */")
	if [ ! -x "$bin" ]; then
		reason="no $bin (no go at build time)"
		return 4
	fi
	base=$(rate "$bin" -u "$unit" -d "$truth_s")
	t20=$(truth "$base" "$(rate "$bin" -u "$unit" -d "$truth_s" "$mknob" 20)")
	t40=$(truth "$base" "$(rate "$bin" -u "$unit" -d "$truth_s" "$mknob" 40)")
	t60=none
	# At 60 % the channel's producer outruns its consumer on one P, and a
	# run ends with 64 items made but not consumed: 1.5 s of a 15 s run's
	# work, which reads the truth 5 points low (31.0 against 36.0 % over
	# 60 s, 2026-11-29). Its truth is that of runs of long_s.
	[ "$all" = 1 ] && t60=$(truth "$(rate "$bin" -u "$unit" -d "$long_s")" \
		"$(rate "$bin" -u "$unit" -d "$long_s" "$mknob" 60)")
	o40=$(truth "$base" "$(rate "$bin" -u "$unit" -d "$truth_s" "$oknob" 40)")
	say "$tn: $base events/s; truth: $main() 20 % $t20 %, 40 % $t40 %, 60 % $t60 %, $other() 40 % $o40 %"
	ret=0
	for mode in go nogo; do
		flag=
		[ $mode = nogo ] && flag=--no-go
		# shellcheck disable=SC2086
		record "${tn}_${mode}_m" $flag --progress "$point" --fixed-line "$lmain" \
			-- "$bin" -u "$unit" -d "$run_s" || return 1
		cell "${tn}_${mode}_m" "$lmain" 20 "$t20" "$check" || ret=1
		cell "${tn}_${mode}_m" "$lmain" 40 "$t40" "$check" || ret=1
		[ "$all" = 1 ] && cell "${tn}_${mode}_m" "$lmain" 60 "$t60" 0
		# shellcheck disable=SC2086
		record "${tn}_${mode}_o" $flag --progress "$point" --fixed-line "$lother" \
			-- "$bin" -u "$unit" -d "$run_s" || return 1
		cell "${tn}_${mode}_o" "$lother" 40 "$o40" "$check" || ret=1
	done
	return $ret
}

deterministic()
{
	if [ "$(nproc)" -ne 1 ] || [ -z "${CAUSALPROF_ICOUNT:-}" ]; then
		reason="needs one vCPU under -icount (tests/vm/check runs it so)"
		return 1
	fi
}

t_chan()
{
	deterministic || return 4
	check=1
	program chan "$targets/gt_chan-$gover" "$CAUSALPROF_REPO/tests/targets/gt_chan.go" \
		produce -p consume -c
}

# measured NAME MAIN MKNOB OTHER OKNOB [POINT]: program NAME's table, with
# GO_TRUTH_ALL=1 only, checking nothing (tests/targets/gt_NAME.go).
measured()
{
	deterministic || return 4
	if [ "$all" != 1 ]; then
		reason="GO_TRUTH_ALL=1 measures it"
		return 4
	fi
	check=0
	program "$1" "$targets/gt_$1-$gover" "$CAUSALPROF_REPO/tests/targets/gt_$1.go" "$2" "$3" \
		"$4" "$5" "${6:-main.progress}"
}

# pace NAME: the recording's wall time per visit over its experiments of two
# visits or more (cprof report --causal -v), ms; or none.
pace()
{
	"$CPROF" report --causal -v -i "$tmp/$1.data" 2> /dev/null | awk '
		/^# +id speedup/ { on = 1; next }
		on && $1 ~ /^[0-9]+$/ && $3 == "%" && $5 >= 2 { w += $4; v += $5 }
		END { if (v) printf "%.2f\n", w / v; else print "none" }'
}

# On one P the runtime runs both goroutines on one thread, which owes
# nothing (it runs the selected code itself): no thread pays, and the
# program keeps its pace in the experiments, the channel filling as it
# would unprofiled. If the runtime's monitor thread (sysmon) paid for its
# timed sleeps, it would preempt the producer later, and the channel of 64
# items would fill in the experiments and drain in the cool-offs: 30 %
# more time per visit at 60 % (the visits' pace read 125.0 ms against
# 96.1 at 0 %, produce() at 60 % 24.5 % against a truth of 36.0 measured
# over 60 s; with the monitor paying nothing 96.4 and 36.5 %: 2026-11-29,
# Documentation/go.rst). Checked: the visits' pace at 60 % within 10 % of
# that at 0 %.
t_monitor()
{
	deterministic || return 4
	bin=$targets/gt_chan-$gover
	[ -x "$bin" ] || { reason="no $bin (no go at build time)"; return 4; }
	lmain=gt_chan.go:$(line_of "$CAUSALPROF_REPO/tests/targets/gt_chan.go" "/* produce line */")
	for sp in 0 60; do
		record "pace$sp" --progress main.progress --fixed-line "$lmain" --fixed-speedup "$sp" \
			-- "$bin" -u "$unit" -d 60 || return 1
	done
	p0=$(pace pace0) p60=$(pace pace60)
	say "the visits' pace: $p0 ms at 0 %, $p60 ms at 60 %"
	if ! awk -v a="$p0" -v b="$p60" 'BEGIN { exit !(a != "none" && b != "none" && b <= 1.1 * a) }'; then
		say "the experiments at 60 % slowed the program down; the accounting:"
		"$CPROF" report --causal -v -i "$tmp/pace60.data" 2>&1 | sed -n '/accounting/,$p' | head -20 |
			while IFS= read -r l; do say "$l"; done
		return 1
	fi
}

t_mutex() { measured mutex crit -s other -o; }
t_pool() { measured pool work -s tidy -o main.finish; }

echo "TAP version 13"
echo "1..4"
run_test "Go channel, --fixed-line produce() and consume(), hooks and --no-go: within $tol points" t_chan
run_test "Go channel on one P: experiments keep the program's pace (the monitor pays nothing)" t_monitor
run_test "Go sync.Mutex, crit() and other(), hooks and --no-go: measured" t_mutex
run_test "Go worker pool, work() and tidy(), hooks and --no-go: measured" t_pool
totals
