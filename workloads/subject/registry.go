package subject

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// ErrUnknown is returned by Lookup for a name nobody registered.
var ErrUnknown = errors.New("unknown subject")

// Registry is a set of subjects by name, safe for concurrent use. The
// runner resolves a run's subject in one (workloads.Deps.Registry), the
// benchmark measures subjects looked up in one, and the CLI lists one
// (catalog.Subjects, which code outside this module can add to).
type Registry struct {
	mu sync.RWMutex
	m  map[string]Subject
}

// NewRegistry returns a registry holding subjects.
func NewRegistry(subjects ...Subject) (*Registry, error) {
	r := &Registry{m: make(map[string]Subject)}
	for _, s := range subjects {
		if err := r.Register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds s. It fails when the name is empty or taken, or when both
// Open and Configure are nil.
func (r *Registry) Register(s Subject) error {
	if s.Name == "" {
		return errors.New("register subject: empty name")
	}
	if s.Open == nil && s.Configure == nil {
		return fmt.Errorf("register subject %q: nil Open", s.Name)
	}
	if s.Open == nil {
		s.Open = s.Configure(OpenOptions{WatchdogLease: s.WatchdogLease})
	}
	if s.Kind == "" {
		s.Kind = KindUser
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[s.Name]; ok {
		return fmt.Errorf("register subject %q: name already registered", s.Name)
	}
	r.m[s.Name] = s
	return nil
}

// Lookup is LookupContext without a context of the caller's: resolving
// NAME@VERSION is still bounded (resolveTimeout).
func (r *Registry) Lookup(name string) (Subject, error) {
	return r.LookupContext(context.Background(), name)
}

// LookupContext returns the subject called name, or an error wrapping
// ErrUnknown that lists the known names. A name "A+B" that nobody
// registered is the mix of A and B (Mix). A name "NAME@VERSION" is NAME
// at that release of its library (Subject.Versions; "latest" asks its
// registry), fetched and built into the cache when it is not there yet,
// bounded by ctx: an error then wraps ErrRelease and names the release.
func (r *Registry) LookupContext(ctx context.Context, name string) (Subject, error) {
	r.mu.RLock()
	s, ok := r.m[name]
	r.mu.RUnlock()
	switch {
	case ok:
		return s, nil
	case strings.Contains(name, MixSeparator):
		return r.lookupMix(ctx, name)
	case strings.Contains(name, VersionSeparator):
		return r.lookupVersion(ctx, name)
	}
	return Subject{}, fmt.Errorf("%w %q (known: %v)", ErrUnknown, name, r.Names())
}

// All returns every subject, sorted by kind then name.
func (r *Registry) All() []Subject {
	r.mu.RLock()
	out := make([]Subject, 0, len(r.m))
	for _, s := range r.m {
		out = append(out, s)
	}
	r.mu.RUnlock()
	order := map[Kind]int{KindReference: 0, KindPeer: 1, KindExternal: 2, KindUser: 3, KindMutant: 4}
	sort.Slice(out, func(i, j int) bool {
		if oi, oj := order[out[i].Kind], order[out[j].Kind]; oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns every subject's name, in All's order.
func (r *Registry) Names() []string {
	var names []string
	for _, s := range r.All() {
		names = append(names, s.Name)
	}
	return names
}

// ByKind returns the subjects of kind k, in All's order.
func (r *Registry) ByKind(k Kind) []Subject {
	var out []Subject
	for _, s := range r.All() {
		if s.Kind == k {
			out = append(out, s)
		}
	}
	return out
}

// OnNodes returns a new registry holding r's subjects, with every subject
// that runs on N independent nodes (Subject.OnNodes: the redlock subject,
// the drivers of the redlock topology) bound to the nodes at addrs, which
// require password ("": none). r is not changed.
func (r *Registry) OnNodes(addrs []string, password string) (*Registry, error) {
	var bound []Subject
	for _, s := range r.All() {
		if s.OnNodes != nil {
			bound = append(bound, s.OnNodes(addrs, password))
		}
	}
	return r.With(bound...)
}

// With returns a new registry holding r's subjects with each of subjects
// added, replacing a subject of the same name (e.g. the redlock subject
// bound to a topology's nodes). r is not changed.
func (r *Registry) With(subjects ...Subject) (*Registry, error) {
	replace := map[string]bool{}
	for _, s := range subjects {
		replace[s.Name] = true
	}
	var all []Subject
	for _, s := range r.All() {
		if !replace[s.Name] {
			all = append(all, s)
		}
	}
	return NewRegistry(append(all, subjects...)...)
}
