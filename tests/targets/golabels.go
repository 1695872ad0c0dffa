// SPDX-License-Identifier: GPL-2.0
//
// A Go target for pprof labels (golabels_test.sh), built by each Go
// installed, stripped and not.
//
//	golabels MS
//
// For MS milliseconds, one goroutine alternates two requests, each under
// its own label set: handler=/a does twice the work of handler=/b, so
// their samples split 2:1. Both run the same code from the same call site
// (main.handle through one closure): their stacks are the same, only
// their labels tell them apart, in aggregated sessions too. Then it prints
// "rounds N" and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

var sink uint64

//go:noinline
func spin(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

//go:noinline
func handle(n int) { spin(n) }

var requests = []struct {
	handler string
	work    int
}{
	{"/a", 400000},
	{"/b", 200000},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: golabels MS")
		os.Exit(2)
	}
	ms, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "golabels: bad MS")
		os.Exit(2)
	}
	ctx := context.Background()
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	rounds := 0
	for time.Now().Before(end) {
		for _, r := range requests {
			pprof.Do(ctx, pprof.Labels("handler", r.handler, "kind", "work"),
				func(context.Context) { handle(r.work) })
		}
		rounds++
	}
	fmt.Printf("rounds %d\n", rounds)
}
