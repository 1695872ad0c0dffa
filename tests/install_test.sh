#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall, staged with DESTDIR, without the module
# (it runs on the host too: tests/install_test.sh after make): the tree
# holds the module for the kernel it was built for in updates/, cprof, its
# man page, libcprof-coz.so where cprof looks for it and cprof.h, each a copy
# of what make built, and nothing else; no depmod runs on a staged tree;
# uninstall removes every file; a module built for another kernel is
# refused and nothing installed; dkms-src stages what DKMS builds from:
# every file the module's build reads (dkms_needs), found independently
# of the Makefile's list.
# Prints TAP like the kselftest harness.

set -u

repo=${CAUSALPROF_REPO:-$(cd "$(dirname "$0")/.." && pwd -P)}
. "$repo/tests/tap.sh"

ko=$repo/kmod/causalprof.ko
kver=$(modinfo -F vermagic "$ko" 2> /dev/null | cut -d' ' -f1)
ver=$(sed -n 's/^#define CAUSALPROF_VERSION[[:space:]]*"\(.*\)"/\1/p' "$repo/include/causalprof/tables.h")
root=$tmp/root

# make_in TARGET ARGS...: make -C the repo, its output in $tmp/make.log
make_in()
{
	make -s -C "$repo" "$@" > "$tmp/make.log" 2>&1
}

# The files under $1, relative, sorted, with their modes.
tree()
{
	(cd "$1" && find . -type f -printf '%m %P\n' | LC_ALL=C sort)
}

test_install()
{
	if ! make_in install DESTDIR="$root" PREFIX=/usr KVER="$kver"; then
		say "make install failed:"
		show "$tmp/make.log"
		return 1
	fi
	tree "$root" > "$tmp/tree"
	cat > "$tmp/want" <<-END
	644 lib/modules/$kver/updates/causalprof.ko
	644 usr/include/cprof.h
	644 usr/lib/cprof/libcprof-coz.so
	644 usr/share/man/man1/cprof.1
	755 usr/bin/cprof
	END
	LC_ALL=C sort -k2 "$tmp/want" -o "$tmp/want"
	LC_ALL=C sort -k2 "$tmp/tree" -o "$tmp/tree"
	if ! cmp -s "$tmp/want" "$tmp/tree"; then
		say "installed tree differs from what was expected (- expected, + found):"
		diff "$tmp/want" "$tmp/tree" | sed -n 's/^\([<>]\)/#   \1/p'
		return 1
	fi
	for pair in "kmod/causalprof.ko lib/modules/$kver/updates/causalprof.ko" \
		    "user/cprof usr/bin/cprof" "user/libcprof-coz.so usr/lib/cprof/libcprof-coz.so" \
		    "include/cprof.h usr/include/cprof.h" "Documentation/cprof.1 usr/share/man/man1/cprof.1"; do
		set -- $pair
		if ! cmp -s "$repo/$1" "$root/$2"; then
			say "$2 is not a copy of $1"
			return 1
		fi
	done
	if [ -e "$root/lib/modules/$kver/modules.dep" ]; then
		say "depmod ran on the staged tree"
		return 1
	fi
	# The module autoloads by its generic netlink family.
	if ! modinfo -F alias "$root/lib/modules/$kver/updates/causalprof.ko" |
	     grep -qx 'net-pf-16-proto-16-family-causalprof'; then
		say "the installed module has no alias for the causalprof family"
		return 1
	fi
	return 0
}

test_installed_cprof_runs()
{
	out=$("$root/usr/bin/cprof" --version 2>&1)
	if [ "$out" != "cprof $ver" ]; then
		say "installed cprof --version printed '$out', not 'cprof $ver'"
		return 1
	fi
	return 0
}

test_uninstall()
{
	if ! make_in uninstall DESTDIR="$root" PREFIX=/usr KVER="$kver"; then
		say "make uninstall failed:"
		show "$tmp/make.log"
		return 1
	fi
	tree "$root" > "$tmp/left"
	if [ -s "$tmp/left" ]; then
		say "make uninstall left files:"
		show "$tmp/left"
		return 1
	fi
	return 0
}

test_other_kernel_refused()
{
	if make_in install DESTDIR="$tmp/other" KVER=6.0.0-not-this-one; then
		say "make install of a module built for $kver into 6.0.0-not-this-one succeeded"
		return 1
	fi
	if ! grep -q "built for '$kver', not KVER=6.0.0-not-this-one" "$tmp/make.log"; then
		say "make install failed without saying why:"
		show "$tmp/make.log"
		return 1
	fi
	if [ -e "$tmp/other" ]; then
		say "make install refused but installed something:"
		find "$tmp/other" -type f | sed 's/^/#   /'
		return 1
	fi
	return 0
}

# What the module's build reads, found without the Makefile's DKMS_FILES:
# the top-level Makefile and Kbuild, the scripts the Makefile runs before
# and after the module, every file of kmod/ that is the project's (git's
# list; without git, what is there but build products), so every source
# and script kmod/Kbuild names, and the headers under include/ that kmod/
# includes.
dkms_needs()
{
	echo Makefile
	echo Kbuild
	sed -n '/^override KVER/p; /^module:/,/^$/p' "$repo/Makefile" |
		grep -o 'scripts/[A-Za-z0-9_-]*'
	if ! git -C "$repo" ls-files --error-unmatch kmod/Kbuild > /dev/null 2>&1 ||
	   ! git -C "$repo" ls-files kmod; then
		(cd "$repo" && find kmod -maxdepth 1 -type f ! -name '.*' ! -name '*.o' \
			! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' ! -name '*.pay' \
			! -name modules.order ! -name Module.symvers)
	fi
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' \
		"$repo"/kmod/*.[ch] | sort -u | while read -r h; do
		for d in include/uapi include; do
			if [ -f "$repo/$d/$h" ]; then
				echo "$d/$h"
				break
			fi
		done
	done
}

test_dkms_src()
{
	src=/usr/src/causalprof-$ver
	if ! make_in dkms-src DESTDIR="$tmp/dkms"; then
		say "make dkms-src failed:"
		show "$tmp/make.log"
		return 1
	fi
	conf=$tmp/dkms$src/dkms.conf
	if ! grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf"; then
		say "dkms.conf does not give version $ver:"
		show "$conf"
		return 1
	fi
	dkms_needs > "$tmp/needs" || return 1
	while read -r f; do
		if ! cmp -s "$repo/$f" "$tmp/dkms$src/$f"; then
			say "$src/$f is not a copy of $f (DKMS_FILES in Makefile: dkms_needs here)"
			return 1
		fi
	done < "$tmp/needs"
	if [ -n "$(find "$tmp/dkms$src" -name '*.mod.c' -o -name '*.o' -o -name '*.ko')" ]; then
		say "dkms-src copied build products"
		return 1
	fi
	# kmod/ holds its own files and nothing a build left there.
	grep '^kmod/' "$tmp/needs" | LC_ALL=C sort > "$tmp/kmod-want"
	(cd "$tmp/dkms$src" && find kmod -type f) | LC_ALL=C sort > "$tmp/kmod-got"
	if ! cmp -s "$tmp/kmod-want" "$tmp/kmod-got"; then
		say "dkms-src's kmod/ differs from the module's files (- expected, + found):"
		diff "$tmp/kmod-want" "$tmp/kmod-got" | sed -n 's/^\([<>]\)/#   \1/p'
		return 1
	fi
	return 0
}

# One list of packages (scripts/install-deps --list), which the README's
# real-machine quick start uses; make names the package of what its build
# misses (here every library, pkg-config finding none) and builds nothing.
test_build_deps()
{
	local list runtime p

	list=$("$repo/scripts/install-deps" --list) &&
		runtime=$("$repo/scripts/install-deps" --list --runtime) || {
		say "scripts/install-deps --list failed"
		return 1
	}
	for p in libiberty-dev libnl-genl-3-dev libdw-dev protobuf-c-compiler; do
		if ! printf '%s\n' "$runtime" | grep -qx "$p"; then
			say "--list --runtime misses $p"
			return 1
		fi
	done
	for p in $runtime; do
		if ! printf '%s\n' "$list" | grep -qx "$p"; then
			say "--list misses the runtime package $p"
			return 1
		fi
	done
	if ! grep -q 'install-deps --list --runtime' "$repo/README.md"; then
		say "README.md's quick start does not use scripts/install-deps --list --runtime"
		return 1
	fi
	if PKG_CONFIG=/bin/false make -s -C "$repo" cprof > "$tmp/deps.log" 2>&1; then
		say "make cprof succeeded without its libraries"
		return 1
	fi
	for p in libnl-genl-3-dev libprotobuf-c-dev zlib1g-dev libdw-dev libelf-dev; do
		if ! grep -q "missing.* $p" "$tmp/deps.log"; then
			say "make did not name $p:"
			show "$tmp/deps.log"
			return 1
		fi
	done
	if grep -q 'error:' "$tmp/deps.log"; then
		say "make ran the compiler anyway:"
		show "$tmp/deps.log"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..6"
if [ -z "$kver" ] || [ ! -x "$repo/user/cprof" ]; then
	reason="build first (make)"
	for t in install installed_cprof_runs uninstall other_kernel_refused dkms_src build_deps; do
		n=$((n + 1)) skipped=$((skipped + 1))
		echo "ok $n $t # SKIP $reason"
	done
	totals
	exit
fi
run_test "make install DESTDIR= stages the module, cprof, man page, library, header" test_install
run_test "the staged cprof runs" test_installed_cprof_runs
run_test "make uninstall DESTDIR= removes every file" test_uninstall
run_test "a module built for another kernel is refused" test_other_kernel_refused
run_test "make dkms-src stages the module's sources and dkms.conf" test_dkms_src
run_test "one package list; make names a missing build dependency's package" test_build_deps
totals
