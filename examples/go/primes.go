// SPDX-License-Identifier: GPL-2.0

// primes [N]: counts the primes below N (default 3000000) twice, by trial
// division (isPrime, slow) and with a sieve (sieve, fast), and prints both
// counts and how long each took. A profile puts main.isPrime on top.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// isPrime tries every odd divisor up to the square root of n.
//
//go:noinline
func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	if n%2 == 0 {
		return n == 2
	}
	for d := 3; d*d <= n; d += 2 {
		if n%d == 0 {
			return false
		}
	}
	return true
}

//go:noinline
func countByDivision(limit int) int {
	count := 0
	for n := 0; n < limit; n++ {
		if isPrime(n) {
			count++
		}
	}
	return count
}

// sieve is Eratosthenes': a pass per prime over its multiples.
//
//go:noinline
func sieve(limit int) int {
	composite := make([]bool, limit)
	count := 0
	for n := 2; n < limit; n++ {
		if composite[n] {
			continue
		}
		count++
		for m := n * n; m < limit; m += n {
			composite[m] = true
		}
	}
	return count
}

func main() {
	limit := 3000000
	if len(os.Args) > 1 {
		n, err := strconv.Atoi(os.Args[1])
		if err != nil || n < 0 {
			fmt.Fprintln(os.Stderr, "usage: primes [N]")
			os.Exit(2)
		}
		limit = n
	}
	t0 := time.Now()
	byDivision := countByDivision(limit)
	t1 := time.Now()
	bySieve := sieve(limit)
	t2 := time.Now()
	fmt.Printf("primes below %d: %d by division in %.2f s, %d by sieve in %.2f s\n",
		limit, byDivision, t1.Sub(t0).Seconds(), bySieve, t2.Sub(t1).Seconds())
}
