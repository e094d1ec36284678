package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// line is one JSON Lines record: exactly one field is set.
type line struct {
	Header *Header `json:"header,omitempty"`
	Op     *Op     `json:"op,omitempty"`
	Fault  *Fault  `json:"fault,omitempty"`
	End    *End    `json:"end,omitempty"`
}

// Recorder appends a history to an io.Writer as JSON Lines while a run goes,
// and keeps it in memory. Each record is written with a single Write call
// ending in '\n', so a crash leaves at most a truncated last line.
// A Recorder is safe for concurrent use.
type Recorder struct {
	mu  sync.Mutex
	w   io.Writer
	h   History
	buf bytes.Buffer
	err error
}

// NewRecorder writes hdr as the first line to w (nil: memory only) and
// returns a Recorder for the rest. hdr.Version is set to FormatVersion.
func NewRecorder(w io.Writer, hdr Header) (*Recorder, error) {
	hdr.Version = FormatVersion
	r := &Recorder{w: w, h: History{Header: hdr}}
	if err := r.write(line{Header: &hdr}); err != nil {
		return nil, err
	}
	return r, nil
}

// Op records one completed op. It returns the first write error, sticky.
func (r *Recorder) Op(o Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Ops = append(r.h.Ops, o)
	return r.write(line{Op: &o})
}

// Fault records one fault window (usually when it heals; a window whose End
// is 0 was never healed).
func (r *Recorder) Fault(f Fault) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Faults = append(r.h.Faults, f)
	return r.write(line{Fault: &f})
}

// End records the end of the run: the history's last line (see
// Header.Ends). Nothing may be recorded after it.
func (r *Recorder) End(e End) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.End = &e
	return r.write(line{End: &e})
}

// History returns a copy of everything recorded so far.
func (r *Recorder) History() *History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.h
	h.Ops = append([]Op(nil), r.h.Ops...)
	h.Faults = append([]Fault(nil), r.h.Faults...)
	return &h
}

// Err returns the first write error, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// write encodes l and writes it; called with r.mu held (or before sharing).
func (r *Recorder) write(l line) error {
	if r.err != nil || r.w == nil {
		return r.err
	}
	r.buf.Reset()
	if err := json.NewEncoder(&r.buf).Encode(l); err != nil { // Encode appends '\n'
		r.err = fmt.Errorf("model: encode history line: %w", err)
		return r.err
	}
	if _, err := r.w.Write(r.buf.Bytes()); err != nil {
		r.err = fmt.Errorf("model: write history: %w", err)
	}
	return r.err
}

// WriteHistory writes h as JSON Lines: the header, the ops, then the faults.
func WriteHistory(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	r, err := NewRecorder(bw, h.Header)
	if err != nil {
		return err
	}
	for _, o := range h.Ops {
		if err := r.Op(o); err != nil {
			return err
		}
	}
	for _, f := range h.Faults {
		if err := r.Fault(f); err != nil {
			return err
		}
	}
	if h.End != nil {
		if err := r.End(*h.End); err != nil {
			return err
		}
	}
	return bw.Flush()
}
