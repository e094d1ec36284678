package results

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// Part is one implementation's share of a mixed fleet's run (a history whose
// header names several parts, model.MetaParts): what its processes did and
// which errors they saw, so that a report says which implementation did what.
type Part struct {
	Subject   string `json:"subject"`
	Processes int    `json:"processes"`
	// Acquires and Releases count its lock ops by outcome.
	Acquires Counts `json:"acquires"`
	Releases Counts `json:"releases"`
	// Sections counts its critical sections; RejectedWrites those whose
	// write the fenced register refused.
	Sections       int `json:"sections"`
	RejectedWrites int `json:"rejected_writes,omitempty"`
	// HandoffsIn counts grants to its processes that took the lock over
	// from a process of another implementation (see handoffs); HandoffP50
	// is their median latency, from that release's call to the grant.
	HandoffsIn int           `json:"handoffs_in"`
	HandoffP50 time.Duration `json:"handoff_p50_ns,omitempty"`
	// Errors are the error texts its ops saw, most frequent first (run-
	// specific key prefixes and numbers masked), at most maxPartErrors.
	Errors []ErrorCount `json:"errors,omitempty"`
}

// ErrorCount is how often one error text was seen.
type ErrorCount struct {
	Error string `json:"error"`
	Count int    `json:"count"`
}

const maxPartErrors = 4

// ComputeParts splits a mixed fleet's history by implementation; it returns
// nil for a history of one implementation.
func ComputeParts(h *model.History) []Part {
	if h == nil {
		return nil
	}
	names := h.Header.Parts()
	if len(names) < 2 {
		return nil
	}
	parts := make([]Part, len(names))
	procs := make([]map[int]bool, len(names))
	errs := make([]map[string]int, len(names))
	for i, n := range names {
		parts[i].Subject = n
		procs[i], errs[i] = map[int]bool{}, map[string]int{}
	}
	for _, o := range h.Ops {
		if o.Process < 0 {
			continue
		}
		i := model.PartIndex(o, len(names))
		p := &parts[i]
		procs[i][o.Process] = true
		switch o.Kind {
		case model.Acquire:
			p.Acquires.add(o.Outcome)
		case model.Release:
			p.Releases.add(o.Outcome)
		case model.Section:
			p.Sections++
			if o.Outcome == model.Fail {
				p.RejectedWrites++
			}
		}
		if o.Error != "" && o.Kind != model.Section {
			errs[i][maskError(o.Error)]++
		}
	}
	for i := range parts {
		parts[i].Processes = len(procs[i])
		parts[i].Errors = topErrors(errs[i])
	}
	handoffs(h, parts)
	return parts
}

var (
	keyPrefixRE = regexp.MustCompile(`lockcheck:[0-9a-f]{8}:`)
	shaRE       = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	numberRE    = regexp.MustCompile(`[0-9]+`)
)

// maskError keeps what two occurrences of the same error share: run key
// prefixes, script digests and numbers are masked.
func maskError(e string) string {
	e = keyPrefixRE.ReplaceAllString(e, "")
	e = shaRE.ReplaceAllString(e, "<sha>")
	e = numberRE.ReplaceAllString(e, "N")
	if len(e) > 160 {
		e = e[:157] + "..."
	}
	return e
}

func topErrors(m map[string]int) []ErrorCount {
	var out []ErrorCount
	for e, n := range m {
		out = append(out, ErrorCount{e, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Error < out[j].Error
	})
	if len(out) > maxPartErrors {
		out = out[:maxPartErrors]
	}
	return out
}

// writeParts writes one paragraph per implementation of a mixed fleet
// (grouped: its owners shared client processes, which take the parts in
// turn).
func writeParts(w io.Writer, subject string, parts []Part, grouped bool, bullet string) {
	if len(parts) == 0 {
		return
	}
	if grouped {
		fmt.Fprintf(w, "%s: implementations alternate by client process (client process c runs part (c-1) %% %d, with all its threads)\n", subject, len(parts))
	} else {
		fmt.Fprintf(w, "%s: implementations alternate by process id (p %% %d)\n", subject, len(parts))
	}
	for _, p := range parts {
		a, r := p.Acquires, p.Releases
		fmt.Fprintf(w, "%s%s: %d processes; acquires %d ok, %d fail, %d info; releases %d ok, %d fail, %d info; %d sections",
			bullet, p.Subject, p.Processes, a.OK, a.Fail, a.Info, r.OK, r.Fail, r.Info, p.Sections)
		if p.RejectedWrites > 0 {
			fmt.Fprintf(w, " (%d writes rejected)", p.RejectedWrites)
		}
		fmt.Fprintf(w, "; %d hand-offs from the other implementations", p.HandoffsIn)
		if p.HandoffsIn > 0 {
			fmt.Fprintf(w, " (p50 %s)", FormatDuration(p.HandoffP50))
		}
		fmt.Fprintln(w)
		for _, e := range p.Errors {
			fmt.Fprintf(w, "%s    %d× %s\n", bullet, e.Count, strings.TrimSpace(e.Error))
		}
	}
}
