// SPDX-License-Identifier: GPL-2.0
//
// A Go target for stripped Go programs (gostrip_test.sh), built by each Go
// installed, with its symbols and DWARF and without (-ldflags='-s -w'):
// cprof names the second from the runtime's table (.gopclntab) only.
//
//	gostrip MS
//
// For MS milliseconds, rounds of three functions doing the same work per
// iteration, 3:2:1 iterations: main.hotA, main.hotB and main.hotC. hotB's
// work is main.stepB, which the compiler inlines: its samples are
// main.stepB's, inlined in main.hotB, at stepB's line (through the inline
// tree in the stripped build). Known truth: the flat weights of hotA,
// stepB and hotC split 3:2:1, on the lines marked hot_a, hot_b and hot_c.
// Each loop counts down on its marked line, where its code starts (Go
// 1.19 put a `for` clause's i++ first, on the `for` line): under QEMU's
// TCG, which takes interrupts between its blocks, the samples land there.
// Then it prints "rounds N" and exits.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Iterations of hotC per round; hotB does twice as many, hotA thrice.
const unit = 100000

var sink uint64

//go:noinline
func hotA(n int) {
	x := sink
	for n > 0 {
		x, n = x*6364136223846793005+1442695040888963407, n-1 /* hot_a line */
	}
	sink = x
}

// Inlined in hotB (loops are inlined since Go 1.16).
func stepB(x uint64, n int) uint64 {
	for n > 0 {
		x, n = x*6364136223846793005+1442695040888963407, n-1 /* hot_b line */
	}
	return x
}

//go:noinline
func hotB(n int) {
	sink = stepB(sink, n)
}

//go:noinline
func hotC(n int) {
	x := sink
	for n > 0 {
		x, n = x*6364136223846793005+1442695040888963407, n-1 /* hot_c line */
	}
	sink = x
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gostrip MS")
		os.Exit(2)
	}
	ms, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gostrip: bad MS")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	rounds := 0
	for time.Now().Before(end) {
		hotA(3 * unit)
		hotB(2 * unit)
		hotC(unit)
		rounds++
	}
	fmt.Printf("rounds %d\n", rounds)
}
