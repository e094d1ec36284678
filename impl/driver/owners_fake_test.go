package driver

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// fakeOwnersDriver is a protocol 2 driver with capability owners that needs
// no Redis: one in-memory lock per name shared by the owners of the process
// (reentrant per owner), each request served on a goroutine of its own, its
// reply sent when it is done (out of order). lock waits, polling, until the
// lock is free or its timeout_ms (trylock: wait_ms) runs out (then fail), or
// an interrupt names it (then fail, interrupted: capability interrupt); a
// request naming no owner after hello is answered with error.
func fakeOwnersDriver(in io.Reader, out io.Writer) int {
	enc := json.NewEncoder(out)
	_ = enc.Encode(Banner{Protocol: Version, Driver: "fake-owners", Capabilities: []string{CapReentrant, CapHoldCount, CapInterrupt, CapOwners}})
	var (
		mu     sync.Mutex // holders, interrupts and enc
		holder = map[string]string{}
		count  = map[string]int{}
		intr   = map[int64]chan struct{}{} // the requests in flight that an interrupt may reach
		wg     sync.WaitGroup
	)
	reply := func(rep Reply) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(rep)
	}
	take := func(name, owner string) bool {
		mu.Lock()
		defer mu.Unlock()
		if h := holder[name]; h != "" && h != owner {
			return false
		}
		holder[name] = owner
		count[name]++
		return true
	}
	serve := func(req Request) {
		rep := Reply{ID: req.ID, Status: StatusOK}
		deadline := time.Now().Add(time.Duration(req.TimeoutMS) * time.Millisecond)
		if req.Op == OpTryLock {
			deadline = time.Now().Add(time.Duration(req.WaitMS) * time.Millisecond)
		}
		switch {
		case req.Owner == "":
			rep = Reply{ID: req.ID, Status: StatusError, Error: "no owner"}
		case req.Op == OpLock || req.Op == OpTryLock:
			mu.Lock()
			stop := make(chan struct{})
			intr[req.ID] = stop
			mu.Unlock()
			for !take(req.Name, req.Owner) {
				if time.Now().After(deadline) {
					rep.Status = StatusFail
					break
				}
				select {
				case <-stop:
					rep.Status, rep.Interrupted = StatusFail, true
				case <-time.After(5 * time.Millisecond):
				}
				if rep.Interrupted {
					break
				}
			}
			mu.Lock()
			delete(intr, req.ID)
			mu.Unlock()
		case req.Op == OpUnlock:
			mu.Lock()
			if holder[req.Name] != req.Owner {
				rep.Status = StatusFail
			} else if count[req.Name]--; count[req.Name] == 0 {
				holder[req.Name] = ""
			}
			mu.Unlock()
		case req.Op == OpHoldCount:
			mu.Lock()
			if holder[req.Name] == req.Owner {
				rep.Count = count[req.Name]
			}
			mu.Unlock()
		}
		reply(rep)
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return 1
		}
		switch req.Op {
		case OpHello:
			reply(Reply{ID: req.ID, Status: StatusOK})
			continue
		case OpInterrupt:
			mu.Lock()
			stop, ok := intr[req.Target]
			delete(intr, req.Target)
			mu.Unlock()
			rep := Reply{ID: req.ID, Status: StatusFail}
			if ok {
				close(stop)
				rep.Status = StatusOK
			}
			reply(rep)
			continue
		}
		wg.Go(func() { serve(req) })
	}
	wg.Wait()
	return 0
}
