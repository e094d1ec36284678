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
func parseOpLine(b []byte) (Op, bool) {
	var o Op
	const open, end = `{"op":{`, `}}`
	if !bytes.HasPrefix(b, []byte(open)) || !bytes.HasSuffix(b, []byte(end)) || len(b) < len(open)+len(end) {
		return o, false
	}
	p := &opParser{b: b[len(open) : len(b)-len(end)]}
	if len(p.b) == 0 {
		return o, true // {"op":{}}
	}
	var seen uint32
	for {
		key, ok := p.str()
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
type opParser struct{ b []byte }

func (p *opParser) byte(c byte) bool {
	if len(p.b) == 0 || p.b[0] != c {
		return false
	}
	p.b = p.b[1:]
	return true
}

// str reads a string of printable ASCII without escapes.
func (p *opParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	for i, c := range p.b {
		switch {
		case c == '"':
			s := string(p.b[:i])
			p.b = p.b[i+1:]
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", false
		}
	}
	return "", false
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
func (p *opParser) field(o *Op, key string) (bit uint32, ok bool) {
	ints := [...]struct {
		key string
		v   *int64
	}{
		{"call", &o.Call}, {"ret", &o.Return}, {"deadline", &o.Deadline}, {"lease", &o.Lease},
		{"wait", &o.Wait}, {"token", &o.Token}, {"enq", &o.Enqueued}, {"read", &o.Read},
		{"write", &o.Write}, {"seq", &o.Seq},
	}
	for i, f := range ints {
		if f.key == key {
			*f.v, ok = p.int()
			return 1 << i, ok
		}
	}
	var v int64
	switch key {
	case "p":
		v, ok = p.int()
		o.Process = int(v)
		return 1 << 10, ok
	case "client":
		v, ok = p.int()
		o.Client = int(v)
		return 1 << 11, ok
	case "blocking":
		o.Blocking, ok = p.bool()
		return 1 << 12, ok
	case "cancelled":
		o.Cancelled, ok = p.bool()
		return 1 << 13, ok
	case "overrun":
		o.Overrun, ok = p.bool()
		return 1 << 14, ok
	}
	strs := [...]struct {
		key string
		v   *string
	}{{"lock", &o.Lock}, {"res", &o.Resource}, {"err", &o.Error}}
	for i, f := range strs {
		if f.key == key {
			*f.v, ok = p.str()
			return 1 << (15 + i), ok
		}
	}
	var s string
	switch key {
	case "kind":
		s, ok = p.str()
		o.Kind = Kind(s)
		return 1 << 18, ok
	case "outcome":
		s, ok = p.str()
		o.Outcome = Outcome(s)
		return 1 << 19, ok
	}
	return 0, false
}
