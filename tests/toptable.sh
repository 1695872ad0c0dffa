# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the shell tests that read top tables, cprof report's and `go
# tool pprof -top`'s (report_test.sh, symbols_test.sh, gostrip_test.sh),
# after tap.sh: a recording at cpu-clock, its report, go tool pprof of it,
# and the rows and shares of a table.

# The sampling rate of record, Hz (perf's, where a test compares them).
FREQ=1000

# record NAME ARGS...: cprof record -e cpu-clock of ARGS into $tmp/NAME.data
record()
{
	name=$1
	shift
	timeout 200 "$CPROF" record -e cpu-clock -F $FREQ -o "$tmp/$name.data" -- "$@" \
		> "$tmp/$name.rec.out" 2> "$tmp/$name.rec.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "cprof record $* exited $rc; stderr:"
		show "$tmp/$name.rec.err"
		return 1
	fi
	say "$(grep 'recorded' "$tmp/$name.rec.err")"
	return 0
}

# run_clean OUT CMD [ARG...]: CMD's output into $tmp/OUT, its stderr into
# $tmp/OUT.err; fails, saying so, on a non-zero status or anything on
# stderr (a warning)
run_clean()
{
	out=$1
	shift
	"$@" > "$tmp/$out" 2> "$tmp/$out.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/$out.err" ]; then
		say "$*: exit $rc; stderr:"
		show "$tmp/$out.err"
		return 1
	fi
	return 0
}

# report NAME OUT ARGS...: cprof report ARGS of $tmp/NAME.data into $tmp/OUT,
# by run_clean
report()
{
	name=$1 out=$2
	shift 2
	run_clean "$out" "$CPROF" report -i "$tmp/$name.data" "$@"
}

# go_pprof NAME VIEW ARGS...: go tool pprof -VIEW ARGS (the go command $GO,
# default go) of $tmp/NAME.pb.gz into $tmp/NAME.goVIEW, by run_clean
go_pprof()
{
	name=$1 view=$2
	shift 2
	run_clean "$name.go$view" "${GO:-go}" tool pprof "-$view" "$@" "$tmp/$name.pb.gz"
}

# rows FILE: "flat% name" of the rows of a top table (cprof's or pprof's)
rows()
{
	awk '/^ *flat  *flat%/ { on = 1; next }
	     on && NF >= 6 && $1 !~ /^#/ {
		name = $6; for (i = 7; i <= NF; i++) name = name " " $i
		print $2, name
	     }' "$1"
}

# share_of FILE NAME: the flat % of the row named NAME exactly
share_of()
{
	rows "$1" | while read -r pct name; do
		[ "$name" = "$2" ] && echo "${pct%\%}"
	done | awk '{ s += $1 } END { printf "%.2f", s }'
}

# cum_of FILE NAME: the cum % of the row named NAME exactly (inlined
# callees included: perf counts them in their caller's symbol)
cum_of()
{
	awk -v name="$2" '/^ *flat  *flat%/ { on = 1; next }
	     on && NF >= 6 && $1 !~ /^#/ {
		n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		if (n == name) { sub("%", "", $5); print $5 }
	     }' "$1" | awk '{ s += $1 } END { printf "%.2f", s }'
}
