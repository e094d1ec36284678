package model

// A client that sends a request again when its connection dies before the
// reply (Lettuce, go-redis with retries: at-least-once delivery) may run a
// release twice: the first copy, whose reply the dead connection lost,
// ends the hold, and the second finds nothing to release. The wire trace
// shows both copies; a release answered "not held" so learned of its own
// first copy, which no fault allowance needs to explain.

// replayed reports whether process p's client sent a request naming lock
// twice within [from, to] (a call's span): first unanswered on a
// connection that then closed, then the same command and arguments on
// another connection, answered. It is false when the trace says nothing
// of p's client.
func (t *WireTrace) replayed(p int, lock string, from, to int64) bool {
	c, known := t.clientOf(p)
	if !known {
		return false
	}
	es := t.conns[c]
	for i, e := range es {
		if e.Kind != WireCmd || e.Return != 0 || e.Call < from || e.Call > to || !namesLock(e.Args, lock) || !closedAfter(es[i+1:], e.Conn) {
			continue
		}
		for _, a := range es[i+1:] {
			if a.Kind == WireCmd && a.Conn != e.Conn && a.Return > 0 && a.Call <= to && a.Cmd == e.Cmd && a.Args == e.Args {
				return true
			}
		}
	}
	return false
}

// closedAfter reports whether events (a client's, in time order) close
// connection conn.
func closedAfter(events []WireEvent, conn int64) bool {
	for _, e := range events {
		if e.Kind == WireClose && e.Conn == conn {
			return true
		}
	}
	return false
}
