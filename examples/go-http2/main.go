// SPDX-License-Identifier: GPL-2.0
//
// gohttp2: the standard library's HTTP/2 server over TLS, and a client that
// keeps a number of requests in flight on one connection (the setup of
// Morsing's causal profile of Go's HTTP/2 server), to profile with cprof.
//
//	gohttp2 serve [-addr HOST:PORT] [-d SEC] [-u ITERS] [-w PCT] [-t PCT]
//	gohttp2 load [-addr HOST:PORT] [-d SEC] [-c N]
//
// serve answers every request with the result of work(): 10 units of
// ITERS iterations (-u, default 100000), PCT % fewer with -w. A janitor
// goroutine runs tidy() every 20 ms, a unit of work, PCT % less with -t;
// no request waits for it. It prints "listening ADDR" once it accepts
// connections and exits after SEC seconds (-d, default 30).
//
// load keeps N requests in flight (-c, default 10) for SEC seconds (-d,
// default 10), one goroutine each, over one HTTP/2 connection, then prints
//
//	events E elapsed_ns NS rate R latency_ns L
//
// (E requests answered, R a second, L their mean latency): the line of the
// ground truths in tests/targets, so that its rate with -w PCT against
// without is the real speedup that cprof's prediction for work() is
// compared with.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var sink uint64 // what work() and tidy() compute, kept

// work: the handler's own work, n iterations of a xorshift generator.
//
//go:noinline
func work(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ { // work line
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// tidy: the janitor's work, which no request waits for.
//
//go:noinline
func tidy(n int) {
	x := uint64(2463534242)
	for i := 0; i < n; i++ { // tidy line
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	atomic.AddUint64(&sink, x)
}

func iters(unit, units, pct int) int {
	return unit * units * (100 - pct) / 100
}

// selfSigned: a certificate for the loopback, made at start-up.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "gohttp2"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gohttp2 serve [-addr HOST:PORT] [-d SEC] [-u ITERS] [-w PCT] [-t PCT]")
	fmt.Fprintln(os.Stderr, "       gohttp2 load [-addr HOST:PORT] [-d SEC] [-c N]")
	os.Exit(2)
}

func pct(p int) bool { return p >= 0 && p <= 100 }

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8443", "listen on HOST:PORT")
	secs := fs.Int("d", 30, "exit after SEC seconds")
	unit := fs.Int("u", 100000, "iterations per unit of work")
	w := fs.Int("w", 0, "work() PCT % faster")
	t := fs.Int("t", 0, "tidy() PCT % faster")
	fs.Usage = usage
	fs.Parse(args)
	if fs.NArg() > 0 || *secs < 1 || *unit < 1 || !pct(*w) || !pct(*t) {
		usage()
	}
	cert, err := selfSigned()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohttp2: certificate:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohttp2:", err)
		os.Exit(1)
	}
	n := iters(*unit, 10, *w)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/plain")
		io.WriteString(rw, strconv.FormatUint(work(n), 10)+"\n")
	})
	srv := &http.Server{
		Handler:   mux,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}},
	}
	go func() {
		k := iters(*unit, 1, *t)
		for range time.Tick(20 * time.Millisecond) {
			tidy(k)
		}
	}()
	time.AfterFunc(time.Duration(*secs)*time.Second, func() { os.Exit(0) })
	fmt.Println("listening", ln.Addr())
	if err := srv.ServeTLS(ln, "", ""); err != nil {
		fmt.Fprintln(os.Stderr, "gohttp2:", err)
		os.Exit(1)
	}
}

func load(args []string) {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8443", "the server's HOST:PORT")
	secs := fs.Int("d", 10, "run SEC seconds")
	conc := fs.Int("c", 10, "requests in flight")
	fs.Usage = usage
	fs.Parse(args)
	if fs.NArg() > 0 || *secs < 1 || *conc < 1 {
		usage()
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		ForceAttemptHTTP2: true,
	}}
	url := "https://" + *addr + "/"
	// One request first: the connection (HTTP/2 or nothing) and the server up.
	resp, err := client.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohttp2:", err)
		os.Exit(1)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		fmt.Fprintln(os.Stderr, "gohttp2: the server answered", resp.Proto, "not HTTP/2")
		os.Exit(1)
	}
	var done, lat, failed uint64
	var wg sync.WaitGroup
	t0 := time.Now()
	end := t0.Add(time.Duration(*secs) * time.Second)
	for i := 0; i < *conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				s := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					atomic.AddUint64(&failed, 1)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				atomic.AddUint64(&done, 1)
				atomic.AddUint64(&lat, uint64(time.Since(s).Nanoseconds()))
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	if failed > 0 || done == 0 {
		fmt.Fprintf(os.Stderr, "gohttp2: %d requests failed, %d answered\n", failed, done)
		os.Exit(1)
	}
	fmt.Printf("events %d elapsed_ns %d rate %.3f latency_ns %d\n", done, el.Nanoseconds(),
		float64(done)*1e9/float64(el.Nanoseconds()), lat/done)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "load":
		load(os.Args[2:])
	default:
		usage()
	}
}
