package results

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

func tableSummaries() []Summary {
	return []Summary{
		{
			Subject: "reentrant", Workload: "mixed",
			Report: model.Report{Verdict: model.Valid, Results: []model.Result{
				{Checker: model.CheckLiveness, Verdict: model.Valid},
				{Checker: model.CheckLinearizable, Verdict: model.Valid},
			}},
			Stats: Stats{Ops: Counts{OK: 1200, Fail: 30, Info: 2}, GrantsPerSec: 412.5,
				Acquire: Latency{P50: 1200 * time.Microsecond, P99: 15 * time.Millisecond, Max: 1100 * time.Millisecond}},
		},
		{
			Subject: "fair", Workload: "mixed",
			Report: model.Report{Verdict: model.Invalid, Results: []model.Result{
				{Checker: model.CheckLinearizable, Verdict: model.Valid},
				{Checker: model.CheckFairness, Verdict: model.Invalid},
				{Checker: "custom", Verdict: model.Unknown},
			}},
		},
	}
}

func TestRender(t *testing.T) {
	sums := tableSummaries()
	if got, want := Checkers(sums), []string{model.CheckLinearizable, model.CheckFairness, model.CheckLiveness, "custom"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Checkers = %v, want %v", got, want)
	}
	var buf bytes.Buffer
	if err := Render(&buf, sums); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var reentrant, fair string
	for _, l := range lines {
		switch {
		case strings.Contains(l, "reentrant"):
			reentrant = l
		case strings.Contains(l, "fair"):
			fair = l
		}
	}
	for _, want := range []string{"1200", "30", "412.5", "1.2ms", "15ms", "1.1s", "valid"} {
		if !strings.Contains(reentrant, want) {
			t.Errorf("reentrant row lacks %q: %q", want, reentrant)
		}
	}
	// The fair lock's run has no liveness result: "-" in that column.
	for _, want := range []string{"invalid", "unknown", " - "} {
		if !strings.Contains(fair, want) {
			t.Errorf("fair row lacks %q: %q", want, fair)
		}
	}
	for _, want := range []string{"subject", "grants/s", "acquire p50", model.CheckFairness, "verdict"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks header %q:\n%s", want, out)
		}
	}
}

func TestRenderMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, tableSummaries()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, separator and two rows, got:\n%s", buf.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
			t.Errorf("not a Markdown table row: %q", l)
		}
	}
	if !strings.Contains(lines[1], "---") {
		t.Errorf("no separator row: %q", lines[1])
	}
}

func TestWriteJSON(t *testing.T) {
	sums := tableSummaries()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sums); err != nil {
		t.Fatal(err)
	}
	var got []Summary
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sums) {
		t.Errorf("JSON does not round-trip:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteJSON(&buf, nil); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("WriteJSON(nil) = %q, %v; want []", buf.String(), err)
	}
}
