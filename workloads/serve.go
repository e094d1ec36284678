package workloads

import (
	"fmt"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Pause modes of a run (RunConfig.Pauses): how a client stall reaches the
// lock's client.
const (
	// PausesCooperative: Go locks run in lockcheck's process; a stall
	// freezes the worker at the stall point of its critical section and
	// stops the handle's renewal through impl.Freezer or impl.Abandoner,
	// if it has one.
	PausesCooperative = "cooperative"
	// PausesProcess: every lock client runs in a process of its own (Go
	// locks served over the driver protocol, Deps.Serve); a stall is a
	// SIGSTOP of that process at a moment drawn from the seed, wherever
	// its threads are (between an unlock's two commands, between a
	// renewal's send and its reply), and a SIGCONT at its end.
	PausesProcess = "process"
)

// servable reports why subj cannot be served in a process of its own for
// plan ("" : it can). Go locks are served over the driver protocol one
// owner per process, as a driver announcing what the subject claims.
func servable(subj subject.Subject, plan Plan) string {
	switch {
	case len(subj.Parts) > 0:
		return "a mixed fleet"
	case subj.Open == nil && subj.Configure == nil:
		return "it opens no lock (a semaphore or latch has no lock driver)"
	case plan.Threads() > 1:
		return "owners sharing a client process"
	case subj.ReadWrite || subj.Members > 0:
		return "the driver protocol of a Go lock serves plain locks only"
	}
	return ""
}

// Unpausable says why a run of subj with plan cannot pause its lock
// clients for real ("": it can): an external driver's client is a process
// of its own, a Go lock is served in one when servable. A run that cannot
// stalls them cooperatively, abandoning the hold's renewal for good.
func Unpausable(subj subject.Subject, plan Plan) string {
	if subj.Kind == subject.KindExternal && len(subj.Parts) == 0 {
		return ""
	}
	return servable(subj, plan)
}

// servedMakers returns the MakerFuncs of a run of subj whose lock clients
// are processes of their own: an external subject's as they are, a Go
// lock's served by the command serve names for it. why is non-empty when
// the run cannot pause the subject's clients for real (it then runs with
// cooperative stalls).
func servedMakers(subj subject.Subject, plan Plan, oo subject.OpenOptions, serve subject.Server) (mfs []impl.MakerFunc, why string, err error) {
	if why := Unpausable(subj, plan); why != "" {
		return nil, why, nil
	}
	if subj.Kind == subject.KindExternal {
		mfs, _ = subj.MakerFuncs(oo)
		return mfs, "", nil
	}
	if serve == nil {
		return nil, "no command serves Go locks here (Deps.Serve)", nil
	}
	mf, err := serve(subj, oo)
	if err != nil {
		return nil, "", fmt.Errorf("serve %s in a process of its own: %w", subj.Name, err)
	}
	return []impl.MakerFunc{mf}, "", nil
}
