# SPDX-License-Identifier: GPL-2.0
#
# make            build kmod/causalprof.ko and user/cprof
# make check      build everything, boot the test VM, run the whole suite
#                 (make check KVER=6.12: on the newest 6.12 kernel installed)
# make demo       build, boot the VM, load the module and show it working
# make bench      benchmarks (in the VM), results in bench/RESULTS.md;
#                 BENCH=sampling,report runs only those bench/*.sh
# make fuzz       fuzz the recording reader and cprof report (FUZZ_TIME s each)
# make deps       install the Debian packages the project needs (root)
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
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	scripts/check-module kmod/causalprof.ko

module-w1:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

module-sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

cprof:
	$(MAKE) -C user

tests: all
	$(MAKE) -C tests

deps:
	scripts/install-deps

check: deps
	$(MAKE) tests
	tests/vm/run check

demo: deps
	$(MAKE) tests
	tests/vm/run demo

bench: deps
	$(MAKE) tests
	$(MAKE) -C bench
	BENCH=$(BENCH) bench/run

FUZZ_TIME ?= 30
fuzz:
	$(MAKE) -C fuzz run FUZZ_TIME=$(FUZZ_TIME)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C user clean
	$(MAKE) -C tests clean
	$(MAKE) -C fuzz clean
	rm -rf build

.PHONY: all module module-w1 module-sparse cprof tests deps check demo bench fuzz clean
