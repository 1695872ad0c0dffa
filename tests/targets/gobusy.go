// SPDX-License-Identifier: GPL-2.0
//
// A Go program for the report tests: statically linked, frame pointers,
// Go's symbol names. Built by `make tests` with Debian's go.
//
//	gobusy probe        print "probe go ADDR main.busy" (an address inside
//	                    main.busy) and the executable mappings, exit
//	gobusy spin SECONDS run main.busy (and main.idle, less) for SECONDS
package main

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

var sink uint64

//go:noinline
func busy(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func idle(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x ^= x >> 7
	}
	return x
}

func printMaps() {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		var start, end, off uint64
		var perms, dev, inode, path string
		fields := strings.Fields(s.Text())
		if len(fields) < 6 {
			continue
		}
		fmt.Sscanf(fields[0], "%x-%x", &start, &end)
		perms, dev, inode, path = fields[1], fields[3], fields[4], fields[5]
		_, _ = dev, inode
		off, _ = strconv.ParseUint(fields[2], 16, 64)
		if perms[2] == 'x' {
			fmt.Printf("map %x %x %x %s\n", start, end, off, path)
		}
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gobusy probe | gobusy spin SECONDS")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "probe":
		fmt.Printf("probe go %x main.busy\n", reflect.ValueOf(busy).Pointer()+4)
		printMaps()
	case "spin":
		secs, _ := strconv.ParseFloat(os.Args[2], 64)
		end := time.Now().Add(time.Duration(secs * float64(time.Second)))
		for time.Now().Before(end) {
			sink += busy(300000)
			sink += idle(30000)
		}
	default:
		os.Exit(2)
	}
}
