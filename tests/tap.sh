# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the shell tests (tests/*_test.sh): a scratch directory removed
# at exit with the background job $bg, and TAP output in the kselftest
# format the VM harness counts.

tmp=$(mktemp -d)
bg=
trap 'cleanup' EXIT

cleanup()
{
	[ -n "$bg" ] && kill -KILL "$bg" 2> /dev/null && wait "$bg" 2> /dev/null
	rm -rf "$tmp"
}

n=0 passed=0 failed=0 skipped=0

say()
{
	printf '# %s\n' "$@"
}

# Indented copy of a file, for diagnostics.
show()
{
	sed 's/^/#   /' "$1"
}

# line_of FILE MARKER: the number of the first line of FILE that has MARKER
# (a test's target marks its lines with comments)
line_of()
{
	grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

# usage_error PATTERN CMD [ARG...]: CMD exits 2 (a usage error) with
# PATTERN (grep) on its stderr; else says what it did and returns 1.
usage_error()
{
	pattern=$1
	shift
	"$@" > /dev/null 2> "$tmp/usage.err"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q -- "$pattern" "$tmp/usage.err"; then
		say "$*: exit $rc (want 2 and '$pattern'), stderr:"
		show "$tmp/usage.err"
		return 1
	fi
}

# run_test NAME FUNCTION [ARG...]: the function, run with the ARGs, returns
# 0 (pass), 1 (fail) or 4 (skip, the reason in $reason).
run_test()
{
	tap_name=$1
	shift
	reason=
	n=$((n + 1))
	"$@"
	case $? in
	0) passed=$((passed + 1)); echo "ok $n $tap_name" ;;
	4) skipped=$((skipped + 1)); echo "ok $n $tap_name # SKIP $reason" ;;
	*) failed=$((failed + 1)); echo "not ok $n $tap_name" ;;
	esac
}

# The closing line; the exit status says whether everything passed.
totals()
{
	echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
	[ "$failed" -eq 0 ]
}
