#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Causal profiles on two CPUs: the curves' shape and their values against
# ground truth measured in the same boot, on make check's first boot (two
# ordinary TCG vCPUs, pinned to host CPUs of their own: VM_PIN). On one
# vCPU, or under -icount (one CPU shared), it skips: causal_truth_test.sh
# is that boot's test.
#
# Two vCPUs are a noisy instrument (Documentation/causal.rst: single runs
# spread by about 15 %, medians of interleaved rounds within 2 points), so
# this test checks what a single run must get right whatever the noise,
# with the truth measured just before each recording:
#   - tests/targets/gt_futex -t 2 -C 10 -O 5 (two threads, a lock on a raw
#     futex, critical section 1.0 unit, other work 0.5): crit() at 20,
#     40 and 60 % within tol points of the truth and rising (40 % more
#     than 20 % by rise points, 60 % more than 40 %); other() at 40 %
#     within tol of its truth (about 0).
#   - tests/targets/gt_pipe -P (producer and consumer processes, produce
#     1.0 unit, consume 0.6): produce() at 20 and 40 % within tol and
#     rising, 60 % within tol of its truth, the plateau (40 %: the
#     consumer bounds it) no more than flat points above 40 %'s.
# A cell off by more than that fails, after one more recording (a host
# that runs anything else on a vCPU's core moves the bound of these
# programs, as testing.rst says of causal_record_test.sh).
# Measured (2026-11-27, 6.1, one run): crit() 20 / 40 / 60 % 20.2 / 35.8 /
# 51.6 against 18.9 / 39.3 / 58.0, other() -2.1 against 1.8; produce()
# 15.6 / 33.1 / 30.1 against 20.4 / 38.6 / 38.8, consume() 0.2 against
# -1.8 (the medians of bench/RESULTS.md's causal2cpu tables: crit() within
# 4.8 points with spinning payments, produce() 40 and 60 % 2.5 to 9.6 low). With no delay passed on at wake-ups (module parameter
# inherit=0) both fail twice: crit() 20 % read 7.4 and 7.8 against 21.1
# and 19.9, produce() 40 % 28.9 and 30.3 against 39.5 and 39.7.
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/causal.sh"

tol=${CAUSAL_TOL:-10}
rise=${CAUSAL_RISE:-5}
flat=${CAUSAL_FLAT:-8}
run_s=${CAUSAL_RUN_S:-45}
truth_s=${CAUSAL_TRUTH_S:-6}
RECORD_TIMEOUT=$((run_s * 4))

# truth4 BIN KNOB OKNOB ARGS...: base rate, then the truths with KNOB 20,
# 40 and 60 and OKNOB 40, into t20 t40 t60 o40. Both programs' truths are
# about 20 % at 20, rise by 20 points to 40 % and do not fall after, and
# the other line's is about 0 (within flat points); truths that do not
# are the host's (in one boot a slowed run read 40 % at -77.7 %, and in
# the retry 20 % at 5.8 %; in another the pipe's consume() at -14.2 % and
# the lock's other() at 14.9 and -11.5 %, 2026-11-28) and are measured
# again, three times at most.
truth4()
{
	bin=$1 knob=$2 oknob=$3
	shift 3
	for try in 1 2 3; do
		base=$(rate "$bin" "$@" -d "$truth_s")
		t20=$(truth "$base" "$(rate "$bin" "$@" -d "$truth_s" "$knob" 20)")
		t40=$(truth "$base" "$(rate "$bin" "$@" -d "$truth_s" "$knob" 40)")
		t60=$(truth "$base" "$(rate "$bin" "$@" -d "$truth_s" "$knob" 60)")
		o40=$(truth "$base" "$(rate "$bin" "$@" -d "$truth_s" "$oknob" 40)")
		awk -v a="$t20" -v b="$t40" -v c="$t60" -v o="$o40" -v r="$rise" -v f="$flat" 'BEGIN {
			exit !(a + 0 > 2 * r && b + 0 > a + r && c + 0 > b - f &&
			       o + 0 <= f && o + 0 >= -f) }' && return 0
		say "truth $t20 / $t40 / $t60 % at 20 / 40 / 60 %, the other line's $o40 %, not the program's shape (try $try): measured again"
	done
}

# gap NAME LINE LO HI RULE BY: the prediction at HI % less the one at
# LO % is more than BY points (RULE rises) or no more than BY (RULE flat).
gap()
{
	lo=$(predicted "$1" "$2" "$3") hi=$(predicted "$1" "$2" "$4")
	if ! awk -v a="$lo" -v b="$hi" -v rule="$5" -v by="$6" 'BEGIN {
			if (a == "none" || b == "none") exit 1
			exit !(rule == "rises" ? b - a > by : b - a <= by) }'; then
		say "$1: $2 from $3 % ($lo) to $4 % ($hi): wanted: $5 by $6 points"
		return 1
	fi
}

# curve NAME BIN SRC MAIN MKNOB OTHER OKNOB SHAPE ARGS... [-- POINT...]:
# the truths, a --fixed-line recording of MAIN checked at 20, 40 and 60 %
# and for SHAPE (rising: 20 < 40 < 60; plateau: 20 < 40, 60 flat), then
# one of OTHER at 40 %.
curve()
{
	tn=$1 bin=$2 src=$3 main=$4 mknob=$5 other=$6 oknob=$7 shape=$8
	shift 8
	args='' point=''
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	[ $# -eq 0 ] || { shift; point="$*"; }
	lmain=${src##*/}:$(line_of "$src" "/* $main line */")
	lother=${src##*/}:$(line_of "$src" "/* $other line */")
	# shellcheck disable=SC2086
	truth4 "$bin" "$mknob" "$oknob" $args
	say "$tn: $base events/s; truth: $main() 20 % $t20 %, 40 % $t40 %, 60 % $t60 %, $other() 40 % $o40 %"
	# shellcheck disable=SC2086
	record "${tn}_m" $point --fixed-line "$lmain" -- "$bin" $args -d "$run_s" || return 1
	close_to "${tn}_m" "$lmain" 20 "$t20" || return 1
	close_to "${tn}_m" "$lmain" 40 "$t40" || return 1
	close_to "${tn}_m" "$lmain" 60 "$t60" || return 1
	gap "${tn}_m" "$lmain" 20 40 rises "$rise" || return 1
	case $shape in
	rising) gap "${tn}_m" "$lmain" 40 60 rises "$rise" || return 1 ;;
	plateau) gap "${tn}_m" "$lmain" 40 60 flat "$flat" || return 1 ;;
	esac
	# shellcheck disable=SC2086
	record "${tn}_o" $point --fixed-line "$lother" -- "$bin" $args -d "$run_s" || return 1
	close_to "${tn}_o" "$lother" 40 "$o40"
}

# twice TEST...: TEST, and once more if it fails.
twice()
{
	"$@" && return 0
	say "once more"
	"$@"
}

two_cpus()
{
	if [ "$(nproc)" -ne 2 ] || [ -n "${CAUSALPROF_ICOUNT:-}" ]; then
		reason="needs two vCPUs without -icount (make check's first boot)"
		return 1
	fi
}

test_futex2()
{
	two_cpus || return 4
	twice curve futex2 "$targets/gt_futex_sdt" "$CAUSALPROF_REPO/tests/targets/gt_futex.c" \
		crit -s other -o rising -t 2 -C 10 -O 5
}

test_pipe()
{
	two_cpus || return 4
	psrc=$CAUSALPROF_REPO/tests/targets/gt_pipe.c
	twice curve pipe "$targets/gt_pipe" "$psrc" produce -p consume -c plateau -P \
		-- --progress "gt_pipe.c:$(line_of "$psrc" '/* progress line */')"
}

echo "TAP version 13"
echo "1..2"
run_test "two CPUs, raw futex lock of two threads: crit() rises, within $tol points; other() within $tol" test_futex2
run_test "two CPUs, pipe between processes: produce() rises to the consumer's plateau, within $tol points; consume() within $tol" test_pipe
totals
