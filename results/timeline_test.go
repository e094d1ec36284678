package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results/internal/synth"
)

// pageData decodes the data of a timeline page.
func pageData(t *testing.T, page []byte) *timelineData {
	t.Helper()
	const open = `<script type="application/json" id="timeline-data">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		t.Fatal("the page has no timeline data")
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	var d timelineData
	if err := json.Unmarshal(rest[:j], &d); err != nil {
		t.Fatalf("timeline data: %v", err)
	}
	return &d
}

// writePage writes tl and returns the page and its data.
func writePage(t *testing.T, tl Timeline) ([]byte, *timelineData) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTimeline(&buf, tl); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), pageData(t, buf.Bytes())
}

// opKey is what the page says of one op.
func opKey(lock string, p int, kind string, out, call, ret, token int64, err string) string {
	return fmt.Sprintf("%s p%d %s %d [%d,%d] t%d %q", lock, p, kind, out, call, ret, token, err)
}

// pageOps are the keys of the page's ops, record by record.
func pageOps(d *timelineData) []string {
	var out []string
	for b := 0; b < len(d.Ops); b += opStride {
		r := d.Ops[b : b+opStride]
		lock := d.Locks[d.Lanes[r[0]].Lock]
		out = append(out, opKey(lock, int(r[1]), d.Kinds[r[2]], r[3], r[4], r[4]+r[5], r[6], d.Errs[r[7]]))
	}
	return out
}

// multiLockHistory is a synthetic run on three locks with a few ops of
// every kind and mode besides.
func multiLockHistory() *model.History {
	h := synth.Locks(1, 5*time.Second, 3)
	end := int64(5100 * time.Millisecond)
	h.Ops = append(h.Ops,
		model.Op{Process: 900, Lock: "RW", Kind: model.Acquire, Mode: model.ModeRead, Call: end, Return: end + 10, Outcome: model.OK, Token: 7},
		model.Op{Process: 900, Lock: "RW", Kind: model.Expire, Call: end + 20, Return: end + 40, Outcome: model.OK},
		model.Op{Process: 901, Lock: "RW", Kind: model.Acquire, Mode: model.ModeWrite, Call: end + 5, Return: end + 50, Outcome: model.Fail, Error: "not </script> obtained"},
	)
	return h
}

// Every op of a history on several locks is on the page once, on a lane
// of its lock that holds its process, and a lane's processes never
// overlap.
func TestTimelineHasEveryOp(t *testing.T) {
	h := multiLockHistory()
	_, d := writePage(t, Timeline{History: h, Report: model.Check(h, model.Options{})})
	var want []string
	for _, o := range h.Ops {
		want = append(want, opKey(o.Lock, o.Process, kindName(&o), outcomeCode(o.Outcome), o.Call, o.Return, o.Token, o.Error))
	}
	got := pageOps(d)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the page has %d ops, the history %d, or they differ", len(got), len(want))
	}
	if !slices.Equal(d.Locks, []string{"L0", "L1", "L2", "RW"}) {
		t.Errorf("locks %v", d.Locks)
	}
	for b := 0; b < len(d.Ops); b += opStride {
		if l := d.Lanes[d.Ops[b]]; !slices.Contains(l.Procs, int(d.Ops[b+1])) {
			t.Fatalf("op %d on lane %+v, which does not hold p%d", b/opStride, l, d.Ops[b+1])
		}
	}
	for _, l := range d.Lanes {
		for i := 2; i < len(l.Spans); i += 2 {
			if l.Spans[i] <= l.Spans[i-1] {
				t.Errorf("lane %v: spans overlap: %v", l.Procs, l.Spans)
			}
		}
	}
	if n := len(d.Holds) / holdStride; n != len(model.Holds(h)) || n == 0 {
		t.Errorf("%d holds on the page, %d in the history", n, len(model.Holds(h)))
	}
}

// Fault windows are on the page, a client-side one on its process's lanes
// only; findings are placed over their ops.
func TestTimelineMarksFaultsAndFindings(t *testing.T) {
	h := multiLockHistory()
	ex := model.Example{Lock: "L1", Summary: "two holders", Cause: "implementation bug", Ops: []model.Op{h.Ops[len(h.Ops)/2], h.Ops[len(h.Ops)/2+1]}}
	_, d := writePage(t, Timeline{History: h, Report: model.Report{Verdict: model.Invalid, Results: []model.Result{
		{Checker: model.CheckLinearizable, Verdict: model.Valid},
		{Checker: model.CheckMutualExclusion, Verdict: model.Invalid, Examples: []model.Example{ex}},
	}}})
	if len(d.Faults) != 2 || d.Faults[0].Name != synth.Fault.Name || !d.Faults[0].All || d.Faults[1].Name != synth.Stall.Name {
		t.Fatalf("faults %+v", d.Faults)
	}
	stall := d.Faults[1]
	if stall.All || len(stall.Bands) == 0 {
		t.Fatalf("the stall is not on its process's lanes: %+v", stall)
	}
	for _, b := range stall.Bands {
		if !slices.Contains(d.Lanes[b[0]].Procs, synth.Stall.Procs[0]) || b[1] < stall.Start || b[2] > stall.End {
			t.Errorf("stall band %v on lane %+v", b, d.Lanes[b[0]])
		}
	}
	if len(d.Findings) != 1 {
		t.Fatalf("findings %+v", d.Findings)
	}
	f := d.Findings[0]
	if f.Checker != model.CheckMutualExclusion || d.Locks[f.Lock] != "L1" || f.Cause != ex.Cause || len(f.Ops) != 2 ||
		f.From != min(ex.Ops[0].Call, ex.Ops[1].Call) || f.To != max(ex.Ops[0].Return, ex.Ops[1].Return) {
		t.Fatalf("finding %+v", f)
	}
	keys := pageOps(d)
	for i, o := range ex.Ops {
		if want := opKey(o.Lock, o.Process, kindName(&o), outcomeCode(o.Outcome), o.Call, o.Return, o.Token, o.Error); keys[f.Ops[i]] != want {
			t.Errorf("finding's op %d is %s, want %s", i, keys[f.Ops[i]], want)
		}
	}
}

// The header names the run: subject, release, seed, commit, verdict, the
// expectation, each checker; nothing of porcupine's page.
func TestTimelineHeader(t *testing.T) {
	h := multiLockHistory()
	rep := model.Check(h, model.Options{})
	exp := Expectation{Scenario: "client-stall", Subject: "reentrant", Label: "valid", Verdict: model.Valid}
	j := exp.Judge(rep)
	page, _ := writePage(t, Timeline{Subject: "redisson", Release: "3.44.0", Workload: "mixed", Seed: 105, Commit: "0123abcd",
		History: h, Report: rep, Expected: &j, Links: []TimelineLink{{Name: "porcupine", Href: LinearizabilityFile}}})
	s := html.UnescapeString(string(page))
	for _, want := range []string{"redisson", "3.44.0", "seed <b id=\"seed\">105</b>", "commit <b id=\"commit\">0123abcd</b>", string(rep.Verdict),
		j.Phrase(rep), model.CheckLinearizable + ": ", `href="` + LinearizabilityFile, "2 fault windows"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, not := range []string{"Porcupine", "jump to first error", "http://", "https://"} {
		if strings.Contains(s, not) {
			t.Errorf("the page has %q", not)
		}
	}
	page, _ = writePage(t, Timeline{History: h, Report: rep})
	if !bytes.Contains(page, []byte(`commit <b id="commit">unknown</b>`)) || !bytes.Contains(page, []byte(`seed <b id="seed">unknown</b>`)) {
		t.Error("a run without a commit or a seed does not say unknown")
	}
}

// A 60 s history of three locks with over 200k ops makes one page, every
// op on it, within a loose size budget.
func TestTimelineOf200kOps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 60 s history")
	}
	h := synth.Locks(1, 60*time.Second, 3)
	if len(h.Ops) < 200_000 {
		t.Fatalf("the synthetic history has %d ops, want at least 200000", len(h.Ops))
	}
	page, d := writePage(t, Timeline{Subject: "synthetic", History: h, Report: model.Report{Verdict: model.Valid}})
	if n := len(d.Ops) / opStride; n != len(h.Ops) {
		t.Errorf("the page has %d ops, the history %d", n, len(h.Ops))
	}
	if len(page) > 30<<20 {
		t.Errorf("the page is %d bytes, want under 30 MB", len(page))
	}
	t.Logf("%d ops: %.1f MB, %.0f bytes an op", len(h.Ops), float64(len(page))/(1<<20), float64(len(page))/float64(len(h.Ops)))
}

// A run directory's timeline links porcupine's view of the illegal
// segments when the linearizable checker says invalid; a valid run has no
// porcupine page.
func TestWriteRunLinksLinearizabilityOnlyWhenInvalid(t *testing.T) {
	dir := t.TempDir()
	writeSynthRun(t, dir, synthHistory(42, 2*time.Second))
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LinearizabilityFile)); err == nil || bytes.Contains(page, []byte(LinearizabilityFile)) {
		t.Errorf("a valid run has %s or links it", LinearizabilityFile)
	}
	bad := &model.History{Header: model.Header{Version: model.FormatVersion}, Ops: []model.Op{
		{Process: 1, Lock: "L", Kind: model.Acquire, Call: 0, Return: 10, Lease: int64(time.Minute), Outcome: model.OK},
		{Process: 2, Lock: "L", Kind: model.Acquire, Call: 20, Return: 30, Lease: int64(time.Minute), Outcome: model.OK},
	}}
	dir = t.TempDir()
	_, rep := writeSynthRun(t, dir, bad)
	if r, _ := rep.Result(model.CheckLinearizable); r.Verdict != model.Invalid {
		t.Fatalf("linearizable: %s", r.Verdict)
	}
	porc, err := os.ReadFile(filepath.Join(dir, LinearizabilityFile))
	if err != nil {
		t.Fatal(err)
	}
	if page, _ = os.ReadFile(filepath.Join(dir, HTMLFile)); !bytes.Contains(page, []byte(`href="`+LinearizabilityFile)) || len(porc) == 0 {
		t.Errorf("the timeline of an invalid run does not link %s", LinearizabilityFile)
	}
}

func TestCommitOf(t *testing.T) {
	for _, tc := range []struct {
		s    []debug.BuildSetting
		want string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, "abc"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc"}}, "abc (modified)"},
	} {
		if got := commitOf(tc.s); got != tc.want {
			t.Errorf("commitOf(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestShortCommit(t *testing.T) {
	for _, tc := range []struct{ in, short, at string }{
		{"", "", ""},
		{"0123456789abcdef0123", "0123456789ab", " at commit 0123456789ab"},
		{"0123456789abcdef0123 (modified)", "0123456789ab (modified)", " at commit 0123456789ab (modified)"},
		{"abc1234", "abc1234", " at commit abc1234"},
	} {
		if got := ShortCommit(tc.in); got != tc.short {
			t.Errorf("ShortCommit(%q) = %q, want %q", tc.in, got, tc.short)
		}
		if got := AtCommit(tc.in); got != tc.at {
			t.Errorf("AtCommit(%q) = %q, want %q", tc.in, got, tc.at)
		}
	}
}
