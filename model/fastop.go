package model

import "bytes"

// parseOpLine decodes an op line as the Recorder writes it,
// {"op":{"p":1,...}} with no space, every key an Op field's exact name at
// most once, every value an integer, true, false, or a string of printable
// ASCII without escapes, ten times faster than encoding/json. It reports
// false for anything else, which the caller then decodes with
// decodeStrict: so a line it accepts decodes to what decodeStrict gives,
// and every error comes from decodeStrict (FuzzParseOpLine holds the two
// to that).
//
// intern, unless nil, gives the string of a value's bytes (the reader
// stores each distinct one once).
func parseOpLine(b []byte, intern func([]byte) string) (Op, bool) {
	var o Op
	const open, end = `{"op":{`, `}}`
	if !bytes.HasPrefix(b, []byte(open)) || !bytes.HasSuffix(b, []byte(end)) || len(b) < len(open)+len(end) {
		return o, false
	}
	p := &opParser{b: b[len(open) : len(b)-len(end)], intern: intern}
	if len(p.b) == 0 {
		return o, true // {"op":{}}
	}
	var seen uint32
	for {
		key, ok := p.raw()
		if !ok || !p.byte(':') {
			return o, false
		}
		bit, ok := p.field(&o, key)
		if !ok || seen&bit != 0 {
			return o, false
		}
		seen |= bit
		if len(p.b) == 0 {
			return o, true
		}
		if !p.byte(',') {
			return o, false
		}
	}
}

// opParser consumes b from the front.
type opParser struct {
	b      []byte
	intern func([]byte) string // nil: every string is copied
}

func (p *opParser) byte(c byte) bool {
	if len(p.b) == 0 || p.b[0] != c {
		return false
	}
	p.b = p.b[1:]
	return true
}

// raw reads a string of printable ASCII without escapes, as bytes.
func (p *opParser) raw() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	for i, c := range p.b {
		switch {
		case c == '"':
			s := p.b[:i]
			p.b = p.b[i+1:]
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
	}
	return nil, false
}

// str is raw as a string, interned when the parser has a table.
func (p *opParser) str() (string, bool) {
	b, ok := p.raw()
	if !ok || len(b) == 0 {
		return "", ok
	}
	if p.intern != nil {
		return p.intern(b), true
	}
	return string(b), true
}

// int reads an integer in JSON's syntax (no fraction, no exponent, no
// leading zero) that fits in an int64.
func (p *opParser) int() (int64, bool) {
	neg := p.byte('-')
	n := 0
	for n < len(p.b) && p.b[n] >= '0' && p.b[n] <= '9' {
		n++
	}
	if n == 0 || n > 19 || (p.b[0] == '0' && n > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range p.b[:n] {
		v = v*10 + uint64(c-'0')
	}
	p.b = p.b[n:]
	if len(p.b) > 0 && (p.b[0] == '.' || p.b[0] == 'e' || p.b[0] == 'E') {
		return 0, false
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true
	case !neg && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}

func (p *opParser) bool() (bool, bool) {
	switch {
	case bytes.HasPrefix(p.b, []byte("true")):
		p.b = p.b[4:]
		return true, true
	case bytes.HasPrefix(p.b, []byte("false")):
		p.b = p.b[5:]
		return false, true
	}
	return false, false
}

// field reads the value of key into o; bit identifies the field.
func (p *opParser) field(o *Op, key []byte) (bit uint32, ok bool) {
	var v int64
	switch string(key) {
	case "p":
		v, ok = p.int()
		o.Process = int(v)
		return 1 << 0, ok
	case "client":
		v, ok = p.int()
		o.Client = int(v)
		return 1 << 1, ok
	case "lock":
		o.Lock, ok = p.str()
		return 1 << 2, ok
	case "kind":
		var s string
		s, ok = p.str()
		o.Kind = Kind(s)
		return 1 << 3, ok
	case "call":
		o.Call, ok = p.int()
		return 1 << 4, ok
	case "ret":
		o.Return, ok = p.int()
		return 1 << 5, ok
	case "deadline":
		o.Deadline, ok = p.int()
		return 1 << 6, ok
	case "lease":
		o.Lease, ok = p.int()
		return 1 << 7, ok
	case "wait":
		o.Wait, ok = p.int()
		return 1 << 8, ok
	case "blocking":
		o.Blocking, ok = p.bool()
		return 1 << 9, ok
	case "cancelled":
		o.Cancelled, ok = p.bool()
		return 1 << 10, ok
	case "token":
		o.Token, ok = p.int()
		return 1 << 11, ok
	case "enq":
		o.Enqueued, ok = p.int()
		return 1 << 12, ok
	case "res":
		o.Resource, ok = p.str()
		return 1 << 13, ok
	case "read":
		o.Read, ok = p.int()
		return 1 << 14, ok
	case "write":
		o.Write, ok = p.int()
		return 1 << 15, ok
	case "seq":
		o.Seq, ok = p.int()
		return 1 << 16, ok
	case "overrun":
		o.Overrun, ok = p.bool()
		return 1 << 17, ok
	case "outcome":
		var s string
		s, ok = p.str()
		o.Outcome = Outcome(s)
		return 1 << 18, ok
	case "err":
		o.Error, ok = p.str()
		return 1 << 19, ok
	case "driver_failed":
		o.DriverFailed, ok = p.bool()
		return 1 << 20, ok
	}
	return 0, false
}
