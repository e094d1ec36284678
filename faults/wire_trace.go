package faults

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// WireEvent is one thing a Wire saw (Wire.Trace): a connection opened or
// closed, or one request and its reply.
type WireEvent struct {
	// Kind is "open", "close" or "cmd".
	Kind string
	// Conn numbers the Wire's connections from 1, in the order accepted
	// (a WireSet's: its Wires' connections, in the order first seen).
	Conn int64
	// Node is the server's address, in a WireSet's trace ("": the one
	// server of a Wire).
	Node string
	// Cmd is the request's command, upper-cased; Args its arguments and
	// Reply its reply, rendered short (TraceArgs, TraceReply).
	Cmd, Args, Reply string
	// Call is when the event happened (for a command: when its request
	// was read); Return when the command's reply was passed on to the
	// client (zero: it never was, or the connection had subscribed, where
	// replies are not paired with requests).
	Call, Return time.Time
}

// Trace makes w report every event to f from now on (nil: stop). f is
// called from the Wire's connection goroutines, concurrently, in each
// connection's order; it must not block for long. A command's event is
// reported when its reply was passed on, or when its connection closed
// before that (Return zero). Connections opened before Trace are traced
// from their next request on (their open was not seen).
func (w *Wire) Trace(f func(WireEvent)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tracer = f
}

// trace reports ev to the Wire's tracer, if any.
func (w *Wire) trace(ev WireEvent) {
	w.mu.Lock()
	f := w.tracer
	w.mu.Unlock()
	if f != nil {
		f(ev)
	}
}

// traced reports whether the Wire has a tracer (a connection then keeps
// each request's text until its reply).
func (w *Wire) traced() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tracer != nil
}

// Limits of a traced command's rendering.
const (
	traceArgLen  = 40  // one argument
	traceArgsLen = 160 // all of them
)

// TraceArgs renders a request frame's arguments (the command name left
// out) as words, each cut to 40 bytes, a script body to its first line
// ("<script 212 B>"), the whole to 160 bytes.
func TraceArgs(frame []byte) string {
	words := requestWords(frame)
	if len(words) < 2 {
		return ""
	}
	var b strings.Builder
	secret := secretArgs(words)
	for i, a := range words[1:] {
		if i > 0 {
			b.WriteByte(' ')
		}
		if secret[i+1] {
			b.WriteString("<redacted>")
			continue
		}
		if bytes.ContainsAny(a, "\n") || len(a) > 4*traceArgLen {
			b.WriteString("<script " + strconv.Itoa(len(a)) + " B>")
		} else {
			b.Write(cut(a, traceArgLen))
		}
		if b.Len() > traceArgsLen {
			return b.String()[:traceArgsLen] + "…"
		}
	}
	return b.String()
}

// secretArgs marks the words of a request that are passwords: every
// argument of AUTH, the password after HELLO's AUTH username.
func secretArgs(words [][]byte) map[int]bool {
	out := map[int]bool{}
	switch strings.ToUpper(string(words[0])) {
	case "AUTH":
		for i := 1; i < len(words); i++ {
			out[i] = true
		}
	case "HELLO":
		for i := 1; i+2 < len(words); i++ {
			if strings.EqualFold(string(words[i]), "AUTH") {
				out[i+2] = true
			}
		}
	}
	return out
}

// TraceReply renders a reply frame short: a simple string, an error or an
// integer as it is, a bulk string cut to 40 bytes, nil as "nil", an array
// as its size and first elements ("[2: 1 0]").
func TraceReply(frame []byte) string {
	v, _ := renderValue(frame, 0)
	return v
}

// requestWords splits a request frame into its words: an array of bulk
// strings, or an inline command.
func requestWords(frame []byte) [][]byte {
	if len(frame) == 0 || frame[0] != '*' {
		return bytes.Fields(frame)
	}
	n, rest, ok := header(frame)
	var out [][]byte
	for i := 0; ok && i < n; i++ {
		var l int
		if len(rest) == 0 || rest[0] != '$' {
			break
		}
		l, rest, ok = header(rest)
		if !ok || l < 0 || len(rest) < l+2 {
			break
		}
		out = append(out, rest[:l])
		rest = rest[l+2:]
	}
	return out
}

// renderValue renders the RESP value at the start of b (depth: nesting)
// and returns what follows it.
func renderValue(b []byte, depth int) (string, []byte) {
	if len(b) == 0 {
		return "", nil
	}
	switch b[0] {
	case '+', '-', ':', ',', '#', '(', '_':
		line, rest, _ := bytes.Cut(b[1:], []byte("\r\n"))
		if b[0] == '_' {
			return "nil", rest
		}
		return string(cut(line, traceArgLen)), rest
	case '$', '!', '=':
		l, rest, ok := header(b)
		if !ok || l < 0 {
			return "nil", rest
		}
		if len(rest) < l+2 {
			return string(cut(rest, traceArgLen)), nil
		}
		return strconv.Quote(string(cut(rest[:l], traceArgLen))), rest[l+2:]
	case '*', '%', '~', '>':
		return renderAggregate(b, depth)
	}
	return string(cut(b, traceArgLen)), nil
}

// renderAggregate renders an array, set, map or push: its size and, at the
// top level, its first few elements.
func renderAggregate(b []byte, depth int) (string, []byte) {
	n, rest, ok := header(b)
	if !ok || n < 0 {
		return "nil", rest
	}
	if b[0] == '%' {
		n *= 2
	}
	parts := []string{strconv.Itoa(n) + ":"}
	for i := 0; i < n && len(rest) > 0; i++ {
		var v string
		v, rest = renderValue(rest, depth+1)
		if depth == 0 && i < 4 {
			parts = append(parts, v)
		}
	}
	return "[" + strings.Join(parts, " ") + "]", rest
}

// header parses a "<type><int>\r\n" header.
func header(b []byte) (int, []byte, bool) {
	line, rest, found := bytes.Cut(b[1:], []byte("\r\n"))
	if !found {
		return 0, nil, false
	}
	n, err := strconv.Atoi(string(line))
	return n, rest, err == nil
}

// cut returns b cut to n bytes, marked when cut.
func cut(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(append([]byte(nil), b[:n]...), "…"...)
}
