package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// WireSuffix names a subject's wired twin (Config.Wire): "reentrant (wire)"
// is reentrant with every client's connection through a traced faults.Wire.
const WireSuffix = " (wire)"

// withWired returns subjects, each followed by its wired twin when wire is
// set, and which entries are wired.
func withWired(subjects []subject.Subject, wire bool) ([]subject.Subject, []bool) {
	if !wire {
		return subjects, make([]bool, len(subjects))
	}
	var out []subject.Subject
	var wired []bool
	for _, s := range subjects {
		w := s
		w.Name += WireSuffix
		w.Doc = fmt.Sprintf("`%s`, each client's connection through a faults.Wire of its own whose every event is recorded as a run records its wire trace", s.Name)
		out, wired = append(out, s, w), append(wired, false, true)
	}
	return out, wired
}

// dialer gives the clients of one window their options: the server's own,
// or (wired) each client's through a faults.Wire of its own, traced into
// one wireTrace, as a run's clients are. close stops the Wires; call it
// after the clients are closed.
type dialer struct {
	opts  *redis.Options
	trace *wireTrace // nil: direct
}

// newDialer returns a window's dialer on opts, through traced Wires when
// wired.
func newDialer(opts *redis.Options, wired bool) (*dialer, error) {
	d := &dialer{opts: opts}
	if !wired {
		return d, nil
	}
	t, err := newWireTrace()
	if err != nil {
		return nil, err
	}
	d.trace = t
	return d, nil
}

// options returns a copy of the server's options for client i, its address
// a new traced Wire's when the dialer is wired.
func (d *dialer) options(i int) (*redis.Options, error) {
	o := *d.opts
	if d.trace == nil {
		return &o, nil
	}
	w, err := faults.StartWire(fmt.Sprintf("c%d", i), o.Addr)
	if err != nil {
		return nil, err
	}
	d.trace.add(i, w)
	o.Addr = w.Addr()
	return &o, nil
}

// close stops the dialer's Wires and their trace; it returns the first
// error writing the trace met. Idempotent.
func (d *dialer) close() error {
	if d == nil || d.trace == nil {
		return nil
	}
	t := d.trace
	d.trace = nil
	return t.close()
}

// wireTrace is a window's wire trace, recorded as the runner records a
// run's: every event of every client's Wire as a model.WireEvent, kept in
// memory and appended as a JSON line to a file (a temporary one, removed
// at close), so the benchmark pays what a traced run pays.
type wireTrace struct {
	file *os.File
	base time.Time

	mu     sync.Mutex
	wires  []*faults.Wire
	out    *bufio.Writer
	enc    *json.Encoder
	events []model.WireEvent
	err    error
}

func newWireTrace() (*wireTrace, error) {
	f, err := os.CreateTemp("", "lockcheck-bench-wire-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("wire trace: %w", err)
	}
	t := &wireTrace{file: f, base: time.Now(), out: bufio.NewWriter(f)}
	t.enc = json.NewEncoder(t.out)
	t.enc.SetEscapeHTML(false)
	return t, nil
}

// add traces client i's Wire w from now on; close closes w.
func (t *wireTrace) add(i int, w *faults.Wire) {
	t.mu.Lock()
	t.wires = append(t.wires, w)
	t.mu.Unlock()
	w.Trace(func(ev faults.WireEvent) { t.write(i, ev) })
}

// write records ev, seen by client i's Wire.
func (t *wireTrace) write(i int, ev faults.WireEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := model.WireEvent{
		Kind: ev.Kind, Client: i, Process: i, Conn: ev.Conn,
		Cmd: ev.Cmd, Args: ev.Args, Reply: ev.Reply, Call: t.at(ev.Call), Return: t.at(ev.Return),
	}
	t.events = append(t.events, e)
	if t.err == nil {
		if err := t.enc.Encode(e); err != nil {
			t.err = fmt.Errorf("wire trace: %w", err)
		}
	}
}

// at is x on the window's clock (0 for the zero time), as the runner's.
func (t *wireTrace) at(x time.Time) int64 {
	if x.IsZero() {
		return 0
	}
	return max(int64(x.Sub(t.base)), 1)
}

// close closes every Wire (each waits for its goroutines, so nothing
// reports after), flushes the trace and removes its file.
func (t *wireTrace) close() error {
	t.mu.Lock()
	wires := t.wires
	t.mu.Unlock()
	var errs []error
	for _, w := range wires {
		errs = append(errs, w.Close())
	}
	t.mu.Lock()
	if t.err == nil {
		t.err = t.out.Flush()
	}
	errs = append(errs, t.err)
	t.events = nil
	t.mu.Unlock()
	errs = append(errs, t.file.Close(), os.Remove(t.file.Name()))
	return errors.Join(errs...)
}

// WireRatio is a subject's cycles/s through traced Wires ÷ its cycles/s
// direct, in one cell of the same rounds (Config.Wire): 1 − Ratio is what
// the wire trace costs.
type WireRatio struct {
	Subject   string
	Contended bool
	N         int
	Ratio     float64
}

// WireRatios divides every wired subject's cycles/s by its direct twin's,
// in every cell both have, subject by subject in table order.
func (r *Report) WireRatios() []WireRatio {
	var out []WireRatio
	for _, s := range r.Subjects {
		base, ok := strings.CutSuffix(s.Name, WireSuffix)
		if !ok {
			continue
		}
		for _, c := range r.columns() {
			w, ok1 := r.Row(c.contended, s.Name, c.n)
			d, ok2 := r.Row(c.contended, base, c.n)
			if !ok1 || !ok2 || d.CyclesPerSec == 0 {
				continue
			}
			out = append(out, WireRatio{Subject: base, Contended: c.contended, N: c.n, Ratio: w.CyclesPerSec / d.CyclesPerSec})
		}
	}
	return out
}

// wireTable shows WireRatios, one row per subject, one column per cell;
// ok is false when nothing was measured wired.
func (r *Report) wireTable() (table, bool) {
	t := table{title: "Wire trace overhead: cycles/s through a traced Wire ÷ direct, same rounds (1.00×: free; 0.90×: the trace costs 10%)", header: []string{"subject"}}
	cols := r.columns()
	for _, c := range cols {
		t.header = append(t.header, r.columnLabel(c))
	}
	idx := map[string]int{}
	for _, wr := range r.WireRatios() {
		i, ok := idx[wr.Subject]
		if !ok {
			i = len(t.rows)
			idx[wr.Subject] = i
			t.rows = append(t.rows, append([]string{wr.Subject}, dashes(len(cols))...))
		}
		for j, c := range cols {
			if c.contended == wr.Contended && c.n == wr.N {
				t.rows[i][j+1] = fmt.Sprintf("%.2f×", wr.Ratio)
			}
		}
	}
	return t, len(t.rows) > 0
}
