#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cprof report on real recordings, against the module: the bad LRU cache's
# pprof read by `go tool pprof` without a warning, its hot function first,
# the top 5 functions and their flat % the same in cprof's own table, the
# totals those of the recording; a Go program's functions; a dlopen()ed
# library, the vDSO and the kernel named; a recording cut by SIGKILL.
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

build=$CAUSALPROF_REPO/build/tests
lru=$build/targets/lru
gobusy=$build/targets/gobusy
symtarget=$build/sym/symtarget
symlib=$build/sym/libsymlib.so
recsum=$build/tools/recsum
. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/toptable.sh"
export HOME=$tmp/home GOCACHE=$tmp/home/go-cache
mkdir -p "$HOME"

test_lru_pprof()
{
	command -v go > /dev/null || { reason="no go"; return 4; }
	record lru "$lru" 4 || return 1
	report lru lru.pb.out --pprof "$tmp/lru.pb.gz" || return 1
	go_pprof lru top || return 1
	show "$tmp/lru.gotop"
	top=$(rows "$tmp/lru.gotop" | head -n 1 | awk '{ print $2 }')
	if [ "$top" != lru_evict ]; then
		say "go tool pprof ranks '$top' first, not lru_evict"
		return 1
	fi
	return 0
}

test_top_agrees()
{
	[ -s "$tmp/lru.gotop" ] || { say "no pprof -top from the previous test"; return 1; }
	report lru lru.top || return 1
	rows "$tmp/lru.top" | head -n 5 > "$tmp/lru.cprof5"
	rows "$tmp/lru.gotop" | head -n 5 > "$tmp/lru.go5"
	if [ "$(wc -l < "$tmp/lru.cprof5")" -ne 5 ] ||
	   ! cmp -s "$tmp/lru.cprof5" "$tmp/lru.go5"; then
		say "cprof's top 5 (flat% name):"
		show "$tmp/lru.cprof5"
		say "go tool pprof's:"
		show "$tmp/lru.go5"
		return 1
	fi
	show "$tmp/lru.cprof5"
	return 0
}

# The profile's totals are the recording's: every sample's count and weight.
test_totals()
{
	[ -s "$tmp/lru.pb.gz" ] || { say "no profile from the previous tests"; return 1; }
	"$recsum" "$tmp/lru.data" > "$tmp/lru.sum" || { say "recsum failed"; return 1; }
	go tool pprof -raw "$tmp/lru.pb.gz" > "$tmp/lru.raw" 2> "$tmp/lru.rawerr" || {
		show "$tmp/lru.rawerr"
		return 1
	}
	# -raw: "Samples:", the types, then "  COUNT  WEIGHT: LOCATIONS" lines
	# (awk's %d stops at 2^31: %.0f)
	got=$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		   on && $2 ~ /:$/ { sub(":", "", $2); c += $1; w += $2 }
		   END { printf "%.0f %.0f", c, w }' "$tmp/lru.raw")
	want=$(awk '$1 == "event" && $2 == 0 { c = $4; w = $6 } $1 == "lost" { l = $2 }
		    END { printf "%.0f %.0f %.0f", c, w, l }' "$tmp/lru.sum")
	say "pprof: $got (samples, ns); recording: $want (samples, ns, lost)"
	set -- $want
	lost=$3
	if [ "$lost" -ne 0 ]; then
		# the lost ones are booked at the average period: counts must add up
		[ "${got%% *}" -eq $(($1 + lost)) ] || return 1
		reason="$lost samples lost: weights not comparable exactly"
		return 4
	fi
	[ "$got" = "$1 $2" ]
}

test_go_program()
{
	[ -x "$gobusy" ] || { reason="no $gobusy (go not installed at build time)"; return 4; }
	record go "$gobusy" spin 3 || return 1
	report go go.top || return 1
	top=$(rows "$tmp/go.top" | head -n 1 | awk '{ print $2 }')
	if [ "$top" != main.busy ]; then
		say "the top function is '$top', not main.busy:"
		show "$tmp/go.top"
		return 1
	fi
	grep -q ' runtime\.main$' "$tmp/go.top" || {
		say "no runtime.main in the report"
		show "$tmp/go.top"
		return 1
	}
	report go go.pb.out --pprof "$tmp/go.pb.gz" || return 1
	go_pprof go top || return 1
	top=$(rows "$tmp/go.gotop" | head -n 1 | awk '{ print $2 }')
	[ "$top" = main.busy ] || { say "pprof ranks '$top' first"; return 1; }
	return 0
}

# A library loaded with dlopen(), the vDSO and the kernel, all named.
test_dlopen_vdso_kernel()
{
	record sym "$symtarget" spin "$symlib" 4 || return 1
	report sym sym.top || return 1
	status=0
	for fn in lib_spin __vdso_clock_gettime do_syscall_64 ksys_read; do
		grep -q " $fn\$" "$tmp/sym.top" || {
			say "no $fn in the report"
			status=1
		}
	done
	report sym sym.pb.out --pprof "$tmp/sym.pb.gz" || return 1
	go tool pprof -raw "$tmp/sym.pb.gz" > "$tmp/sym.raw" 2> "$tmp/sym.rawerr" || return 1
	# mappings: "ID: START/LIMIT/OFFSET FILE [BUILDID] [FN]..."; [FN] only
	# when every location has a function (the vDSO's inner helpers have
	# no symbol: it has its build id)
	for m in '/libsymlib.so .*\[FN\]\[FL\]\[LN\]\[IN\]' '\[vdso\] [0-9a-f]\{40\}' \
		 '\[kernel.kallsyms\] .*\[FN\]'; do
		sed -n '/^Mappings/,$p' "$tmp/sym.raw" | grep -q "$m" || {
			say "no mapping matching '$m'"
			status=1
		}
	done
	[ "$status" -eq 0 ] || { show "$tmp/sym.top"; sed -n '/^Mappings/,$p' "$tmp/sym.raw" |
		sed 's/^/#   /'; }
	return $status
}

# cprof record killed: the file is cut; report says so (status 2), --force reads it.
# --raw: a record per sample, so that the file grows while the target runs
# (aggregated, it grows by a few KiB a second until the end's kallsyms).
test_killed_recording()
{
	out=$tmp/killed.data
	"$CPROF" record --raw -e cpu-clock -o "$out" -- "$lru" 60 > /dev/null 2>&1 &
	bg=$!
	i=0
	while [ "$(stat -c %s "$out" 2> /dev/null || echo 0)" -lt 100000 ]; do
		i=$((i + 1))
		if [ "$i" -gt 300 ] || ! kill -0 "$bg" 2> /dev/null; then
			say "the recording did not grow to 100 kB in 30 s"
			return 1
		fi
		sleep 0.1
	done
	child=$(pgrep -P "$bg")
	kill -KILL "$bg"
	wait "$bg" 2> /dev/null
	bg=
	[ -n "$child" ] && kill -KILL $child 2> /dev/null
	"$CPROF" report -i "$out" > "$tmp/killed.top" 2> "$tmp/killed.err"
	rc=$?
	say "$(cat "$tmp/killed.err")"
	if [ "$rc" -ne 2 ] || ! grep -q 'offset [0-9]' "$tmp/killed.err" ||
	   ! grep -q 'cprof record killed' "$tmp/killed.err"; then
		say "cprof report of a killed recording exited $rc"
		return 1
	fi
	"$CPROF" report -i "$out" --force > "$tmp/killed.top" 2> "$tmp/killed.err"
	rc=$?
	top=$(rows "$tmp/killed.top" | head -n 1 | awk '{ print $2 }')
	if [ "$rc" -ne 0 ] || [ "$top" != lru_evict ]; then
		say "cprof report --force exited $rc, top '$top'"
		show "$tmp/killed.err"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..6"
run_test "the bad LRU's pprof: go tool pprof reads it, lru_evict first" test_lru_pprof
run_test "cprof's top 5 and flat% are pprof's" test_top_agrees
run_test "the pprof totals are the recording's" test_totals
run_test "a Go program's functions are named" test_go_program
run_test "a dlopen()ed library, the vDSO and the kernel are named" test_dlopen_vdso_kernel
run_test "a recording cut by SIGKILL: status 2, --force reads it" test_killed_recording
totals
