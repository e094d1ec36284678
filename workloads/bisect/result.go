package bisect

import "time"

// State is how a visited release stands against the find.
//
// With n replays: no hit is Clean, a majority of hits (more than n/2) is
// HasIt, anything between is flaky. A flaky release is replayed n times
// more (once), and then has the find when its hits are more than the
// clean releases' by Fisher's exact test (one-sided P below Alpha, against
// the replays of every release classed clean so far, pooled: the rate of
// false flags this machine gives a release without the bug); otherwise it
// stays Flaky and is treated as a skip. A bisection thus never builds its
// answer on a release it could not class: a release that shows the find
// now and then, no more often than a clean one, tells nothing about where
// the bug came in.
//
// By rate (Config.Rate), for a regression that made a rare find common,
// the good release is the baseline (Clean unless most of its replays show
// the find), a release has the find when it shows it more often than the
// good release (one-sided Fisher P below Alpha), and is Clean, at the old
// rate, when the bad release shows it more often than it does; one that is
// neither is replayed n times more (once) and classed again, or stays
// Flaky.
type State string

const (
	// HasIt: most replays showed the find, or (widened) significantly more
	// than the clean releases.
	HasIt State = "has it"
	// Clean: no replay showed the find.
	Clean State = "clean"
	// Flaky: some replays showed the find, not enough to class it even
	// after widening; skipped.
	Flaky State = "flaky"
	// Skipped: the release could not run (its build failed, the driver
	// did not start, or it is outside the driver's supported range).
	Skipped State = "skipped"
)

// Release is one release of the bisection and what was learned of it.
type Release struct {
	Name string `json:"release"`
	// State is "" for a release not visited.
	State State `json:"state,omitempty"`
	// Hits counts the replays that showed the find, of Runs made.
	Hits int `json:"hits"`
	Runs int `json:"runs"`
	// Widened says the release was flaky on Replays and replayed as many
	// times again.
	Widened bool `json:"widened,omitempty"`
	// P is a widened release's Fisher P against the clean releases; by
	// rate, a release's against the good one (has it), or the bad
	// release's against it (clean). Against says which ("" no P).
	P       float64 `json:"p,omitempty"`
	Against string  `json:"against,omitempty"`
	// Why says why a release was skipped.
	Why string `json:"why,omitempty"`
	// Dirs are the replays' run directories.
	Dirs []string `json:"dirs,omitempty"`
}

// Result is what a bisection found.
type Result struct {
	// Subject names the library's subject (set by the caller, for the
	// table).
	Subject string `json:"subject,omitempty"`
	// Bug is the catalog entry whose signatures the replays had to show
	// (`lockcheck bisect --bug`; set by the caller), "" for the find's own.
	Bug string `json:"bug,omitempty"`
	// Good and Bad are the ends asked for.
	Good string `json:"good"`
	Bad  string `json:"bad"`
	// Replays is n.
	Replays int `json:"replays"`
	// Rate says the releases were classed by rate (Config.Rate).
	Rate bool `json:"rate,omitempty"`
	// Releases are every release from Good to Bad, oldest first.
	Releases []Release `json:"releases"`
	// Visits counts the releases replayed on (skipped ones among them).
	Visits int `json:"visits"`
	// LastClean and FirstHas are the boundary: the newest release found
	// clean and the oldest found to have the find ("" when not named).
	LastClean string `json:"last_clean,omitempty"`
	FirstHas  string `json:"first_has,omitempty"`
	// Untested are the releases between LastClean and FirstHas that could
	// not be classed (skipped, flaky): the find came in with one of them
	// or with FirstHas.
	Untested []string `json:"untested,omitempty"`
	// P is the boundary's one-sided Fisher P: FirstHas's hits against
	// LastClean's.
	P float64 `json:"p,omitempty"`
	// Why says why no boundary was named ("" when one was).
	Why string `json:"why,omitempty"`
	// Interrupted says ctx ended first.
	Interrupted bool `json:"interrupted,omitempty"`
	// Command reruns the bisection (set by the caller).
	Command string `json:"command,omitempty"`
	// Elapsed is how long it took (set by the caller).
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
}

// Found says the bisection named its boundary.
func (r *Result) Found() bool { return r.FirstHas != "" && r.LastClean != "" }

// Release returns the release named name, and whether r has it.
func (r *Result) Release(name string) (Release, bool) {
	for _, rel := range r.Releases {
		if rel.Name == name {
			return rel, true
		}
	}
	return Release{}, false
}
