package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrMalformed is wrapped by ReadHistory's errors for lines that are not
// valid records (and, with ErrInvalid, for records that cannot occur).
var ErrMalformed = errors.New("model: malformed history line")

// ErrNoHeader is wrapped by ReadHistory's error when the first record is
// not a header (or a header comes later): the file is not a history.
var ErrNoHeader = errors.New("model: history has no header")

// reader decodes a history one line at a time into compact ops: the
// strings every op repeats (lock names, kinds, outcomes, errors) are stored
// once, so memory grows with the number of ops, not with their text.
type reader struct {
	h      *History
	n      int  // current 1-based line number
	header bool // the header was read
	intern map[string]string
}

// ReadHistory reads a JSON Lines history. The first record must be the
// header (ErrNoHeader otherwise). A last line without a trailing newline
// that does not parse (a run that crashed mid-write) is dropped and reported
// in History.Truncated; any other line that does not parse is an error
// wrapping ErrMalformed, and a record that parses but cannot occur (see
// ErrInvalid) one wrapping both; either names its 1-based line number.
// Blank lines are skipped. Cross-record checks are History.Validate's.
func ReadHistory(r io.Reader) (*History, error) {
	return readHistory(r, 0)
}

// ReadFile reads a history file with ReadHistory, sizing its op slice from
// a first pass that counts lines, so the ops are allocated once.
func ReadFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := countLines(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h, err := readHistory(f, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 1<<16)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n + 1, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

func readHistory(r io.Reader, sizeHint int) (*History, error) {
	rd := &reader{h: &History{}, intern: map[string]string{}}
	if sizeHint > 0 {
		rd.h.Ops = make([]Op, 0, sizeHint)
		rd.h.lines = make([]int32, 0, sizeHint)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	for rd.n = 1; ; rd.n++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			b, err = readLong(br, b)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("model: read history line %d: %w", rd.n, err)
		}
		last := err != nil // io.EOF: no trailing newline (or nothing at all)
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if perr := rd.parse(t); perr != nil {
				var syn *json.SyntaxError
				if last && (errors.As(perr, &syn) || errors.Is(perr, io.ErrUnexpectedEOF)) {
					rd.h.Truncated = &Truncation{Line: rd.n, Bytes: len(b)}
					return rd.h, nil
				}
				return nil, perr
			}
		}
		if last {
			return rd.h, nil
		}
	}
}

// readLong finishes a line longer than the reader's buffer.
func readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	b := append([]byte(nil), first...)
	for {
		more, err := br.ReadSlice('\n')
		b = append(b, more...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return b, err
		}
	}
}

// parse decodes one non-blank line into rd.h. An op line the fast parser
// takes is appended without a trip through the heap (one Op's worth of
// garbage a line is most of what reading a long history allocates).
func (rd *reader) parse(b []byte) error {
	if op, fast := parseOpLine(b, rd.strBytes); fast { // its strings are interned already
		if err := rd.misplaced(); err != nil {
			return err
		}
		return rd.addOp(&op)
	}
	var l line
	if err := decodeStrict(b, &l); err != nil {
		return rd.malformed(err)
	}
	set := 0
	for _, isSet := range []bool{l.Header != nil, l.Op != nil, l.Fault != nil, l.End != nil} {
		if isSet {
			set++
		}
	}
	switch {
	case set != 1:
		return rd.malformed(fmt.Errorf("want exactly one of header, op, fault, end; got %d", set))
	case l.Header != nil && rd.header:
		return fmt.Errorf("%w %d: a second header", ErrMalformed, rd.n)
	case l.Header != nil:
		rd.header = true
		rd.h.Header = *l.Header
		return nil
	case rd.misplaced() != nil:
		return rd.misplaced()
	case l.End != nil:
		if err := l.End.validate(); err != nil {
			return rd.invalid(err)
		}
		rd.h.End = l.End
	case l.Op != nil:
		*l.Op = rd.compact(*l.Op)
		return rd.addOp(l.Op)
	default:
		if err := l.Fault.validate(); err != nil {
			return rd.invalid(err)
		}
		rd.h.Faults = append(rd.h.Faults, *l.Fault)
		rd.h.faultLines = append(rd.h.faultLines, int32(rd.n))
	}
	return nil
}

// misplaced is the error of a record other than the header read before
// the header or after the end record (nil: in its place).
func (rd *reader) misplaced() error {
	switch {
	case !rd.header:
		return fmt.Errorf("%w %d: %w: the first record must be the header", ErrMalformed, rd.n, ErrNoHeader)
	case rd.h.End != nil:
		return fmt.Errorf("%w %d: a record after the end record", ErrMalformed, rd.n)
	}
	return nil
}

// addOp validates an op record and appends it to rd.h.
func (rd *reader) addOp(o *Op) error {
	if err := o.validate(); err != nil {
		return rd.invalid(err)
	}
	rd.h.Ops = append(rd.h.Ops, *o)
	rd.h.lines = append(rd.h.lines, int32(rd.n))
	return nil
}

// decodeStrict decodes one JSON value from b into v: a field v does not
// have (a misspelt "leas") is an error, and so is anything after the value.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("data after the record at offset %d", dec.InputOffset())
	}
	return nil
}

// compact makes o's strings share one copy per distinct value.
func (rd *reader) compact(o Op) Op {
	o.Lock = rd.str(o.Lock)
	o.Kind = Kind(rd.str(string(o.Kind)))
	o.Outcome = Outcome(rd.str(string(o.Outcome)))
	o.Resource = rd.str(o.Resource)
	o.Error = rd.str(o.Error)
	return o
}

// strBytes is str of b, copying b only for a value not seen before.
func (rd *reader) strBytes(b []byte) string {
	if v, ok := rd.intern[string(b)]; ok {
		return v
	}
	return rd.str(string(b))
}

func (rd *reader) str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := rd.intern[s]; ok {
		return v
	}
	if len(rd.intern) < 1<<16 { // bound the table: error texts may all differ
		rd.intern[s] = s
	}
	return s
}

func (rd *reader) malformed(err error) error {
	return fmt.Errorf("%w %d: %w", ErrMalformed, rd.n, err)
}

func (rd *reader) invalid(err error) error {
	return fmt.Errorf("%w %d: %w: %w", ErrMalformed, rd.n, ErrInvalid, err)
}
