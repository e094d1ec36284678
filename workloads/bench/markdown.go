package bench

import (
	"fmt"
	"io"
)

// WriteMarkdown writes the report as a Markdown document: the run, the
// subjects, every table, and what the contended columns mean.
func (r *Report) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# lockcheck bench, %s\n\n%s\n\n", r.Started.Format("2006-01-02"), r.headline())
	workers := "Each worker is one simulated process with its own go-redis client (MaxRetries -1), Maker and handle."
	if r.Threads {
		workers = threadsNote
	}
	ew.printf("Every subject ran every cell in %d interleaved rounds of %v (subject order rotated each round); "+
		"cycles/s are medians over rounds, latencies and counts pool all rounds. %s\n\n", r.Rounds, r.Window, workers)
	ew.printf("Subjects:\n\n")
	for _, s := range r.Subjects {
		ew.printf("- `%s`: %s\n", s.Name, s.Doc)
	}
	ew.printf("\n")
	for _, t := range r.tables() {
		ew.printf("## %s\n\n", t.title)
		if ew.err == nil {
			ew.err = t.render(w, true)
		}
		ew.printf("\n")
	}
	for _, n := range r.Notes {
		ew.printf("Note: %s.\n\n", n)
	}
	ew.printf("%s", contendedNotes)
	if r.measuredServer() {
		ew.printf("%s", serverNotes)
	}
	if r.Wire {
		ew.printf("%s", wireNotes)
	}
	return ew.err
}

const contendedNotes = `Contended columns:

- **of ceiling**: cycles/s ÷ (no-op script calls/s at the same worker count ÷ 2); one cycle needs at least two round trips.
- **owner change**: share of grants that went to a different worker than the previous holder. A polling lock mostly re-grants to the worker that just unlocked.
- **hand-off p50/p99**: from the previous holder's Unlock call to the grant of a *different* worker that had called Lock before that Unlock (same-owner re-grants excluded).
- **wait p50**: median over workers of each worker's p50 acquire wait; **wait p99**: the worst worker's p99; **max wait**: the slowest worker's longest wait, the starvation figure. A request still waiting when a window ends counts its wait so far.
- **grants/worker**: fewest–most grants of one worker over all rounds (0: a worker never got the lock).
- **overtakes**: grants that went past a request surely waiting since before they were requested (for a FIFO lock reporting its enqueue time: enqueued; for others: Lock called). Zero for a fair lock without faults; for the others it measures how far from FIFO they are.
`

const threadsNote = "Each cell's N workers are N threads of one client process, as an application runs one client: " +
	"a Go lock's N goroutines share one Maker and go-redis client (pool of N connections); " +
	"an external subject is one driver process hosting N owners, each running the driver-side cycle on its own thread (the pipe is not counted)."

const serverNotes = `
Server columns:

- **server cost per cycle**: first Redis's main-thread CPU time (INFO cpu ` + "`used_cpu_{user,sys}_main_thread`" + `, read before and after each window) divided by the window's cycles: everything one Redis core did for the lock, I/O and parsing included (scripts, pub/sub, watchdog renewals, failed attempts under contention); then its scripts' execution time alone (INFO commandstats ` + "`usec`" + ` of eval/evalsha/fcall, reset with CONFIG RESETSTAT before each window), which includes the commands they call. The commands per cycle count those the scripts call too (commandstats counts both).
- **share of the server limit**: cycles/s ÷ (1e6 ÷ CPU µs per cycle), the cycles/s one Redis core could serve if it did nothing but serve this lock's cycles; in brackets the share of the no-op cycle ceiling (calls/s ÷ 2).
`

const wireNotes = `
Wire trace overhead:

- **` + "`S" + WireSuffix + "`" + `** is subject S measured in the same rounds with each client's connection (a driver process's too) through a faults.Wire of its own, the RESP proxy a run puts in front of every client, every connection's open and close and every command with its reply recorded as a run records its wire trace (kept in memory and written as JSON Lines to a file).
- **wire trace overhead**: S` + WireSuffix + `'s cycles/s ÷ S's, cell by cell; 1 − the ratio is what the proxy and its trace cost a lock cycle. The ceiling stays direct.
`

// errWriter keeps the first write error so a sequence of writes reads plainly.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
