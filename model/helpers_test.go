package model

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Builders for hand-drawn histories. Times are plain integers (ns); the
// default lease (1000) is far longer than any hand-drawn history unless a
// test says otherwise.

const testLease = 1000

func acq(p int, lock string, call, ret int64, out Outcome) Op {
	return Op{Process: p, Lock: lock, Kind: Acquire, Call: call, Return: ret, Outcome: out, Lease: testLease, Blocking: true}
}

func try(p int, lock string, call, ret int64, out Outcome) Op {
	o := acq(p, lock, call, ret, out)
	o.Blocking, o.Wait = false, ret-call
	return o
}

func rel(p int, lock string, call, ret int64, out Outcome) Op {
	return Op{Process: p, Lock: lock, Kind: Release, Call: call, Return: ret, Outcome: out}
}

func withLease(o Op, lease int64) Op { o.Lease = lease; return o }
func withToken(o Op, tok int64) Op   { o.Token = tok; return o }
func withEnq(o Op, enq int64) Op     { o.Enqueued = enq; return o }
func withDeadline(o Op, d int64) Op  { o.Deadline = d; return o }
func hist(ops ...Op) *History        { return &History{Ops: ops} }
func sec(p int, lock string, call, ret, read, write int64, out Outcome) Op {
	return Op{Process: p, Lock: lock, Kind: Section, Call: call, Return: ret, Read: read, Write: write, Outcome: out}
}
