// SPDX-License-Identifier: GPL-2.0
//
// A Go target for FUNC%return progress points (retpoint_test.sh), built by
// each Go installed.
//
//	goret STATE N DEPTH K MS
//
// Runs main.deep(DEPTH) N times, each in a new goroutine: deep recurses
// DEPTH times with a frame of 1 KiB, so each goroutine's stack (8 KiB at
// first) grows several times, and the runtime copies it each time (the
// case a uretprobe's rewritten return address does not survive). A call
// that finds its stack too small starts again after runtime.morestack: its
// entry runs twice. Then main.sleepy(MS) K times. Then it writes "done
// CALLS K" to the file STATE (CALLS: the calls of main.deep made) and exits
// once STATE is removed.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var calls int64

//go:noinline
func deep(n int) int {
	var buf [1024]byte
	calls++
	buf[n%len(buf)] = byte(n)
	if n == 0 {
		return int(buf[0])
	}
	return deep(n-1) + int(buf[n%len(buf)])
}

//go:noinline
func sleepy(ms int) {
	time.Sleep(time.Duration(ms) * time.Millisecond)
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: goret STATE N DEPTH K MS")
		os.Exit(2)
	}
	state := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	depth, _ := strconv.Atoi(os.Args[3])
	k, _ := strconv.Atoi(os.Args[4])
	ms, _ := strconv.Atoi(os.Args[5])
	sum := 0
	for i := 0; i < n; i++ {
		done := make(chan int)
		go func() { done <- deep(depth) }()
		sum += <-done
	}
	for i := 0; i < k; i++ {
		sleepy(ms)
	}
	tmp := state + ".tmp"
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("done %d %d %d\n", calls, k, sum)), 0o644); err != nil {
		os.Exit(1)
	}
	if err := os.Rename(tmp, state); err != nil {
		os.Exit(1)
	}
	for {
		if _, err := os.Stat(state); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
