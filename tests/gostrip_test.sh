#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A stripped Go program's profile is its unstripped build's (user/gopclntab.c,
# Documentation/report.rst): cprof record of tests/targets/gostrip.go, whose
# main.hotA, main.stepB (inlined in main.hotB) and main.hotC share its
# work 3:2:1, each on a line marked in the source, built by each Go
# installed (Go 1.19, and Go 1.23 when there) with its symbols and DWARF
# and without (-ldflags='-s -w': named from the runtime's table only). For
# each Go, the two recordings':
# - cprof report: hotA, stepB and hotC the first three rows of both, in
#   that order, their parts of the three 3:2:1 within TOL points, and each
#   one's flat % (hotB's cum %) the same in both within TOL points;
# - cprof report --lines: each one's heaviest line its marked one, the same
#   file:line in both, with the same flat % within TOL points;
# - cprof report --pprof, read by that Go's `go tool pprof -symbolize=none`
#   (the profile's own names: without it pprof names a stripped Go program
#   from the file): every Go function (of a location in the program's
#   mapping, by pprof -raw) in the unstripped one's -top, which keeps the
#   rows of cum >= 0.5 %, is in the stripped one's -top -nodefraction=0,
#   and no row of the latter is an unnamed address of the program.
# Prints TAP like the kselftest harness.

set -u

: "${CPROF:?CPROF is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

targets=$CAUSALPROF_REPO/build/tests/targets
src=$CAUSALPROF_REPO/tests/targets/gostrip.go
. "$CAUSALPROF_REPO/tests/tap.sh"
. "$CAUSALPROF_REPO/tests/toptable.sh"
export HOME=$tmp/home GOCACHE=$tmp/home/go-cache GOTOOLCHAIN=local
mkdir -p "$HOME"

# How long the target runs, ms.
MS=${GOSTRIP_MS:-4000}
# Points by which a share may differ between the two builds, and a part of
# the three from 3:2:1's. Measured under TCG, 2 vCPUs, cpu-clock at 1000
# Hz, 4 s (4007 to 4100 samples a recording), seven runs on 6.1 and one on
# 6.12, both Gos: stripped less unstripped, rms 0.81 points over the four
# shares (64 pairs), at most 2.45 (Go 1.19's hotA, 49.44 and 46.99 %); the
# parts at most 1.7 points from 50:33.3:16.7 (Go 1.23 stripped, stepB's
# 31.6), rms 0.46. The binomial spread of a 48 % share of 4050 samples is
# 0.8 points, of the difference of two 1.1. Allowed: 4, some 3.5 sd of
# the difference.
TOL=4
HOT="main.hotA main.stepB main.hotC"

# go_cmd GO: the go command that built gostrip-GO (tests/Makefile's GO123)
go_cmd()
{
	case $1 in
	go1.23) echo /usr/lib/go-1.23/bin/go ;;
	*) echo go ;;
	esac
}

# near A B: |A - B| <= TOL
near()
{
	awk -v a="$1" -v b="$2" -v n=$TOL 'BEGIN { d = a - b; exit !(d <= n && -d <= n) }'
}

# recorded GO [record]: 0 when both builds of that Go, gostrip-GO and
# gostrip-GO-s, have their recording $tmp/BUILD.data (with "record": made
# now); 4 (a skip) when they were not built; else 1
recorded()
{
	for b in "gostrip-$1" "gostrip-$1-s"; do
		if [ ! -x "$targets/$b" ]; then
			reason="no $targets/$b (that go not installed at build time)"
			return 4
		fi
		if [ "${2:-}" = record ]; then
			record "$b" "$targets/$b" "$MS" || return 1
		fi
		[ -s "$tmp/$b.data" ] || { say "no recording of $b from the first test"; return 1; }
	done
}

# part A B C: A's part of A + B + C, in percent
part()
{
	awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { printf "%.1f", (a + b + c > 0 ? 100 * a / (a + b + c) : 0) }'
}

# The top table: the hot functions first, in the same order, split 3:2:1,
# and the same shares in both builds.
test_top()
{
	go=$1
	recorded "$go" record || return
	status=0
	for b in "gostrip-$go" "gostrip-$go-s"; do
		report "$b" "$b.top" || return 1
		show "$tmp/$b.top"
		first=$(rows "$tmp/$b.top" | head -n 3 | awk '{ print $2 }' | paste -s -d ' ')
		if [ "$first" != "$HOT" ]; then
			say "$b: the first functions are $first, not $HOT"
			status=1
		fi
		set -- $(for f in $HOT; do share_of "$tmp/$b.top" "$f"; echo; done)
		pa=$(part "$1" "$2" "$3") pb=$(part "$2" "$1" "$3") pc=$(part "$3" "$1" "$2")
		say "$b: $HOT split $pa:$pb:$pc % (3:2:1 is 50:33.3:16.7)"
		near "$pa" 50 && near "$pb" 33.3 && near "$pc" 16.7 || status=1
	done
	for f in $HOT main.hotB; do
		if [ "$f" = main.hotB ]; then
			u=$(cum_of "$tmp/gostrip-$go.top" "$f")
			s=$(cum_of "$tmp/gostrip-$go-s.top" "$f")
		else
			u=$(share_of "$tmp/gostrip-$go.top" "$f")
			s=$(share_of "$tmp/gostrip-$go-s.top" "$f")
		fi
		say "$f: $u% unstripped, $s% stripped"
		echo "$go top $f $u $s" >> "$tmp/shares"
		near "$u" "$s" || status=1
	done
	return $status
}

# hottest FILE FUNC: "file:line flat%" of the heaviest row of FUNC in a
# --lines table
hottest()
{
	rows "$1" | awk -v f="$2" '$2 == f { print $3, $1; exit }'
}

# --lines: each hot function's heaviest line is its marked one, in both.
test_lines()
{
	go=$1
	recorded "$go" || return
	for b in "gostrip-$go" "gostrip-$go-s"; do
		report "$b" "$b.lines" --lines || return 1
		show "$tmp/$b.lines"
	done
	status=0
	for f in main.hotA:a main.stepB:b main.hotC:c; do
		want=$(basename "$src"):$(line_of "$src" "/* hot_${f#*:} line */")
		f=${f%:*}
		set -- $(hottest "$tmp/gostrip-$go.lines" "$f") $(hottest "$tmp/gostrip-$go-s.lines" "$f")
		say "$f: at ${1:-} ${2:-} unstripped, at ${3:-} ${4:-} stripped; marked $want"
		echo "$go line $f ${2:-} ${4:-}" >> "$tmp/shares"
		if [ $# -ne 4 ] || [ "$1" != "$3" ] || [ "${1##*/}" != "$want" ]; then
			status=1
			continue
		fi
		near "${2%\%}" "${4%\%}" || status=1
	done
	return $status
}

# go_funcs GO NAME: the functions of the Go program's own locations in
# $tmp/NAME.goraw (pprof -raw: "  ID: ADDR M=MAPPING FUNC FILE:LINE s=N",
# inlined ones on lines of their own after it; "ID: START/LIMIT/OFFSET
# FILE ..." under Mappings)
go_funcs()
{
	awk -v prog="/gostrip-$1" '
		/^Locations/ { where = "loc"; next }
		/^Mappings/ { where = "map"; next }
		where == "loc" && $1 ~ /:$/ { m = substr($3, 3); first = ($3 ~ /^M=/ ? 4 : 3) }
		where == "loc" && $1 !~ /:$/ { first = 1 }
		where == "loc" && NF >= first + 2 {
			f = $first; for (i = first + 1; i <= NF - 2; i++) f = f " " $i
			funcs[m] = funcs[m] f "\n"
		}
		where == "map" && substr($3, length($3) - length(prog) + 1) == prog {
			ours[substr($1, 1, length($1) - 1)] = 1
		}
		END { for (m in ours) printf "%s", funcs[m] }' "$tmp/$2.goraw" | sort -u
}

# names FILE: the names of the rows of a pprof -top, sorted, without the
# " (inline)" or " (partial-inline)" that pprof adds to an inlined function
names()
{
	rows "$1" | cut -d' ' -f2- | sed 's/ (\(partial-\)\{0,1\}inline)$//' | sort -u
}

# go tool pprof: the stripped build names every Go function the unstripped
# one names, and leaves no address of its own unnamed.
test_pprof()
{
	go=$1
	recorded "$go" || return
	GO=$(go_cmd "$go")
	command -v "$GO" > /dev/null || { reason="no $GO"; return 4; }
	u=gostrip-$go s=gostrip-$go-s
	for b in "$u" "$s"; do
		report "$b" "$b.pb.out" --pprof "$tmp/$b.pb.gz" || return 1
	done
	go_pprof "$u" top -symbolize=none && go_pprof "$u" raw -symbolize=none &&
		go_pprof "$s" top -symbolize=none -nodefraction=0 || return 1
	show "$tmp/$u.gotop"
	head -n 30 "$tmp/$s.gotop" | show /dev/stdin
	go_funcs "$go" "$u" > "$tmp/$u.funcs"
	names "$tmp/$u.gotop" | comm -12 - "$tmp/$u.funcs" > "$tmp/$u.named"
	names "$tmp/$s.gotop" | comm -23 "$tmp/$u.named" - > "$tmp/$s.missing"
	say "$(wc -l < "$tmp/$u.named") Go functions in $u's -top, of $(wc -l < "$tmp/$u.funcs") in its profile"
	status=0
	# (main.main is seldom there: its callees are leaves without a frame,
	# whose caller a frame-pointer walk does not see.)
	for f in $HOT main.hotB runtime.main; do
		grep -qxF "$f" "$tmp/$u.named" || { say "$u's -top has no $f"; status=1; }
	done
	if [ -s "$tmp/$s.missing" ]; then
		say "not in $s's -top:"
		show "$tmp/$s.missing"
		status=1
	fi
	rows "$tmp/$s.gotop" | grep -F "[$s]" > "$tmp/$s.unnamed"
	if [ -s "$tmp/$s.unnamed" ]; then
		say "unnamed addresses of $s:"
		show "$tmp/$s.unnamed"
		status=1
	fi
	return $status
}

echo "TAP version 13"
echo "1..6"
for go in go go1.23; do
	run_test "gostrip-$go stripped and not: the same top functions and shares" test_top $go
	run_test "gostrip-$go stripped and not: the same hot lines, the marked ones" test_lines $go
	run_test "gostrip-$go stripped and not: go tool pprof names the same Go functions" \
		test_pprof $go
done
[ -e "$tmp/shares" ] && say "shares (go view function unstripped% stripped%):" && show "$tmp/shares"
totals
