#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Go pprof labels end to end (kmod/golabels.c, user/golabels.c): cprof
# record of tests/targets/golabels.go, whose one goroutine alternates a
# request under the label handler=/a and one under handler=/b doing half
# the work, through the same code (the same stacks: only the labels tell
# them apart, in the module's aggregation too), built by each Go installed (Go 1.19, and Go 1.23 when there),
# with DWARF and stripped (-ldflags='-s -w': offsets from cprof's table);
# recorded aggregated in the module (the default: labels in STACK records)
# and, for two of them, as SAMPLE records (--raw). Then:
# - cprof report --pprof: `go tool pprof -tags` lists handler /a and /b
#   and kind work, and -tagfocus=handler=/a and =/b split the samples 2:1;
# - cprof report --tag handler=/a and =/b count the samples 2:1, in the
#   function table and --lines alike, a label no sample has none; --tag
#   with a spec that is not KEY=VALUE: exit 2 and a usage message;
# - the module could read the labels of all samples but a few (at most
#   1 %: see test_split).
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
. "$CAUSALPROF_REPO/tests/tap.sh"
export HOME=$tmp/home
mkdir -p "$HOME"

# How long the target runs, ms.
MS=${GOLABELS_MS:-4000}
# /a's samples over /b's, x100: 200 expected. Measured on 6.1 under TCG,
# 2 vCPUs, cpu-clock at 1000 Hz, 4 s (some 3850 labelled samples a run),
# 100 * a / b in two runs: Go 1.19 199 and 203, stripped 195 and 203;
# Go 1.23 198 and 188, stripped 197 and 191; as SAMPLE records, Go 1.19
# 200 and 199, Go 1.23 stripped 192 and 198; --tag 199 and 203. The
# binomial spread of the ratio at that count is 7 (one sd). Allowed: 170
# to 235, some 4 sd either side.
RATIO_MIN=170
RATIO_MAX=235

status_u64()
{
	awk -v k="$1" '$1 == k ":" || $1 == k { print $NF; exit }' /proc/causalprof/status
}

# record NAME PROG ARGS...: cprof record -e cpu-clock into $tmp/NAME.data
record()
{
	name=$1
	shift
	timeout 300 "$CPROF" record -e cpu-clock -F 1000 -o "$tmp/$name.data" "$@" \
		> "$tmp/$name.rec.out" 2> "$tmp/$name.rec.err"
	rc=$?
	if [ "$rc" -ne 0 ] || grep -q "no Go labels" "$tmp/$name.rec.err"; then
		say "cprof record $* exited $rc; stderr:"
		show "$tmp/$name.rec.err"
		return 1
	fi
	say "$(grep 'recorded' "$tmp/$name.rec.err")"
	return 0
}

# focus NAME VALUE: the samples of $tmp/NAME.pb.gz whose handler is VALUE,
# as go tool pprof -tagfocus counts them
focus()
{
	go tool pprof -sample_index=samples -tags -tagfocus="handler=$2" \
		"$tmp/$1.pb.gz" 2> "$tmp/$1.focus.err" |
		awk '$1 == "handler:" && $2 == "Total" { printf "%d\n", $3; exit }'
	go tool pprof -sample_index=samples -top -tagfocus="handler=$2" \
		"$tmp/$1.pb.gz" 2> /dev/null | sed -n '4,12p' > "$tmp/$1.focus.top"
	show "$tmp/$1.focus.top" >&2
}

test_split()
{
	go=$1 raw=$2
	prog=$targets/golabels-$go
	name=$(basename "$prog")$raw
	if [ ! -x "$prog" ]; then
		reason="no $prog (that go not installed at build time)"
		return 4
	fi
	if ! command -v go > /dev/null; then
		reason="no go tool pprof"
		return 4
	fi
	before=$(status_u64 go_labels_fault)
	record "$name" $raw -- "$prog" "$MS" || return 1
	fault=$(($(status_u64 go_labels_fault) - before))
	if ! "$CPROF" report -i "$tmp/$name.data" --pprof "$tmp/$name.pb.gz" \
		2> "$tmp/$name.rep.err"; then
		show "$tmp/$name.rep.err"
		return 1
	fi
	go tool pprof -sample_index=samples -tags "$tmp/$name.pb.gz" > "$tmp/$name.tags" \
		2> "$tmp/$name.tags.err"
	show "$tmp/$name.tags"
	for want in "handler:" "kind:" "/a\$" "/b\$" "work\$"; do
		if ! grep -q -- "$want" "$tmp/$name.tags"; then
			say "go tool pprof -tags lists no $want"
			show "$tmp/$name.tags.err"
			return 1
		fi
	done
	a=$(focus "$name" /a)
	b=$(focus "$name" /b)
	say "$name: handler=/a $a samples, handler=/b $b, module faults $fault"
	if [ -z "$a" ] || [ -z "$b" ] || [ "$b" -lt 100 ]; then
		say "too few samples under the labels"
		show "$tmp/$name.focus.err"
		return 1
	fi
	ratio=$((100 * a / b))
	say "$name: /a over /b $ratio %, allowed $RATIO_MIN to $RATIO_MAX"
	echo "$name $a $b $ratio" >> "$tmp/ratios"
	[ "$ratio" -ge "$RATIO_MIN" ] && [ "$ratio" -le "$RATIO_MAX" ] || return 1
	# A few samples find no g: 2 to 8 measured of 4000, most likely those
	# of cprof record's forked child, a C image until it execs the target.
	if [ $((100 * fault)) -gt $((a + b)) ]; then
		say "the module could not read $fault samples' labels"
		return 1
	fi
}

# samples NAME ARGS...: the samples cprof report ARGS counts in $tmp/NAME.data
samples()
{
	name=$1
	shift
	"$CPROF" report -i "$tmp/$name.data" "$@" > "$tmp/tag.out" 2> "$tmp/tag.err" &&
		awk '/^# event 0:/ { print $5; exit }' "$tmp/tag.out"
}

# cprof report --tag on the first recording: the samples of that label
# only, in the function table and --lines (the same counts); /a and /b
# 2:1 and, with the samples of no label (the runtime's), all of them.
test_tag()
{
	name=golabels-go
	if [ ! -e "$tmp/$name.data" ]; then
		reason="no recording of $name"
		return 4
	fi
	all=$(samples "$name")
	a=$(samples "$name" --tag handler=/a)
	b=$(samples "$name" --tag handler=/b)
	c=$(samples "$name" --tag handler=/c)
	work=$(samples "$name" --tag kind=work)
	la=$(samples "$name" --lines --tag handler=/a)
	lb=$(samples "$name" --lines --tag handler=/b)
	say "cprof report: $all samples; --tag handler=/a $a, =/b $b, =/c $c, kind=work $work; --lines: $la and $lb"
	if [ -z "$all" ] || [ -z "$a" ] || [ -z "$b" ] || [ "$b" -lt 100 ]; then
		show "$tmp/tag.err"
		return 1
	fi
	ratio=$((100 * a / b))
	[ "$ratio" -ge "$RATIO_MIN" ] && [ "$ratio" -le "$RATIO_MAX" ] || return 1
	[ "$c" -eq 0 ] && [ "$work" -eq $((a + b)) ] && [ "$la" -eq "$a" ] && [ "$lb" -eq "$b" ] ||
		return 1
	# The runtime's own goroutines have no labels: a few percent at most.
	[ $((a + b)) -le "$all" ] && [ $((100 * (a + b))) -ge $((90 * all)) ] || return 1
	for bad in handler =/a ""; do
		usage_error KEY=VALUE "$CPROF" report -i "$tmp/$name.data" --tag "$bad" || return 1
	done
}

for go in go go-s go1.23 go1.23-s; do
	run_test "labels of golabels-$go split 2:1" test_split "$go" ""
done
for go in go go1.23-s; do
	run_test "labels of golabels-$go split 2:1, SAMPLE records" test_split "$go" --raw
done
run_test "cprof report --tag filters the function and line tables" test_tag
[ -e "$tmp/ratios" ] && say "ratios (name a b 100*a/b):" && show "$tmp/ratios"
totals
