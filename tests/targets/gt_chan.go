// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for causal profiles of Go: a producer goroutine and a
// consumer goroutine over a buffered channel.
//
//	gt_chan [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-b ITEMS] [-P PROCS]
//
// The producer makes an item in produce() (2 units of work) and sends it
// on a channel of -b ITEMS (default 64); the consumer receives it, spends
// 1.2 units in consume() and counts it with progress(). The producer is
// the bottleneck where the two run in parallel: making produce() PCT %
// faster (-p) makes the program min(PCT, 40) % faster in time per item,
// consume() faster (-c) changes nothing. On one CPU (GOMAXPROCS 1) they
// take turns on its one P: an item is 2 + 1.2 units. -P sets GOMAXPROCS.
// Every hand-off (a send that readies the parked consumer, a receive that
// readies the producer parked on a full channel) happens in the runtime,
// usually without a kernel wake-up. The progress point is main.progress
// (--progress main.progress). gt.go has the rest of the options and the
// exit line.
package main

import (
	"flag"
	"sync/atomic"
	"time"
)

//go:noinline
func produce(n int) {
	x := sink
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* produce line */
	sink = x
}

//go:noinline
func consume(n int) {
	x := sink
	for i := 0; i < n; i++ { x = x*6364136223846793005 + 1442695040888963407 } /* consume line */
	sink = x
}

func main() {
	o := gtFlags()
	p := flag.Int("p", 0, "produce() PCT % shorter")
	c := flag.Int("c", 0, "consume() PCT % shorter")
	buf := flag.Int("b", 64, "channel capacity")
	flag.Parse()
	gtCheck(o, "gt_chan [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-b ITEMS] [-P PROCS]",
		*buf >= 1, *p, *c)
	pn, cn := gtIters(o.unit, 20, *p), gtIters(o.unit, 12, *c)
	items := make(chan uint64, *buf)
	done := make(chan struct{})

	t0 := time.Now()
	go func() {
		for i := uint64(0); atomic.LoadInt32(&stop) == 0; i++ {
			produce(pn)
			items <- i
		}
		close(items)
	}()
	go func() {
		for range items {
			consume(cn)
			progress()
			if o.max > 0 && events >= o.max {
				atomic.StoreInt32(&stop, 1)
				break
			}
		}
		close(done)
	}()
	deadline := time.NewTimer(time.Duration(o.secs) * time.Second)
	if o.max > 0 {
		deadline.Stop()
	}
	select {
	case <-deadline.C:
	case <-done:
	}
	atomic.StoreInt32(&stop, 1)
	gtReport(events, time.Since(t0))
}
