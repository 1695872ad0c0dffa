#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install on the guest (its root is an overlay: the install vanishes
# with the VM), then the first cprof command loads the module by itself:
# with causalprof unloaded, `cprof status` of the installed cprof succeeds
# and the module that answers is the installed one, found by modprobe
# through the generic netlink family's alias. After make uninstall, nothing
# loads it: `cprof status` says it is not loaded. Leaves the repo's module
# loaded, as the harness wants. Prints TAP like the kselftest harness.
#
# The kernel's module directory is replaced, for the test, by a bind mount
# of a copy with nothing but its modules.builtin* and modules.order: depmod
# would otherwise read all of Debian's 400 MB of modules over 9p, twice
# (a minute and a half under TCG). causalprof depends on no other module.

set -u

: "${CAUSALPROF_KO:?CAUSALPROF_KO is not set: run under tests/vm/run}"
: "${CAUSALPROF_REPO:?CAUSALPROF_REPO is not set: run under tests/vm/run}"

repo=$CAUSALPROF_REPO
. "$repo/tests/tap.sh"
kver=$(uname -r)
prefix=$tmp/prefix
installed=/lib/modules/$kver/updates/causalprof.ko

loaded()
{
	grep -q '^causalprof ' /proc/modules
}

unload()
{
	! loaded || rmmod causalprof
}

test_autoload()
{
	unload || { say "cannot unload causalprof"; return 1; }
	if ! make -s -C "$repo" install KVER="$kver" PREFIX="$prefix" > "$tmp/make.log" 2>&1; then
		say "make install failed:"
		show "$tmp/make.log"
		return 1
	fi
	if [ "$(modinfo -n causalprof 2>&1)" != "$installed" ]; then
		say "modinfo finds '$(modinfo -n causalprof 2>&1)', not $installed (depmod?)"
		return 1
	fi
	if loaded; then
		say "make install loaded the module"
		return 1
	fi
	"$prefix/bin/cprof" status > "$tmp/status" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		say "cprof status exited $rc:"
		show "$tmp/status"
		return 1
	fi
	if ! loaded; then
		say "cprof status succeeded but causalprof is not loaded"
		return 1
	fi
	if ! grep -q '^causalprof ' "$tmp/status"; then
		say "cprof status printed:"
		show "$tmp/status"
		return 1
	fi
	# The module that answered is the installed file.
	want=$(modinfo -F srcversion "$installed")
	got=$(cat /sys/module/causalprof/srcversion)
	if [ "$want" != "$got" ]; then
		say "loaded srcversion $got, installed $want"
		return 1
	fi
	return 0
}

test_uninstalled()
{
	unload || { say "cannot unload causalprof"; return 1; }
	if ! make -s -C "$repo" uninstall KVER="$kver" PREFIX="$prefix" > "$tmp/make.log" 2>&1; then
		say "make uninstall failed:"
		show "$tmp/make.log"
		return 1
	fi
	if [ -e "$installed" ] || [ -e "$prefix/bin/cprof" ]; then
		say "make uninstall left $installed or $prefix/bin/cprof"
		return 1
	fi
	if modinfo causalprof > /dev/null 2>&1; then
		say "modinfo still finds causalprof after uninstall (depmod?)"
		return 1
	fi
	"$CPROF" status > "$tmp/status" 2>&1
	rc=$?
	if [ "$rc" -ne 1 ] || ! grep -q 'not loaded' "$tmp/status" || loaded; then
		say "cprof status with nothing installed exited $rc:"
		show "$tmp/status"
		return 1
	fi
	return 0
}

echo "TAP version 13"
echo "1..2"
moddir=/lib/modules/$kver
mkdir -p "$tmp/modules"
if [ -d "$moddir" ]; then
	cp "$moddir"/modules.builtin* "$moddir/modules.order" "$tmp/modules/"
else
	# A kernel booted from elsewhere (make check-debug's) has no module
	# directory, nor modules: an empty one on the guest's overlay.
	mkdir -p "$moddir"
	touch "$tmp/modules/modules.builtin" "$tmp/modules/modules.order"
fi
if ! mount --bind "$tmp/modules" "$moddir"; then
	echo "# cannot bind-mount a module directory over $moddir"
	exit 1
fi
run_test "the first cprof command loads the installed module" test_autoload
run_test "after make uninstall nothing loads it" test_uninstalled
# Whatever happened, leave the repo's module loaded and nothing installed.
unload 2> /dev/null
umount "$moddir" || echo "# cannot unmount $moddir"
insmod "$CAUSALPROF_KO" || echo "# insmod $CAUSALPROF_KO failed"
totals
