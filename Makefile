# SPDX-License-Identifier: GPL-2.0
#
# make            build kmod/causalprof.ko and user/cprof
# make examples   build examples/ into build/examples/ (make tests does too)
# make check      build everything, boot the test VM, run the whole suite
#                 (make check KVER=6.12: on the newest 6.12 kernel installed)
# make check-debug   the suite on a debug kernel (KASAN, lockdep, kmemleak...)
#                 built from Debian's 6.1 source into build/debug-kernel
#                 (tests/debug-kernel, once); TESTS="a_test b_test": only those
# make demo       build, boot the VM, load the module and show it working
# make bench      benchmarks (in the VM), results in bench/RESULTS.md;
#                 BENCH=sampling,report runs only those bench/*.sh
# make fuzz       fuzz the recording reader and cprof report (FUZZ_TIME s each)
# make deps       install the Debian packages the project needs (root)
# make install    install what make built: the module for KVER, cprof, its
#                 man page, libcprof-coz.so and cprof.h (PREFIX, DESTDIR)
# make uninstall  remove them again
# make dkms-install   register the module's source with DKMS, which builds
#                 and installs it for every kernel, now and at each upgrade
# make check-dkms     a DKMS build against KVER's headers, in build/ only
#
# KVER is the kernel the module is built for and the test VM boots: a
# release installed in /lib/modules, or a series (KVER=6.12: its newest
# installed release); by default the newest Debian 6.1 kernel installed
# (scripts/kver). KDIR is its build tree. Supported: 6.1 to 6.12 (README.md).

override KVER := $(or $(shell scripts/kver $(KVER)),$(KVER))
KDIR ?= /lib/modules/$(KVER)/build
export KVER KDIR

all: module cprof

module:
	@scripts/check-build-deps module $(KDIR) $(KVER)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	scripts/check-module kmod/causalprof.ko

module-w1:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

module-sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

cprof:
	@scripts/check-build-deps cprof
	$(MAKE) -C user

examples:
	$(MAKE) -C examples

tests: all examples
	$(MAKE) -C tests

deps:
	scripts/install-deps

check: deps
	$(MAKE) tests
	tests/vm/check

# The Go HTTP/2 example in a boot of its own, on single-threaded TCG
# (Documentation/testing.rst, "Uprobes in Go programs under TCG").
demo: deps
	$(MAKE) tests
	tests/vm/run demo
	VM_ACCEL=tcg,thread=single tests/vm/run demo go-http2

bench: deps
	$(MAKE) tests
	$(MAKE) -C bench
	BENCH=$(BENCH) bench/run

# Installing: the module into the kernel's updates/ directory (it then
# wins over any in-tree copy), found by modprobe after depmod; the
# generic netlink family alias in it makes the first cprof command load it.
# cprof finds libcprof-coz.so in ../lib/cprof from where it lies.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
COZLIBDIR ?= $(PREFIX)/lib/cprof
MODDIR ?= /lib/modules/$(KVER)/updates
DEPMOD ?= depmod
VERSION := $(shell sed -n 's/^\#define CAUSALPROF_VERSION[[:space:]]*"\(.*\)"/\1/p' include/causalprof/tables.h)
DKMS_SRC ?= /usr/src/causalprof-$(VERSION)
# What DKMS needs to build the module: the kbuild files, everything in
# kmod/ but what a build leaves there (so that a file kmod/Kbuild starts
# to use is never left out), the headers it includes from include/, and
# the scripts the module target runs. tests/install_test.sh checks it.
DKMS_FILES := Makefile Kbuild scripts/kver scripts/check-module scripts/check-build-deps \
	$(filter-out %.o %.ko %.mod %.mod.c %.pay %.dwo kmod/modules.order kmod/Module.symvers, \
		$(wildcard kmod/*)) \
	$(wildcard include/uapi/linux/*.h include/causalprof/*.h)

install:
	@test -f kmod/causalprof.ko && test -x user/cprof && test -f user/libcprof-coz.so || { \
		echo "install: build first: make (KVER=$(KVER))" >&2; exit 1; }
	@magic=$$(modinfo -F vermagic kmod/causalprof.ko | cut -d' ' -f1); \
	if [ "$$magic" != "$(KVER)" ]; then \
		echo "install: kmod/causalprof.ko is built for '$$magic', not KVER=$(KVER):" \
		     "make KVER=$(KVER)" >&2; \
		exit 1; \
	fi
	install -D -m 644 kmod/causalprof.ko $(DESTDIR)$(MODDIR)/causalprof.ko
	install -D -m 755 user/cprof $(DESTDIR)$(BINDIR)/cprof
	install -D -m 644 user/libcprof-coz.so $(DESTDIR)$(COZLIBDIR)/libcprof-coz.so
	install -D -m 644 include/cprof.h $(DESTDIR)$(INCLUDEDIR)/cprof.h
	install -D -m 644 Documentation/cprof.1 $(DESTDIR)$(MANDIR)/man1/cprof.1
ifeq ($(DESTDIR),)
	$(DEPMOD) -a $(KVER)
endif

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/causalprof.ko $(DESTDIR)$(BINDIR)/cprof \
		$(DESTDIR)$(COZLIBDIR)/libcprof-coz.so $(DESTDIR)$(INCLUDEDIR)/cprof.h \
		$(DESTDIR)$(MANDIR)/man1/cprof.1
	-rmdir $(DESTDIR)$(COZLIBDIR) 2> /dev/null
ifeq ($(DESTDIR),)
	$(DEPMOD) -a $(KVER)
endif

# dkms.conf with its version; the sources copied to DKMS_SRC (DESTDIR
# stages them for a package), then added, built and installed by dkms.
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	cp --parents $(DKMS_FILES) $(DESTDIR)$(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRC)/dkms.conf

dkms-install: dkms-src
	dkms add causalprof/$(VERSION)
	dkms build causalprof/$(VERSION)
	dkms install causalprof/$(VERSION)

dkms-uninstall:
	dkms remove causalprof/$(VERSION) --all
	rm -rf $(DKMS_SRC)

check-dkms:
	tests/dkms-build $(KVER)

# The module and the tests are built against the debug kernel's tree (its
# release is KVER); the VM boots its bzImage, with longer timeouts: KASAN
# and lockdep under TCG run programs several times slower. no5lvl: with
# QEMU's 5-level paging, KASAN reports a wild access in the first
# interrupt at boot (Documentation/testing.rst, The debug kernel).
check-debug: deps
	tests/debug-kernel build
	$(MAKE) tests KVER=$$(tests/debug-kernel release) KDIR=$$(tests/debug-kernel kdir)
	VM_KERNEL=$$(tests/debug-kernel image) KVER=$$(tests/debug-kernel release) \
		VM_APPEND="no5lvl $${VM_APPEND:-}" \
		TEST_TIMEOUT=$${TEST_TIMEOUT:-1200} VM_TIMEOUT=$${VM_TIMEOUT:-10800} \
		tests/vm/run check $(TESTS)

FUZZ_TIME ?= 30
fuzz:
	$(MAKE) -C fuzz run FUZZ_TIME=$(FUZZ_TIME)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C user clean
	$(MAKE) -C tests clean
	$(MAKE) -C fuzz clean
	$(MAKE) -C examples clean
	rm -rf build

.PHONY: all module module-w1 module-sparse cprof examples tests deps check demo bench fuzz clean \
	install uninstall dkms-src dkms-install dkms-uninstall check-dkms check-debug
