package workloads

import "sync"

// register is the protected resource of one lock: an integer register kept
// in this process, outside the Redis under test, that every critical section
// read-modify-writes. With fencing it keeps the highest token it has seen,
// on a read or an accepted write, and rejects a write that presents a
// lower one, or the same one from another process (Kleppmann's fenced
// storage, for a read-modify-write: a holder paused between its read and
// its write, whose lease ran out meanwhile, must not write after the next
// holder read, or the next holder's write loses its update).
type register struct {
	mu       sync.Mutex
	value    int64
	seq      int64 // accepted writes so far
	top      int64 // highest token seen
	topOwner int   // process that presented top
}

// read returns the current value, seeing token (0: unfenced) presented by
// process.
func (r *register) read(token int64, process int) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if token > r.top {
		r.top, r.topOwner = token, process
	}
	return r.value
}

// write stores v presented with token (0: unfenced) by process. It returns
// the write's position in the register's order of accepted writes (1-based)
// and whether it was accepted.
func (r *register) write(v, token int64, process int) (seq int64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if token != 0 {
		if token < r.top || (token == r.top && process != r.topOwner) {
			return 0, false
		}
		r.top, r.topOwner = token, process
	}
	r.value = v
	r.seq++
	return r.seq, true
}
