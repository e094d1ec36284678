package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// driverFlags are run's flags for a lock outside lockcheck: --driver 'CMD
// ARGS' and --driver-name.
type driverFlags struct {
	command string
	name    string
}

func (d *driverFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&d.command, "driver", "", "run this command as an external subject: a driver speaking lockcheck's protocol (see docs/drivers.md); --subject defaults to it")
	fs.StringVar(&d.name, "driver-name", "driver", "the subject name of --driver's lock")
}

// register probes --driver's banner and registers it as an external subject
// with the capabilities it announces. When --subject was not given, the run
// is of the driver alone.
func (d *driverFlags) register(ctx context.Context, fs *flag.FlagSet, subjects *string) error {
	if d.command == "" {
		return nil
	}
	argv, err := driver.SplitCommand(d.command)
	if err != nil {
		return usagef("--driver: %v", err)
	}
	b, err := driver.Probe(ctx, driver.Options{Command: argv, Name: d.name})
	if err != nil {
		return usagef("--driver: %v", err)
	}
	s := catalog.Driver{
		Name: d.name, Command: argv, Capabilities: b.Capabilities,
		Doc: fmt.Sprintf("%s over the driver protocol (--driver)", b),
	}.Subject()
	if err := catalog.Subjects.Register(s); err != nil {
		return usagef("--driver-name: %v", err)
	}
	if !flagSet(fs, "subject") {
		*subjects = d.name
	}
	return nil
}

// goDriverSubject is the reentrant lock served over the protocol by this
// very binary (a subject once assemble registered it) (`lockcheck driver reentrant`): the protocol's overhead
// measured against the same lock in-process, and a template for drivers.
func goDriverSubject() subject.Subject {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return catalog.Driver{
		Name: "go-reentrant", Command: []string{exe, "driver", "reentrant"},
		Doc:          "lockcheck's reentrant lock served over the driver protocol by lockcheck itself (protocol overhead, driver template)",
		Capabilities: []string{driver.CapReentrant, driver.CapWatchdog},
		NotScored:    "lockcheck's own reentrant lock, served over the protocol: not a library people run",
	}.Subject()
}

const driverExamples = `  lockcheck driver reentrant     # serves the reentrant lock on stdin/stdout
  lockcheck run --driver 'lockcheck driver fenced' --driver-name go-fenced --duration 10s
`

// driverCmd serves a Go subject over the driver protocol on stdin/stdout.
func driverCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "driver", "driver SUBJECT", driverExamples)
	if err := parseFlags(fs, args, 1); err != nil {
		return exitUsage, err
	}
	if fs.NArg() != 1 {
		return exitUsage, usagef("name one subject (see 'lockcheck subjects')")
	}
	subj, err := catalog.Subjects.Lookup(fs.Arg(0))
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	if subj.Kind == subject.KindExternal || len(subj.Parts) > 0 {
		return exitUsage, usagef("subject %s is not a Go lock", subj.Name)
	}
	if e.stopValidated("driver") {
		return exitValid, nil
	}
	err = catalog.Serve(ctx, subj, os.Stdin, e.stdout)
	if err != nil {
		return exitUsage, err
	}
	return exitValid, nil
}
