// Command openloop is the HTTP load generator of benchmarks/bench_serve.py, on loopback only.
//
// With -rate R (open loop) request i is due at start + i/R whatever became of the others, and its
// latency is measured from that due time, not from when a connection was free to send it: a
// server that stalls is charged for every request it held back (no coordinated omission). With
// -rate 0 (closed loop) each connection sends its next request as soon as it has its answer: the
// maximum rate. Either way it prints one JSON report: the count by status class, transport
// errors, requests left unsent, the latency percentiles and the smallest and largest body.
//
//	openloop -url http://127.0.0.1:PORT/path [-bodies FILE] [-rate R] [-duration 10s]
//	         [-connections 32] [-timeout 10s]
//
// With -bodies, each line of FILE is POSTed in turn (application/json). SIGINT ends the run
// early, as its -duration would: the requests already due are still sent and counted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

type result struct {
	latency time.Duration
	status  int // 0: a transport error
	bytes   int
}

type report struct {
	Requests    int            `json:"requests"`
	Seconds     float64        `json:"seconds"`
	PerSecond   float64        `json:"per_second"`
	Rate        float64        `json:"rate"`
	Status      map[string]int `json:"status"`
	Errors      int            `json:"errors"`
	FirstError  string         `json:"first_error,omitempty"`
	Unsent      int            `json:"unsent"`
	NotLoopback int            `json:"not_loopback"`
	P50         float64        `json:"p50_ms"`
	P99         float64        `json:"p99_ms"`
	P999        float64        `json:"p999_ms"`
	Max         float64        `json:"max_ms"`
	MinBytes    int            `json:"min_bytes"`
	MaxBytes    int            `json:"max_bytes"`
}

type generator struct {
	target      string
	bodies      [][]byte
	next        atomic.Uint64
	notLoopback atomic.Int64
	unsent      atomic.Int64
	timeout     time.Duration
	firstError  atomic.Value
}

func main() {
	target := flag.String("url", "", "http://127.0.0.1:PORT/path (loopback only)")
	bodiesFile := flag.String("bodies", "", "JSON bodies, one a line, POSTed in turn")
	rate := flag.Float64("rate", 0, "requests per second on a fixed schedule; 0: closed loop")
	duration := flag.Duration("duration", 10*time.Second, "how long requests are started")
	connections := flag.Int("connections", 32, "keep-alive connections")
	timeout := flag.Duration("timeout", 10*time.Second, "per request")
	flag.Parse()
	if err := run(*target, *bodiesFile, *rate, *duration, *connections, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "openloop:", err)
		os.Exit(2)
	}
}

func run(target, bodiesFile string, rate float64, duration time.Duration, connections int,
	timeout time.Duration) error {
	parsed, err := url.Parse(target)
	if err != nil || parsed.Scheme != "http" {
		return fmt.Errorf("-url %q: not an http:// URL", target)
	}
	if ip := net.ParseIP(parsed.Hostname()); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: not a loopback address (127.0.0.0/8 or ::1)", target)
	}
	if connections < 1 || rate < 0 || duration <= 0 {
		return fmt.Errorf("-connections at least 1, -rate at least 0, -duration more than 0")
	}
	g := &generator{target: target, timeout: timeout}
	if bodiesFile != "" {
		if g.bodies, err = readBodies(bodiesFile); err != nil {
			return err
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	var results []result
	start := time.Now()
	if rate > 0 {
		results = g.openLoop(rate, duration, connections, stop)
	} else {
		results = g.closedLoop(duration, connections, stop)
	}
	elapsed := time.Since(start)
	out := summarise(results, elapsed)
	out.Rate = rate
	out.Unsent = int(g.unsent.Load())
	out.NotLoopback = int(g.notLoopback.Load())
	if first, ok := g.firstError.Load().(string); ok {
		out.FirstError = first
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func readBodies(path string) ([][]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var bodies [][]byte
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		if line := bytes.TrimSpace(scanner.Bytes()); len(line) > 0 {
			bodies = append(bodies, append([]byte(nil), line...))
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if len(bodies) == 0 {
		return nil, fmt.Errorf("-bodies %s: no bodies", path)
	}
	return bodies, nil
}

// client is one keep-alive connection's: a transport of its own holding at most one connection.
func (g *generator) client() *http.Client {
	transport := &http.Transport{
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
		Proxy:               nil,
	}
	// A redirect is answered as itself, never followed: it could lead off loopback.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &http.Client{Transport: transport, Timeout: g.timeout, CheckRedirect: noRedirect}
}

// send makes one request and reads its whole answer.
func (g *generator) send(client *http.Client) result {
	var request *http.Request
	var err error
	if g.bodies == nil {
		request, err = http.NewRequest(http.MethodGet, g.target, nil)
	} else {
		body := g.bodies[(g.next.Add(1)-1)%uint64(len(g.bodies))]
		request, err = http.NewRequest(http.MethodPost, g.target, bytes.NewReader(body))
		if err == nil {
			request.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		g.firstError.CompareAndSwap(nil, err.Error())
		return result{}
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if addr, ok := info.Conn.RemoteAddr().(*net.TCPAddr); !ok || !addr.IP.IsLoopback() {
			g.notLoopback.Add(1)
		}
	}}
	request = request.WithContext(httptrace.WithClientTrace(context.Background(), trace))
	response, err := client.Do(request)
	if err != nil {
		g.firstError.CompareAndSwap(nil, err.Error())
		return result{}
	}
	read, err := io.Copy(io.Discard, response.Body)
	response.Body.Close()
	if err != nil {
		g.firstError.CompareAndSwap(nil, err.Error())
		return result{}
	}
	return result{status: response.StatusCode, bytes: int(read)}
}

// openLoop: request i is due at start + i/rate; each connection takes the next due request and
// its latency runs from the due time. The requests due at the end are all sent (within the
// timeout); any still waiting for a connection then are counted as unsent.
func (g *generator) openLoop(rate float64, duration time.Duration, connections int,
	stop chan os.Signal) []result {
	total := int(rate * duration.Seconds())
	due := make(chan time.Time, total+1)
	start := time.Now()
	go func() {
		defer close(due)
		for i := 0; i < total; i++ {
			at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if wait := time.Until(at); wait > 0 {
				select {
				case <-time.After(wait):
				case <-stop:
					return
				}
			}
			due <- at
		}
	}()
	deadline := start.Add(duration + g.timeout)
	return g.workers(connections, func(client *http.Client, out *[]result) {
		for at := range due {
			if time.Now().After(deadline) {
				g.unsent.Add(1)
				continue
			}
			r := g.send(client)
			r.latency = time.Since(at)
			*out = append(*out, r)
		}
	})
}

// closedLoop: each connection sends its next request when it has its answer, until the end.
func (g *generator) closedLoop(duration time.Duration, connections int,
	stop chan os.Signal) []result {
	var stopped atomic.Bool
	go func() {
		select {
		case <-time.After(duration):
		case <-stop:
		}
		stopped.Store(true)
	}()
	return g.workers(connections, func(client *http.Client, out *[]result) {
		for !stopped.Load() {
			sent := time.Now()
			r := g.send(client)
			r.latency = time.Since(sent)
			*out = append(*out, r)
		}
	})
}

func (g *generator) workers(n int, work func(*http.Client, *[]result)) []result {
	var wait sync.WaitGroup
	each := make([][]result, n)
	for i := range each {
		wait.Add(1)
		go func(i int) {
			defer wait.Done()
			work(g.client(), &each[i])
		}(i)
	}
	wait.Wait()
	var all []result
	for _, part := range each {
		all = append(all, part...)
	}
	return all
}

func summarise(results []result, elapsed time.Duration) report {
	out := report{Requests: len(results), Seconds: elapsed.Seconds(), Status: map[string]int{}}
	for _, class := range []string{"1xx", "2xx", "3xx", "4xx", "5xx"} {
		out.Status[class] = 0
	}
	if out.Seconds > 0 {
		out.PerSecond = float64(out.Requests) / out.Seconds
	}
	latencies := make([]time.Duration, 0, len(results))
	out.MinBytes = -1
	for _, r := range results {
		latencies = append(latencies, r.latency)
		if r.status == 0 {
			out.Errors++
			continue
		}
		out.Status[fmt.Sprintf("%dxx", r.status/100)]++
		if out.MinBytes < 0 || r.bytes < out.MinBytes {
			out.MinBytes = r.bytes
		}
		if r.bytes > out.MaxBytes {
			out.MaxBytes = r.bytes
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	out.P50 = percentile(latencies, 0.50)
	out.P99 = percentile(latencies, 0.99)
	out.P999 = percentile(latencies, 0.999)
	out.Max = percentile(latencies, 1)
	return out
}

// percentile: the smallest latency at least q of them do not exceed (nearest rank), in ms.
func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(q*float64(len(sorted))+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(sorted) {
		rank = len(sorted) - 1
	}
	return float64(sorted[rank].Microseconds()) / 1000
}
