#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Symbols for the programs people really profile, recorded with the module
# and set beside perf at the same event and rate: a stripped program's hot
# static functions as distinct addresses (cprof report, go tool pprof),
# named once its debug file sits under /usr/lib/debug/.build-id/ (and by
# pprof later, from the unstripped program under PPROF_BINARY_PATH); a C++ template instance and a
# Rust function (legacy and v0 manglings) demangled; a node script's JIT
# code named from its perf map, copied into the recording. Prints TAP like
# the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

sym=$CAUSALPROF_REPO/build/tests/sym
stripped=$sym/stripme-stripped
jit=$CAUSALPROF_REPO/tests/sym/jit.js
. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/toptable.sh"
export HOME=$tmp/home GOCACHE=$tmp/home/go-cache
mkdir -p "$HOME"
# Shares of one function, cprof's and perf's, may differ by this many points.
NOISE=10

# perf_record NAME ARGS...: the same under perf, its table by symbol into $tmp/NAME.perf
perf_record()
{
	name=$1
	shift
	timeout 200 perf record -q -e cpu-clock -F $FREQ -o "$tmp/$name.pdata" -- "$@" \
		> /dev/null 2> "$tmp/$name.perr" || {
		say "perf record $* failed:"
		show "$tmp/$name.perr"
		return 1
	}
	perf_table "$name"
}

# perf_table NAME: perf's table by symbol of $tmp/NAME.pdata into $tmp/NAME.perf
perf_table()
{
	name=$1
	perf report -i "$tmp/$name.pdata" --stdio --sort sym --no-children -q \
		> "$tmp/$name.perf" 2> "$tmp/$name.perr" || {
		say "perf report failed:"
		show "$tmp/$name.perr"
		return 1
	}
	return 0
}

# share FILE PATTERN: the flat % of the rows of a top table whose name
# matches PATTERN (an extended regular expression)
share()
{
	rows "$1" | while read -r pct name; do
		printf '%s\n' "$name" | grep -Eq -- "$2" && echo "${pct%\%}"
	done | awk '{ s += $1 } END { printf "%.2f", s }'
}

# perf_share FILE PATTERN: the same from perf report --stdio --sort sym
perf_share()
{
	awk -v re="$2" '$1 ~ /%$/ && $0 ~ re { sub("%", "", $1); s += $1 }
		END { printf "%.2f", s }' "$1"
}

# near A B: |A - B| <= NOISE
near()
{
	awk -v a="$1" -v b="$2" -v n=$NOISE 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'
}

# part A B: A's part of A + B, in percent (0 when both are 0)
part()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a + b > 0 ? 100 * a / (a + b) : 0) }'
}

# ge A B: A >= B
ge()
{
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

# file_off FILE SYMBOL: the file offset of SYMBOL of the unstripped FILE, hex
file_off()
{
	vaddr=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[ -n "$vaddr" ] || return 1
	v=$((0x$vaddr))
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
	while read -r off va sz; do
		if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + sz)) ]; then
			printf '%x\n' $((v - va + off))
		fi
	done
}

# in_func ADDRESS SYMBOL: ADDRESS (hex, a mapping of stripme) is in SYMBOL
# of the unstripped stripme, judged by the offset in its page
in_func()
{
	start=$(file_off "$sym/stripme" "$2")
	size=$(nm -S "$sym/stripme" | awk -v s="$2" '$4 == s { print $2 }')
	page=$(( (0x$1 & 0xfff) - (0x$start & 0xfff) ))
	[ "$page" -ge 0 ] && [ "$page" -lt $((0x$size)) ]
}

build_id()
{
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

test_stripped_addresses()
{
	off_a=$(file_off "$sym/stripme" spin_a)
	off_b=$(file_off "$sym/stripme" spin_b)
	[ -n "$off_a" ] && [ -n "$off_b" ] || { say "no spin_a/spin_b in $sym/stripme"; return 1; }
	record strip "$stripped" 3 || return 1
	report strip strip.top || return 1
	show "$tmp/strip.top"
	a=$(share_of "$tmp/strip.top" "stripme-stripped+0x$off_a")
	b=$(share_of "$tmp/strip.top" "stripme-stripped+0x$off_b")
	c=$(share_of "$tmp/strip.top" spin_c)
	say "spin_a (stripme-stripped+0x$off_a): $a%, spin_b (+0x$off_b): $b%, spin_c (.dynsym): $c%"
	ge "$a" 40 && ge "$b" 15 && ge "$a" "$b" && ge "$c" 1 || return 1
	if grep -q '\[stripme-stripped\]' "$tmp/strip.top"; then
		say "a [stripme-stripped] node: its code lumped together"
		return 1
	fi
	return 0
}

# The pprof keeps every address and claims no function for the mapping
# (its file names some, spin_c, not all).
test_stripped_pprof()
{
	command -v go > /dev/null || { reason="no go"; return 4; }
	[ -s "$tmp/strip.data" ] || { say "no recording from the previous test"; return 1; }
	report strip strip.pb.gz.out --pprof "$tmp/strip.pb.gz" || return 1
	go tool pprof -top -addresses "$tmp/strip.pb.gz" > "$tmp/strip.gotop" 2> "$tmp/strip.goerr" || {
		show "$tmp/strip.goerr"
		return 1
	}
	show "$tmp/strip.gotop"
	go tool pprof -raw "$tmp/strip.pb.gz" > "$tmp/strip.raw" 2>&1 || return 1
	if grep "stripme-stripped" "$tmp/strip.raw" | grep -q '\[FN\]'; then
		say "the stripped program's mapping claims functions:"
		grep "stripme-stripped" "$tmp/strip.raw" | show /dev/stdin
		return 1
	fi
	if ! grep "stripme-stripped" "$tmp/strip.raw" | grep -q "$(build_id "$stripped")"; then
		say "the mapping has not the file's build id"
		return 1
	fi
	# -addresses: a node per address, "ADDRESS [stripme-stripped]"; the
	# heaviest in spin_a, the next in spin_b (by their page offsets: a
	# mapping keeps the file's page offsets).
	rows "$tmp/strip.gotop" | grep -E '^[^ ]* [0-9a-f]+ \[stripme-stripped\]$' |
		head -n 2 > "$tmp/strip.addrs"
	set -- $(awk '{ print $2 }' "$tmp/strip.addrs")
	[ $# -eq 2 ] || { say "not two address nodes"; return 1; }
	in_func "$1" spin_a && in_func "$2" spin_b || {
		say "the heaviest addresses are not in spin_a, then spin_b"
		return 1
	}
	sum=$(awk '{ sub("%", "", $1); s += $1 } END { printf "%.2f", s }' "$tmp/strip.addrs")
	say "their nodes: $sum% of the samples"
	ge "$sum" 80 || return 1
	! grep -q 'spin_a' "$tmp/strip.gotop"
}

# The debug file under the build-id path (the VM's root is a scratch overlay).
test_stripped_debug_file()
{
	[ -s "$tmp/strip.data" ] || { say "no recording from the previous tests"; return 1; }
	id=$(build_id "$stripped")
	dir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$dir" && cp "$sym/stripme.debug" "$dir/$(echo "$id" | cut -c3-).debug" || return 1
	report strip named.top || return 1
	report strip named.lines --lines || return 1
	show "$tmp/named.top"
	a=$(share_of "$tmp/named.top" spin_a)
	b=$(share_of "$tmp/named.top" spin_b)
	say "by name: spin_a $a%, spin_b $b%"
	ge "$a" 40 && ge "$b" 15 || return 1
	grep -q 'spin_a .*stripme\.c:[0-9]' "$tmp/named.lines" || {
		say "no source line of spin_a:"
		show "$tmp/named.lines"
		return 1
	}
	# perf, with the same debug file, at the same rate
	perf_record strip "$stripped" 3 || return 1
	pa=$(perf_share "$tmp/strip.perf" 'spin_a')
	pb=$(perf_share "$tmp/strip.perf" 'spin_b')
	say "perf: spin_a $pa%, spin_b $pb%"
	near "$a" "$pa" && near "$b" "$pb"
}

# pprof names the old profile's addresses later, from the unstripped
# program found by build id under PPROF_BINARY_PATH. The standalone pprof
# (binutils): `go tool pprof` names only Go code.
test_stripped_pprof_later()
{
	pprof=$CAUSALPROF_REPO/build/tests/tools/pprof
	[ -x "$pprof" ] || { reason="no standalone pprof (golang-github-google-pprof-dev)"; return 4; }
	[ -s "$tmp/strip.pb.gz" ] || { say "no profile from the previous tests"; return 1; }
	bin=$tmp/pprof-bin/$(build_id "$stripped")
	mkdir -p "$bin" && cp "$sym/stripme" "$bin/stripme-stripped" || return 1
	PPROF_BINARY_PATH=$tmp/pprof-bin "$pprof" -top "$tmp/strip.pb.gz" \
		> "$tmp/later.gotop" 2> "$tmp/later.goerr" || {
		show "$tmp/later.goerr"
		return 1
	}
	show "$tmp/later.gotop"
	a=$(share_of "$tmp/later.gotop" spin_a)
	b=$(share_of "$tmp/later.gotop" spin_b)
	say "pprof: spin_a $a%, spin_b $b%"
	ge "$a" 40 && ge "$b" 15
}

test_cxx_demangled()
{
	record cxx "$sym/cxxhot" 3 || return 1
	report cxx cxx.top || return 1
	show "$tmp/cxx.top"
	c=$(share_of "$tmp/cxx.top" 'double accumulate_hot<double>(double const*, unsigned long)')
	say "cprof: $c%"
	ge "$c" 50 || return 1
	if grep -q '_Z14accumulate_hot' "$tmp/cxx.top"; then
		say "a mangled name in the report"
		return 1
	fi
	report cxx cxx.pb.out --pprof "$tmp/cxx.pb.gz" || return 1
	# pprof's Function.system_name keeps the mangled name
	gzip -dc "$tmp/cxx.pb.gz" | grep -aq '_Z14accumulate_hotIdET_PKS0_m' || {
		say "no mangled name in the pprof"
		return 1
	}
	perf_record cxx "$sym/cxxhot" 3 || return 1
	p=$(perf_share "$tmp/cxx.perf" 'accumulate_hot<double>')
	say "perf: $p%"
	near "$c" "$p"
}

# rust NAME: a Rust program's hot function, from its mangled symbol (legacy
# or v0, as nm shows it), demangled, and its share beside perf's
rust()
{
	prog=$sym/rusthot-$1
	[ -x "$prog" ] || { reason="no rustc when the tests were built"; return 4; }
	mangled=$(nm "$prog" | awk '$3 ~ /rusthot.*hot_loop/ { print $3 }')
	say "$1: $mangled"
	case $1:$mangled in
	legacy:_ZN*|v0:_R*) ;;
	*) say "not a $1 mangled name"; return 1 ;;
	esac
	record "rust-$1" "$prog" 3 || return 1
	report "rust-$1" "rust-$1.top" || return 1
	show "$tmp/rust-$1.top"
	c=$(cum_of "$tmp/rust-$1.top" rusthot::hot_loop)
	say "cprof: rusthot::hot_loop $c%"
	ge "$c" 50 || return 1
	if grep -q "$mangled" "$tmp/rust-$1.top"; then
		say "a mangled name in the report"
		return 1
	fi
	perf_record "rust-$1" "$prog" 3 || return 1
	p=$(perf_share "$tmp/rust-$1.perf" 'hot_loop')
	say "perf: $p%"
	near "$c" "$p"
}

test_rust_legacy()
{
	rust legacy
}

test_rust_v0()
{
	rust v0
}

test_node_jit()
{
	command -v node > /dev/null || { reason="no node"; return 4; }
	# Both runs with node's 90 MB in the page cache, not read through 9p.
	node -e 0 || return 1
	# One run under both profilers, perf's inherited by cprof's child:
	# V8's tiering moves the split between the two functions from run to
	# run (26:74 and 44:56 in one CI boot, two runs of the script).
	timeout 200 perf record -q -e cpu-clock -F $FREQ -o "$tmp/node.pdata" -- \
		"$CPROF" record -e cpu-clock -F $FREQ -o "$tmp/node.data" -- \
		node --perf-basic-prof "$jit" 4 > /dev/null 2> "$tmp/node.rec.err" || {
		say "perf record cprof record node failed:"
		show "$tmp/node.rec.err"
		return 1
	}
	say "$(grep 'recorded' "$tmp/node.rec.err")"
	perf_table node || return 1
	# The recording holds the map: the JIT's file may go.
	rm -f /tmp/perf-*.map
	report node node.top || return 1
	show "$tmp/node.top"
	f=$(share "$tmp/node.top" 'fibHot')
	s=$(share "$tmp/node.top" 'sieveCold')
	say "cprof: fibHot $f%, sieveCold $s%"
	ge "$f" 10 && ge "$s" 10 || return 1
	pf=$(perf_share "$tmp/node.perf" 'fibHot')
	ps=$(perf_share "$tmp/node.perf" 'sieveCold')
	say "perf: fibHot $pf%, sieveCold $ps%"
	# Compared: how the two split their samples. Their share of all
	# samples is the main thread's, and moves with the speed of its vCPU
	# against that of node's other threads (and perf's counts cprof's).
	cpart=$(part "$f" "$s")
	ppart=$(part "$pf" "$ps")
	say "fibHot's part of the two: cprof $cpart%, perf $ppart%"
	ge "$ps" 10 && near "$cpart" "$ppart"
}

# The debug file installed by the tests goes: later programs see the file stripped.
remove_debug_file()
{
	id=$(build_id "$stripped")
	rm -f "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
}

echo "TAP version 13"
echo "1..8"
run_test "stripped program: hot static functions as distinct addresses" test_stripped_addresses
run_test "stripped program: pprof keeps addresses, mapping without functions" test_stripped_pprof
run_test "stripped program: named from its debug file, shares as perf's" test_stripped_debug_file
run_test "stripped program: pprof names the profile later (PPROF_BINARY_PATH)" test_stripped_pprof_later
run_test "C++ template instance demangled, shares as perf's" test_cxx_demangled
run_test "Rust, legacy mangling, demangled, shares as perf's" test_rust_legacy
run_test "Rust, v0 mangling, demangled, shares as perf's" test_rust_v0
run_test "node JIT code named from the recorded perf map, shares as perf's" test_node_jit
remove_debug_file
totals
