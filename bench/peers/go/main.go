// The six benchmarks of `toposched bench` written for Go, so that the runtime is measured
// against Go's scheduler side by side (toposched bench --peers builds and runs this).
//
// Usage: peer-go BENCH LOOPS GROUPS TASKS PROCS
// Prints one line "BENCH FIGURE" in the unit toposched bench uses for BENCH (pipe: us per
// round trip; hackbench: s in total; spawn, spawn-join: ns per task; yield: ns per
// switch), or "wake P50 P99" in ns. GOMAXPROCS is PROCS (the runtime's worker count), 1 for yield.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"
)

const (
	hbFds      = 20          // senders and receivers per group (hackbench -f)
	hbData     = 100         // message bytes
	hbChanCap  = 65536 / 100 // what a 64 KiB pipe holds, as toposched's channels
	spawnBatch = 256
	wakeGap    = 50 * time.Microsecond
)

func pipe(loops int) float64 {
	warm := loops / 10
	if warm > 1000 {
		warm = 1000
	}
	ping, pong := make(chan int, 1), make(chan int, 1)
	go func() {
		for i := 0; i < warm+loops; i++ {
			pong <- <-ping
		}
	}()
	var t0 time.Time
	for i := 0; i < warm+loops; i++ {
		if i == warm {
			t0 = time.Now()
		}
		ping <- i
		if <-pong != i {
			panic("pipe: wrong reply")
		}
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(loops) / 1e3
}

func hackbench(groups, loops int) float64 {
	chans := make([]chan [hbData]byte, groups*hbFds)
	for i := range chans {
		chans[i] = make(chan [hbData]byte, hbChanCap)
	}
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < groups; g++ {
		for j := 0; j < hbFds; j++ {
			ready.Add(2)
			done.Add(2)
			go func(c chan [hbData]byte) { // receiver
				ready.Done()
				<-start
				for i := 0; i < loops*hbFds; i++ {
					<-c
				}
				done.Done()
			}(chans[g*hbFds+j])
			go func(g int) { // sender: every receiver of its group
				var data [hbData]byte
				ready.Done()
				<-start
				for l := 0; l < loops; l++ {
					for k := 0; k < hbFds; k++ {
						chans[g*hbFds+k] <- data
					}
				}
				done.Done()
			}(g)
		}
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	return time.Since(t0).Seconds()
}

func spawn(tasks int) float64 {
	t0 := time.Now()
	for n := 0; n < tasks; {
		b := tasks - n
		if b > spawnBatch {
			b = spawnBatch
		}
		var wg sync.WaitGroup
		wg.Add(b)
		for i := 0; i < b; i++ {
			go func() { wg.Done() }()
		}
		wg.Wait()
		n += b
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(tasks)
}

// spawnJoin: each goroutine joined, Go's way: it closes a channel of its own when it
// returns and the spawner receives from each in order (toposched's ts_join, pthread_join).
func spawnJoin(tasks int) float64 {
	done := make([]chan struct{}, spawnBatch)
	t0 := time.Now()
	for n := 0; n < tasks; {
		b := tasks - n
		if b > spawnBatch {
			b = spawnBatch
		}
		for i := 0; i < b; i++ {
			c := make(chan struct{})
			done[i] = c
			go func() { close(c) }()
		}
		for i := 0; i < b; i++ {
			<-done[i]
		}
		n += b
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(tasks)
}

func yield(loops int) float64 {
	runtime.GOMAXPROCS(1)
	var ready, done sync.WaitGroup
	ready.Add(2)
	done.Add(2)
	var t0, t1 [2]time.Time
	for k := 0; k < 2; k++ {
		go func(k int) {
			ready.Done()
			ready.Wait()
			t0[k] = time.Now()
			for i := 0; i < loops; i++ {
				runtime.Gosched()
			}
			t1[k] = time.Now()
			done.Done()
		}(k)
	}
	done.Wait()
	a, b := t0[0], t1[0]
	if t0[1].Before(a) {
		a = t0[1]
	}
	if t1[1].After(b) {
		b = t1[1]
	}
	return float64(b.Sub(a).Nanoseconds()) / float64(2*loops)
}

// A waiter blocked on a channel receive, a waker that sleeps 50 us, reads the clock and
// sends it; the waiter reads the clock when it runs. Go cannot pin a goroutine to a P:
// with two Ps busy only with these two, the waiter is normally on the other one.
func wake(loops int) (float64, float64) {
	warm := loops / 10
	if warm > 100 {
		warm = 100
	}
	req, ack := make(chan time.Time), make(chan struct{})
	lat := make([]int64, loops)
	go func() {
		for i := 0; i < warm+loops; i++ {
			t0 := <-req
			d := time.Since(t0).Nanoseconds()
			if i >= warm {
				lat[i-warm] = d
			}
			ack <- struct{}{}
		}
	}()
	for i := 0; i < warm+loops; i++ {
		time.Sleep(wakeGap)
		req <- time.Now()
		<-ack
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	return float64(lat[loops*50/100]), float64(lat[loops*99/100])
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: peer-go BENCH LOOPS GROUPS TASKS PROCS")
		os.Exit(2)
	}
	var n [4]int
	for i := range n {
		v, err := strconv.Atoi(os.Args[2+i])
		if err != nil || v < 1 {
			fmt.Fprintf(os.Stderr, "peer-go: argument %d: not a positive number: %q\n",
				2+i, os.Args[2+i])
			os.Exit(2)
		}
		n[i] = v
	}
	loops, groups, tasks, procs := n[0], n[1], n[2], n[3]
	runtime.GOMAXPROCS(procs)
	switch b := os.Args[1]; b {
	case "pipe":
		fmt.Printf("pipe %g\n", pipe(loops))
	case "hackbench":
		fmt.Printf("hackbench %g\n", hackbench(groups, loops))
	case "spawn":
		fmt.Printf("spawn %g\n", spawn(tasks))
	case "spawn-join":
		fmt.Printf("spawn-join %g\n", spawnJoin(tasks))
	case "yield":
		fmt.Printf("yield %g\n", yield(loops))
	case "wake":
		p50, p99 := wake(loops)
		fmt.Printf("wake %g %g\n", p50, p99)
	default:
		fmt.Fprintf(os.Stderr, "peer-go: unknown benchmark %q\n", b)
		os.Exit(2)
	}
}
