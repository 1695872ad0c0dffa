# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the causal profiling shell tests (causal_record_test.sh,
# causal_truth_test.sh), after tap.sh: a recording with its causal report.

# record NAME ARGS...: cprof record --causal ARGS into $tmp/NAME.data, its
# report --causal into $tmp/NAME.txt; fails on a non-zero exit of either,
# or on a recording that takes more than RECORD_TIMEOUT seconds (240).
record()
{
	name=$1
	shift
	timeout "${RECORD_TIMEOUT:-240}" "$CPROF" record --causal -o "$tmp/$name.data" "$@" \
		> "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "cprof record --causal $* exited $rc; stderr:"
		show "$tmp/$name.err"
		return 1
	fi
	if ! "$CPROF" report --causal --top 20 -i "$tmp/$name.data" > "$tmp/$name.txt" \
			2> "$tmp/$name.rerr"; then
		say "cprof report --causal failed:"
		show "$tmp/$name.rerr"
		return 1
	fi
	return 0
}
