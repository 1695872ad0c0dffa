# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the causal profiling shell tests (causal_record_test.sh,
# causal_truth_test.sh, go_truth_test.sh), after tap.sh: a recording with
# its causal report, and the truths' and the report's numbers.

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

# rate BIN ARGS...: the events (rounds) per second of an unprofiled run.
rate()
{
	"$@" | sed -n 's/.* rate \([0-9.]*\)$/\1/p'
}

# truth BASE_RATE RATE: program speedup in time per event, percent.
truth()
{
	awk -v b="$1" -v k="$2" 'BEGIN { if (b > 0 && k > 0) printf "%.1f", 100 * (1 - b / k); else print "none" }'
}

# span NAME FILE:LINE LO HI: the mean of the report's rows of that line
# from LO to HI %, weighted by experiments, or none.
span()
{
	awk -v want="$2" -v lo="$3" -v hi="$4" '
		/^ +[-+][0-9.]+ %  / { on = index($0, want " ") > 0; next }
		on && /^ +[0-9]+ %/ {
			v = $3; sub(/^\+/, "", v)
			if ($1 >= lo && $1 <= hi) { s += v * $NF; n += $NF }
		}
		END { if (n) printf "%.1f\n", s / n; else print "none" }' "$tmp/$1.txt"
}

# predicted NAME FILE:LINE AT: the report's program speedup at AT % of
# that line (its rows within 5 points, weighted by experiments), or none.
predicted()
{
	span "$1" "$2" $(($3 - 5)) $(($3 + 5))
}

# close_to NAME FILE:LINE AT TRUTH: the prediction at AT % is within tol
# points of TRUTH.
close_to()
{
	p=$(predicted "$1" "$2" "$3")
	say "$1: $2 at $3 %: predicted $p %, truth $4 %"
	if ! awk -v p="$p" -v t="$4" -v tol="$tol" \
			'BEGIN { exit !(p != "none" && t != "none" && p - t <= tol && t - p <= tol) }'; then
		say "more than $tol points off; the report:"
		show "$tmp/$1.txt"
		return 1
	fi
}
