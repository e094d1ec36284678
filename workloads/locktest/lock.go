package locktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Lock describes a lock under test: how to make it and what it claims.
type Lock struct {
	// Name names the lock in reports, run directories and rerun commands
	// (letters, digits, '-', '_' and '.').
	Name string
	// New opens the lock's client on rdb within ctx: a Maker of one handle
	// per (lock name, owner). rdb retries nothing on its own (the lock
	// decides its own retries) and stays open when the Maker is closed. A
	// hold asked for with lease <= 0 must last lease: renewed until
	// unlocked when Watchdog is set, else it runs out lease after the
	// grant. Making a handle must not talk to Redis.
	New func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error)
	// Reentrant claims that the handle holding the lock may lock it again
	// (a hold count): plans then reenter.
	Reentrant bool
	// Fenced claims that every handle implements impl.Fenced with tokens
	// that strictly increase from grant to grant: the fencing checker then
	// judges the writes to the protected resource.
	Fenced bool
	// Fair claims that grants follow request order: the fairness checker
	// then applies.
	Fair bool
	// Watchdog claims that holds asked for with lease <= 0 are renewed
	// until unlocked. Without it the lock has a fixed lease, and no plan
	// holds it longer than a quarter of that lease.
	//
	// Run and Hunt serve the lock in processes of their own, one per
	// client (this test binary, with -locktest.serve): a client stall is a
	// SIGSTOP of that process wherever its threads are, renewals included,
	// and a crash kills it. The lock needs no hook for that.
	Watchdog bool
}

// validate reports what is wrong with l.
func (l Lock) validate() error {
	switch {
	case l.Name == "":
		return errors.New("locktest: Lock.Name is empty")
	case strings.Trim(l.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "":
		return fmt.Errorf("locktest: Lock.Name %q: want letters, digits, '-', '_' and '.' only", l.Name)
	case l.New == nil:
		return fmt.Errorf("locktest: lock %s: Lock.New is nil", l.Name)
	}
	return nil
}

// open is the impl.MakerFunc of l for holds of lease (lease <= 0).
func (l Lock) open(lease time.Duration) impl.MakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		m, err := l.New(ctx, rdb, lease)
		if err == nil && m == nil {
			err = fmt.Errorf("locktest: lock %s: New returned a nil Maker", l.Name)
		}
		return m, err
	}
}

// subject is l as a subject of lockcheck's runner.
func (l Lock) subject() subject.Subject {
	return subject.Subject{
		Name: l.Name, Doc: "locktest: " + l.Name, Kind: subject.KindUser,
		Configure: func(o subject.OpenOptions) impl.MakerFunc { return l.open(o.WatchdogLease) },
		Reentrant: l.Reentrant, Fair: l.Fair, NoWatchdog: !l.Watchdog, Fenced: l.Fenced,
	}
}

// registry holds l alone.
func (l Lock) registry() (*subject.Registry, error) {
	return subject.NewRegistry(l.subject())
}

// checkClaims opens one handle on rdb and checks the claims a type can
// show: a Fenced lock's handles implement impl.Fenced.
func (l Lock) checkClaims(ctx context.Context, rdb redis.UniversalClient) error {
	m, err := l.open(time.Second)(ctx, rdb)
	if err != nil {
		return fmt.Errorf("locktest: lock %s: New: %w", l.Name, err)
	}
	defer m.Close()
	h := m.NewLocker("locktest-claims", "locktest")
	if h == nil {
		return fmt.Errorf("locktest: lock %s: NewLocker returned nil", l.Name)
	}
	if _, ok := h.(impl.Fenced); l.Fenced && !ok {
		return fmt.Errorf("locktest: lock %s claims Fenced, but its handle %T has no Token() int64 (impl.Fenced)", l.Name, h)
	}
	return nil
}
