#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Causal accuracy on two CPUs: bench/causal.sh's table on 2 ordinary TCG
# vCPUs (bench/run boots it alone, the vCPUs pinned: nothing else may
# run on the host meanwhile), with the method of Documentation/causal.rst:
# the truth and the predictions measured in the same boot, interleaved
# rounds (REPS truth rounds, ROUNDS profiled runs of each tool and mode,
# 5 by default), medians with 90 % bootstrap intervals, and each cell
# judged against the truth (ok: within 5 points, or inside the truth's
# 90 % interval). Programs (PROGS): the two-thread futex lock, the pipe
# between processes and between threads (which Coz can profile), the
# condition-variable queue, the barrier, and the
# Go channel, sync.Mutex and worker pool, built by Go 1.19 and by Go 1.23
# (with the Go hooks and with --no-go).

# About five hours: only when asked for by name (make bench BENCH=causal2cpu)
case ",${CAUSALPROF_ONLY:-}," in
*,causal2cpu,*) ;;
*) echo "# causal2cpu: only with BENCH=causal2cpu"; exit 0 ;;
esac
here=$(dirname "$0")
export PROGS="${PROGS:-futex2,pipe,pipet,cond,barrier,gochan,gomutex,gopool,gochan123,gomutex123,gopool123}" REPS="${REPS:-5}" ROUNDS="${ROUNDS:-5}"
export RUN_S="${RUN_S:-60}" TRUTH_S="${TRUTH_S:-6}" BENCH_NAME=causal2cpu
exec sh "$here/causal.sh"
