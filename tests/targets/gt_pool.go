// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for causal profiles of Go: a worker pool, many more
// goroutines than GOMAXPROCS, fed from a channel.
//
//	gt_pool [-d SEC | -n EVENTS] [-u ITERS] [-g WORKERS] [-s PCT] [-o PCT] [-P PROCS]
//
// A feeder goroutine sends items on a channel of 64; WORKERS goroutines
// (default 32) each take one, run work() on it (0.2 units of work, less
// than the runtime's 10 ms time slice: an item is not preempted) and
// count it with finish(). A janitor goroutine runs tidy() (0.01 units)
// every 20 ms, which no item waits for. The workers are the bottleneck:
// they keep every P busy, so work() PCT % faster (-s) makes the program
// nearly PCT % faster in time per item, on one CPU as on several, and
// tidy() faster (-o) about nothing (the CPU it takes, a per cent or two).
// Every hand-off is the runtime's: a send readies a parked receiver on
// the sender's P, and idle Ps steal it, so a worker's goroutine moves
// from thread to thread. The progress point is main.finish (--progress
// main.finish), in the workers: a collector goroutine counting results
// from a channel takes them in bursts of up to 64 (on one CPU it waits
// its turn behind the workers), too few bursts an experiment to time the
// program by. gt.go has the rest of the options and the exit line.
package main

import (
	"flag"
	"sync"
	"sync/atomic"
	"time"
)

var tidied uint64 // what the janitor computes, kept

//go:noinline
func work(n int, seed uint64) uint64 {
	x := seed
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* work line */
	return x
}

//go:noinline
func tidy(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* tidy line */
	return x
}

// finish: one item done, the progress point (--progress main.finish).
//
//go:noinline
func finish() uint64 {
	return atomic.AddUint64(&events, 1)
}

func main() {
	o := gtFlags()
	nw := flag.Int("g", 32, "worker goroutines")
	s := flag.Int("s", 0, "work() PCT % shorter")
	ot := flag.Int("o", 0, "tidy() PCT % shorter")
	flag.Parse()
	gtCheck(o, "gt_pool [-d SEC | -n EVENTS] [-u ITERS] [-g WORKERS] [-s PCT] [-o PCT] [-P PROCS]",
		*nw >= 1, *s, *ot)
	wn, tn := gtIters(o.unit, 2, *s), gtIters(o.unit, 1, *ot)/10
	jobs := make(chan uint64, 64)
	var workers sync.WaitGroup
	var elapsed time.Duration
	var n, x uint64

	t0 := time.Now()
	go func() {
		for i := uint64(1); atomic.LoadInt32(&stop) == 0; i++ {
			jobs <- i
		}
		close(jobs)
	}()
	for i := 0; i < *nw; i++ {
		workers.Add(1)
		go func() {
			var y uint64
			for j := range jobs {
				y ^= work(wn, j)
				if finish() == o.max {
					atomic.StoreInt32(&stop, 1)
				}
			}
			atomic.AddUint64(&x, y)
			workers.Done()
		}()
	}
	go func() {
		var y uint64
		for atomic.LoadInt32(&stop) == 0 {
			y += tidy(tn)
			time.Sleep(20 * time.Millisecond)
		}
		atomic.AddUint64(&tidied, y)
	}()
	if o.max == 0 {
		time.Sleep(time.Duration(o.secs) * time.Second)
		elapsed, n = time.Since(t0), atomic.LoadUint64(&events)
		atomic.StoreInt32(&stop, 1)
		workers.Wait()
	} else {
		workers.Wait()
		elapsed, n = time.Since(t0), atomic.LoadUint64(&events)
	}
	sink = x
	gtReport(n, elapsed)
}
