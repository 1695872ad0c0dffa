# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/vm/run on the host and tests/vm/guest-check in the VM, so
# both sides agree on which test programs make up the suite. POSIX sh.

# The test programs that need deterministic guest time: tests/vm/check
# (make check) runs them in a boot of their own, on one vCPU under -icount;
# a plain run lists them only when named.
icount_programs="causal_truth_test.sh go_truth_test.sh causal1cpu_test.sh"

# The test programs that need single-threaded TCG: uprobes in a Go 1.19
# runtime's scheduler crash the program under multi-threaded TCG, with or
# without the module (Documentation/testing.rst), and these fire them by
# the thousand. tests/vm/check runs them in a boot of their own with
# VM_ACCEL=tcg,thread=single; a plain run lists them only when named.
single_programs="gohttp2_test.sh"

# The test programs that may run longer than TEST_TIMEOUT's default, as
# NAME:SECONDS (guest seconds): symbols_test.sh runs each program under
# cprof and under perf, node among them: 240 to 300 s on one vCPU.
long_programs="symbols_test.sh:600 load_test:600 causal2cpu_test.sh:1200 gohttp2_test.sh:600"

# program_timeout NAME SECONDS
#
# Prints the seconds test program NAME may run: SECONDS (TEST_TIMEOUT),
# or NAME's entry in $long_programs when that is longer. A subshell with
# its own IFS: guest-check calls it with IFS a newline, which left the
# list one word (and every entry ignored, "Illegal number" printed).
program_timeout()
(
	IFS=' '
	pt=$2
	for pt_e in $long_programs; do
		if [ "${pt_e%%:*}" = "$1" ] && [ "${pt_e#*:}" -gt "$pt" ]; then
			pt=${pt_e#*:}
		fi
	done
	echo "$pt"
)

# list_programs REPO [NAMES]
#
# Prints the path of every test program, one per line: each executable
# build/tests/*_test, then each executable tests/*_test.sh, in glob (C
# locale) order, but those of $icount_programs and $single_programs. NAMES, a comma-separated
# list of program names such as "proc_test,cprof_test.sh", keeps only
# those (any of them).
list_programs()
{
	for p in "$1"/build/tests/*_test "$1"/tests/*_test.sh; do
		[ -f "$p" ] && [ -x "$p" ] || continue
		if [ -n "${2:-}" ]; then
			case ",$2," in
			*",${p##*/},"*) ;;
			*) continue ;;
			esac
		else
			case " $icount_programs $single_programs " in
			*" ${p##*/} "*) continue ;;
			esac
		fi
		printf '%s\n' "$p"
	done
}

# pin_patch_sites: keeps the kernel code that a session's hooks would
# patch in its patched state for the whole boot, so that starting and
# stopping sessions patches no kernel text (see "A QEMU TCG defect" in
# Documentation/testing.rst). The static keys of the five tracepoints the
# module hooks stay enabled, and their static calls on the iterator,
# through their trace events in two instances (recording nothing:
# tracing_on is 0), and perf_event_mmap() keeps an ftrace-based kprobe
# (the module's own kprobe then joins it instead of arming the site), and
# a per-task perf event keeps perf's context-switch key enabled.
# Prints what failed and returns non-zero if it could not.
PIN_PID_FILE=/run/cprof-pin.pid

pin_patch_sites()
{
	pin_t=/sys/kernel/debug/tracing
	[ -w "$pin_t/tracing_on" ] || { echo "no tracefs at $pin_t"; return 1; }
	echo 0 > "$pin_t/tracing_on" || return 1
	# Each event twice, in the top instance and in a second one: a
	# tracepoint with a single probe calls it through a static call, which
	# the kernel repoints (patching the call in the traced function) each
	# time the count of probes goes between one and two. With two probes
	# (the same event's in two instances: their data differ) it calls the
	# iterator, and the module's probe coming and going patches nothing.
	mkdir -p "$pin_t/instances/cprof_pin" || { echo "cannot make a trace instance"; return 1; }
	echo 0 > "$pin_t/instances/cprof_pin/tracing_on" || return 1
	for pin_e in sched/sched_waking sched/sched_switch sched/sched_process_fork \
		     sched/sched_process_exit task/task_rename; do
		echo 1 > "$pin_t/events/$pin_e/enable" &&
			echo 1 > "$pin_t/instances/cprof_pin/events/$pin_e/enable" ||
			{ echo "cannot enable $pin_e"; return 1; }
	done
	echo 'p:cprof_pin/perf_event_mmap perf_event_mmap' >> "$pin_t/kprobe_events" &&
		echo 1 > "$pin_t/events/cprof_pin/perf_event_mmap/enable" ||
		{ echo "cannot probe perf_event_mmap"; return 1; }
	# perf's own tests (symbols_test) run `perf record` on a task: its
	# first per-task event enables perf_sched_events, which patches the
	# context-switch hooks in __schedule, and the key is disabled again a
	# second after its last event. One per-task event held for the whole
	# boot (a dummy, counting nothing) keeps that key enabled. Its pid goes
	# to $PIN_PID_FILE: guest-init's last kill spares it and its child, as
	# the key would be disabled a second after they died, while the guest
	# powers off.
	if command -v perf > /dev/null; then
		perf stat -e dummy -o /dev/null -- sleep 2147483647 \
			> /dev/null 2>&1 < /dev/null &
		echo $! > "$PIN_PID_FILE"
		sleep 1
		kill -0 $! 2> /dev/null || { echo "cannot hold a per-task perf event"; return 1; }
	fi
}
