# SPDX-License-Identifier: GPL-2.0
#
# Reads what the VM wrote to the result port (carriage returns stripped) and
# judges it; tests/vm/run calls it after QEMU has exited.
#
#   -v plan=FILE     names of the programs the host expects, one per line
#   -v dmesg=FILE    where to save the guest's kernel log
#   -v shown=PATH    how to name that file in messages
#   -v mode=MODE     check, demo or bench
#
# Prints one "FAIL: ..." line per failure (each counts as one failed test
# unless it names the failed tests of a program), then last a line
#   COUNTS passed failed skipped done mode_rc warned
#
# Rules (Documentation/testing.rst): a program's "# Totals:" line gives its
# counts, xfail counting as passed and error and xpass as failed. A program
# without a Totals line, that did not finish, that is missing, or that
# exits non-zero without a failed test counts as one failed test.

function fail(msg)
{
	print "FAIL: " msg
	failed++
}

function field(s, key,    a, n, i)
{
	n = split(s, a, /[ \t]+/)
	for (i = 1; i <= n; i++)
		if (index(a[i], key ":") == 1)
			return substr(a[i], length(key) + 2) + 0
	return 0
}

BEGIN {
	nplan = 0
	while (plan != "" && (getline line < plan) > 0)
		if (line != "")
			order[++nplan] = line
	nseen = 0
	section = ""
	done = 0
	mode_rc = -1
	nwarn = 0
	current = "boot"
	passed = failed = skipped = 0
}

# Kernel log and kmemleak report: saved or collected, never parsed as TAP.
section == "dmesg" && $0 != "=== end dmesg" {
	print > dmesg
	if ($0 ~ /causalprof-vm: /) {
		current = $0
		sub(/.*causalprof-vm: /, "", current)
	}
	# What boot leaked, found before the first program, is not counted
	# (tests/vm/guest-check).
	if ($0 ~ /WARNING:|BUG:|Oops|Call Trace|Kernel panic|kmemleak: .*suspected memory leak/ &&
	    !(current == "kmemleak baseline" && $0 ~ /kmemleak: .*suspected memory leak/)) {
		if (nwarn < 20)
			warn[++nwarn] = $0 "   [last step: " current "]"
		else
			nwarn++
	}
	next
}
section == "kmemleak" && $0 != "=== end kmemleak" {
	if ($0 != "")
		leak[++nleak] = $0
	next
}

# A file sent to the host (tests/vm/run saves it): not TAP either.
section == "file" && $0 != "=== end file" { next }
/^=== begin file / { section = "file"; next }
/^=== end file$/ { section = ""; next }

/^=== begin dmesg$/ { section = "dmesg"; next }
/^=== end dmesg$/ { section = ""; next }
/^=== begin kmemleak$/ { section = "kmemleak"; next }
/^=== end kmemleak$/ { section = ""; next }

# A program killed in the middle of a line leaves the end marker on it.
section != "" && /.=== end [^ ]+ rc=[0-9]+$/ {
	match($0, /=== end [^ ]+ rc=[0-9]+$/)
	$0 = substr($0, RSTART)
}

/^=== begin / {
	section = substr($0, 11)
	if (!(section in started))
		seen[++nseen] = section
	started[section] = 1
	next
}

/^=== end / {
	name = substr($0, 9)
	sub(/ rc=.*/, "", name)
	rc = $0
	sub(/.* rc=/, "", rc)
	ended[name] = 1
	status[name] = rc
	section = ""
	next
}

/^=== error / { errors[++nerrors] = substr($0, 11); next }
/^=== rmmod rc=/ {
	rc = substr($0, 14)
	if (rc != "0")
		errors[++nerrors] = "rmmod causalprof failed (rc=" rc ")"
	next
}
/^=== mode / { mode_rc = $0; sub(/.* rc=/, "", mode_rc); next }
/^=== done$/ { done = 1; next }

section != "" && /^# Totals: / { totals[section] = $0; next }
section != "" && /^not ok / { notok[section] = notok[section] "\n" $0; next }
section != "" && /^# vm: / { notes[section] = notes[section] "; " substr($0, 7); next }

function judge(name,    t, p, f, s, msg, n, a, i)
{
	if (!(name in started)) {
		fail(name ": did not run")
		return
	}
	if (!(name in ended)) {
		fail(name ": did not finish (the VM stopped while it ran)")
		return
	}
	msg = ""
	if (name in notes)
		msg = " (" substr(notes[name], 3) ")"
	if (!(name in totals)) {
		fail(name ": no '# Totals:' line, exit status " status[name] msg)
		return
	}
	t = totals[name]
	p = field(t, "pass") + field(t, "xfail")
	f = field(t, "fail") + field(t, "error") + field(t, "xpass")
	s = field(t, "skip")
	passed += p
	skipped += s
	if (f > 0) {
		failed += f
		n = split(substr(notok[name], 2), a, "\n")
		for (i = 1; i <= n; i++)
			print "FAIL: " name ": " a[i]
		if (n < f)
			print "FAIL: " name ": " f " failed (" t ")"
	}
	if (status[name] != "0" && f == 0)
		fail(name ": exit status " status[name] " without a failed test" msg)
}

END {
	for (i = 1; i <= nplan; i++) {
		judge(order[i])
		planned[order[i]] = 1
	}
	for (i = 1; i <= nseen; i++)
		if (!(seen[i] in planned) && mode == "check")
			judge(seen[i])
	for (i = 1; i <= nerrors; i++)
		fail(errors[i])
	if (nleak > 0) {
		fail("kmemleak reports " nleak " lines, the first:")
		for (i = 1; i <= nleak && i <= 10; i++)
			print "      " leak[i]
	}
	if (nwarn > 0) {
		fail("the kernel log has warnings (see " shown "):")
		for (i = 1; i <= nwarn && i <= 20; i++)
			print "      " warn[i]
	}
	print "COUNTS", passed, failed, skipped, done, mode_rc, (nwarn > 0)
}
