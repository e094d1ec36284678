package driver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

const testDriverEnv = "LOCKCHECK_TEST_DRIVER"

// fakeDriver is a driver that needs no Redis: one owner's holds, kept in
// memory, and a misbehaviour named by mode, triggered by the first lock
// request:
//
//	ok        behaves
//	hang      never answers lock
//	crash     exits with status 3 (after a word on stderr)
//	garbage   prints a line that is not JSON
//	wrongid   answers with another request's id
//	redis     answers lock with a Redis error reply
//	noexit    ignores the end of its input
//	notoken   claims fenced, answers lock and trylock ok without a token, and
//	          token with the token 1
//	objects   announces shared-objects; holdcount answers 1 when hello asked
//	          for shared objects, 0 when not (what hello said, seen outside)
//	objects-nocap  the same without announcing shared-objects
//	stalls    every reply carries one stall of the process, 100 to 50 ms
//	          before it was sent
//	forms     announces forms; lock, trylock and unlock replies name the
//	          form "draw N", N the request's form_draw (0: none came)
//	forms-nocap  the same without announcing forms
//
// and, before any request: early (exits before its banner), oldproto (a
// banner of protocol 99), nocaps (a banner without capabilities), silent
// (prints nothing at all).
func fakeDriver(mode string, in io.Reader, out, errw io.Writer) int {
	caps := []string{CapReentrant, CapHoldCount}
	switch mode {
	case "early":
		fmt.Fprintln(errw, "fake driver: cannot find my library")
		return 2
	case "silent":
		time.Sleep(time.Hour)
	case "nocaps":
		caps = nil
	case "notoken":
		caps = append(caps, CapFenced)
	case "objects":
		caps = append(caps, CapSharedObjects)
	case "forms":
		caps = append(caps, CapForms)
	}
	enc := json.NewEncoder(out)
	proto := Version
	if mode == "oldproto" {
		proto = 99
	}
	_ = enc.Encode(Banner{Protocol: proto, Driver: "fake", Version: mode, Capabilities: caps})
	holds := map[string]int{}
	shared := false
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintln(errw, "fake driver: bad request:", err)
			return 1
		}
		rep := Reply{ID: req.ID, Status: StatusOK}
		switch req.Op {
		case OpHello:
			shared = req.SharedObjects
		case OpLock, OpTryLock:
			switch mode {
			case "hang":
				time.Sleep(time.Hour)
			case "crash":
				fmt.Fprintln(errw, "fake driver: segfault in lock")
				return 3
			case "garbage":
				fmt.Fprintln(out, "Exception in thread main")
				continue
			case "wrongid":
				rep.ID += 7
			case "redis":
				rep = Reply{ID: req.ID, Status: StatusError, Error: "WRONGTYPE Operation against a key holding the wrong kind of value", RedisError: true}
			}
			if rep.Status == StatusOK {
				holds[req.Name]++
			}
		case OpUnlock:
			if holds[req.Name] == 0 {
				rep.Status = StatusFail
			} else {
				holds[req.Name]--
			}
		case OpHoldCount:
			rep.Count = holds[req.Name]
			if strings.HasPrefix(mode, "objects") {
				rep.Count = 0
				if shared {
					rep.Count = 1
				}
			}
		case OpToken:
			rep.Token = 1
		default:
			rep = Reply{ID: req.ID, Status: StatusError, Error: "unknown op " + req.Op}
		}
		if strings.HasPrefix(mode, "forms") && (req.Op == OpLock || req.Op == OpTryLock || req.Op == OpUnlock) {
			rep.Form = fmt.Sprintf("draw %d", req.FormDraw)
		}
		if mode == "stalls" {
			var ts unix.Timespec
			_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
			rep.Stalls = [][2]int64{{ts.Nano() - 100e6, ts.Nano() - 50e6}}
		}
		_ = enc.Encode(rep)
	}
	if mode == "noexit" {
		time.Sleep(time.Hour)
	}
	return 0
}

// fakeOptions runs the test binary as a fake driver in mode.
func fakeOptions(mode string) Options {
	return Options{
		Command: []string{os.Args[0]},
		// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
		Env: []string{testDriverEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}, Name: "fake-" + mode,
		ReplyGrace: 100 * time.Millisecond, ExitWait: 500 * time.Millisecond, StartTimeout: 2 * time.Second,
	}
}
