#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The causal engine's tests (build/tests/causal_test) on one CPU, where
# the payment rules differ (spin_payments_one_cpu) and the threads of
# every test share the CPU. tests/vm/check runs it in its boot of one
# vCPU under -icount (icount_programs in tests/vm/lib.sh); with more CPUs
# it skips: the first boot runs causal_test itself.
if [ "$(nproc)" -ne 1 ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "ok 1 causal_test on one CPU # SKIP needs one CPU (tests/vm/check runs it so)"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 0
fi
exec "$CAUSALPROF_REPO/build/tests/causal_test" "$@"
