package driver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// fakePermitsDriver is a driver with capabilities permit-semaphore and
// latch that needs no Redis: the permit semaphores and latches in memory,
// served one request at a time. A permit's lease runs from its grant
// (lease_ms <= 0: never ends); an acquire that finds none waits out wait_ms
// and looks once more; latch_await of a closed latch sleeps out wait_ms
// (below 0, or past timeout_ms less LatchGiveUp: to that) and answers fail,
// as nothing can change while it sleeps. Mode "permits-noid" answers every
// acquire ok without a permit_id.
func fakePermitsDriver(mode string, in io.Reader, out io.Writer) int {
	enc := json.NewEncoder(out)
	_ = enc.Encode(Banner{Protocol: Version, Driver: "fake-permits", Version: mode, Capabilities: []string{CapPermitSemaphore, CapLatch}})
	avail := map[string]int{}
	set := map[string]bool{}
	held := map[string]time.Time{} // permit id -> lease end (zero: none)
	count := map[string]int64{}
	next := 0
	live := func(id string) bool {
		end, ok := held[id]
		return ok && (end.IsZero() || time.Now().Before(end))
	}
	reclaim := func(name string) {
		for id := range held {
			if !live(id) {
				delete(held, id)
				avail[name]++ // one semaphore per test: the ids are its
			}
		}
	}
	take := func(req Request) (string, bool) {
		reclaim(req.Name)
		if avail[req.Name] <= 0 {
			return "", false
		}
		avail[req.Name]--
		next++
		id := fmt.Sprintf("%032x", next)
		held[id] = time.Time{}
		if req.LeaseMS > 0 {
			held[id] = time.Now().Add(time.Duration(req.LeaseMS) * time.Millisecond)
		}
		return id, true
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return 1
		}
		rep := Reply{ID: req.ID, Status: StatusOK}
		fail := func(ok bool) {
			if !ok {
				rep.Status = StatusFail
			}
		}
		switch req.Op {
		case OpHello:
		case OpPsemTryAcquire, OpPsemAcquire:
			id, ok := take(req)
			if !ok && req.WaitMS > 0 {
				time.Sleep(time.Duration(req.WaitMS) * time.Millisecond)
				id, ok = take(req)
			}
			fail(ok)
			if ok && mode != "permits-noid" {
				rep.PermitID = id
			}
		case OpPsemRelease:
			ok := live(req.PermitID)
			if ok {
				delete(held, req.PermitID)
				avail[req.Name]++
			}
			fail(ok)
		case OpPsemAddPermits:
			avail[req.Name] += req.Permits
			set[req.Name] = true
		case OpPsemTrySetPermits:
			fail(!set[req.Name])
			if !set[req.Name] {
				avail[req.Name], set[req.Name] = req.Permits, true
			}
		case OpPsemAvailable:
			reclaim(req.Name)
			rep.Count = avail[req.Name]
		case OpLatchTrySetCount:
			fail(count[req.Name] <= 0)
			if count[req.Name] <= 0 {
				count[req.Name] = req.Count
			}
		case OpLatchCountDown:
			count[req.Name] = max(0, count[req.Name]-1)
		case OpLatchCount:
			rep.Count = int(count[req.Name])
		case OpLatchAwait:
			if count[req.Name] > 0 {
				left := time.Duration(req.TimeoutMS)*time.Millisecond - LatchGiveUp
				wait := time.Duration(req.WaitMS) * time.Millisecond
				if req.WaitMS < 0 || wait > left {
					wait = left
				}
				time.Sleep(max(0, wait))
			}
			fail(count[req.Name] <= 0)
		default:
			rep = Reply{ID: req.ID, Status: StatusError, Error: "unknown op " + req.Op}
		}
		_ = enc.Encode(rep)
	}
	return 0
}
