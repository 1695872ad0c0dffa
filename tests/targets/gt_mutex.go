// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for causal profiles of Go: goroutines contending for a
// sync.Mutex.
//
//	gt_mutex [-d SEC | -n EVENTS] [-u ITERS] [-t GOROUTINES] [-s PCT] [-o PCT] [-P PROCS]
//
// GOROUTINES goroutines (default 4) loop: take the lock, run crit() (2
// units of work), count one event with progress(), release it, run
// other() (0.5 units). The critical section is the bottleneck where the
// goroutines run in parallel: crit() PCT % faster (-s) makes the program
// nearly PCT % faster in time per event, other() faster (-o) about
// nothing. On one CPU (GOMAXPROCS 1) they take turns on its one P: an
// event is crit() and other(). -P sets GOMAXPROCS. A waiter parks in the
// runtime's semaphore and the unlock readies it (runtime.ready), without a
// kernel wake-up where a thread is spinning for work. The progress point
// is main.progress (--progress main.progress). gt.go has the rest of the
// options and the exit line.
package main

import (
	"flag"
	"sync"
	"sync/atomic"
	"time"
)

var mu sync.Mutex

//go:noinline
func crit(n int) {
	x := sink
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* crit line */
	sink = x
}

//go:noinline
func other(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* other line */
	return x
}

func main() {
	o := gtFlags()
	nr := flag.Int("t", 4, "goroutines")
	s := flag.Int("s", 0, "crit() PCT % shorter")
	ot := flag.Int("o", 0, "other() PCT % shorter")
	flag.Parse()
	gtCheck(o, "gt_mutex [-d SEC | -n EVENTS] [-u ITERS] [-t GOROUTINES] [-s PCT] [-o PCT] [-P PROCS]",
		*nr >= 1, *s, *ot)
	cn, on := gtIters(o.unit, 20, *s), gtIters(o.unit, 5, *ot)
	var wg sync.WaitGroup
	var sum uint64

	t0 := time.Now()
	for i := 0; i < *nr; i++ {
		wg.Add(1)
		go func() {
			var x uint64
			for atomic.LoadInt32(&stop) == 0 {
				mu.Lock()
				crit(cn)
				progress()
				if o.max > 0 && events >= o.max {
					atomic.StoreInt32(&stop, 1)
				}
				mu.Unlock()
				x += other(on)
			}
			atomic.AddUint64(&sum, x)
			wg.Done()
		}()
	}
	var elapsed time.Duration
	var n uint64
	if o.max == 0 {
		time.Sleep(time.Duration(o.secs) * time.Second)
		mu.Lock()
		elapsed, n = time.Since(t0), events
		atomic.StoreInt32(&stop, 1)
		mu.Unlock()
		wg.Wait()
	} else {
		wg.Wait()
		elapsed, n = time.Since(t0), events
	}
	gtReport(n, elapsed)
}
