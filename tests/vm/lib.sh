# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/vm/run on the host and tests/vm/guest-check in the VM, so
# both sides agree on which test programs make up the suite. POSIX sh.

# list_programs REPO [NAMES]
#
# Prints the path of every test program, one per line: each executable
# build/tests/*_test, then each executable tests/*_test.sh, in glob (C
# locale) order. NAMES, a comma-separated list of program names such as
# "proc_test,cprof_test.sh", keeps only those.
list_programs()
{
	for p in "$1"/build/tests/*_test "$1"/tests/*_test.sh; do
		[ -f "$p" ] && [ -x "$p" ] || continue
		if [ -n "${2:-}" ]; then
			case ",$2," in
			*",${p##*/},"*) ;;
			*) continue ;;
			esac
		fi
		printf '%s\n' "$p"
	done
}
