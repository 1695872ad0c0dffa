// SPDX-License-Identifier: GPL-2.0
//
// What the Go ground truths share (gt_chan.go, gt_mutex.go; built with
// each), as gt.h for the C ones: the progress point, the options every
// one takes (-d SEC, -n EVENTS, -u ITERS per unit of work, -P GOMAXPROCS),
// the knobs' checks, the work's length and the exit line,
//
//	events E elapsed_ns NS rate R
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

var (
	sink   uint64 // what the work computes, kept
	events uint64 // progress() calls
	stop   int32  // set (atomically) when the run is over
)

// progress: one event, the progress point (--progress main.progress).
//
//go:noinline
func progress() {
	events++
}

type gtOpts struct {
	secs  int
	max   uint64
	unit  int
	procs int
}

// gtFlags: the common options, before flag.Parse().
func gtFlags() *gtOpts {
	o := &gtOpts{}
	flag.IntVar(&o.secs, "d", 10, "run SEC seconds")
	flag.Uint64Var(&o.max, "n", 0, "run EVENTS events")
	flag.IntVar(&o.unit, "u", 500000, "iterations per unit of work")
	flag.IntVar(&o.procs, "P", 0, "GOMAXPROCS (0: the runtime's default)")
	return o
}

// gtCheck: after flag.Parse(), the options, the program's own (ok) and
// the knobs (percentages), else usage and exit 2; then GOMAXPROCS.
func gtCheck(o *gtOpts, usage string, ok bool, pcts ...int) {
	ok = ok && o.secs >= 1 && o.unit >= 1 && o.procs >= 0
	for _, p := range pcts {
		ok = ok && p >= 0 && p <= 100
	}
	if !ok || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage:", usage)
		os.Exit(2)
	}
	if o.procs > 0 {
		runtime.GOMAXPROCS(o.procs)
	}
}

// gtIters: the iterations of tenths tenths of a unit, shortened by pct %.
func gtIters(unit, tenths, pct int) int {
	return unit * tenths / 10 * (100 - pct) / 100
}

func gtReport(events uint64, elapsed time.Duration) {
	fmt.Printf("events %d elapsed_ns %d rate %.3f\n", events, elapsed.Nanoseconds(),
		float64(events)*1e9/float64(elapsed.Nanoseconds()))
}
