// SPDX-License-Identifier: GPL-2.0
//
// A Go program for gopclntab_test, built with and without its symbols and
// DWARF (-ldflags='-s -w') by each Go installed: functions the compiler
// inlines (two deep), a method, a closure and a generic function, so that
// the runtime's table has inline trees, files of several packages and
// names of every kind.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
)

type acc struct {
	sum uint64
}

var sink uint64

func mix(x uint64) uint64 {
	return x*6364136223846793005 + 1442695040888963407
}

func twice(x uint64) uint64 {
	return mix(mix(x)) ^ (x >> 3)
}

func (a *acc) add(x uint64) {
	a.sum += twice(x)
}

func largest[T int | uint64 | float64](v []T) T {
	var m T
	for _, x := range v {
		if x > m {
			m = x
		}
	}
	return m
}

//go:noinline
func work(n int) uint64 {
	var a acc
	for i := 0; i < n; i++ {
		a.add(uint64(i))
	}
	return a.sum
}

//go:noinline
func sorted(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = int(mix(uint64(i)) % 1000)
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v
}

var count uint64

// bump: a leaf without a stack check whose first instruction the kernel
// steps out of line (a mov), called from two places: a progress point
// probes its calls (gopclntab_test).
//
//go:noinline
func bump() uint64 {
	count++
	return count
}

// bumpv: the same, also a function value (hook): probed at its entry.
//
//go:noinline
func bumpv() uint64 {
	count += 2
	return count
}

var hook = bumpv

func main() {
	n := 1000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	sink += work(n) + bump()
	sink ^= bump() + bumpv() + hook()
	v := sorted(n)
	f := []float64{1.5, float64(len(v)), 2}
	fmt.Println(sink, largest(v), largest(f), largest([]uint64{sink}))
}
