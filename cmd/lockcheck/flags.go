package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// errHelp is returned when the user asked for a command's help (exit 0).
var errHelp = errors.New("help requested")

// newFlags returns a flag set for a command whose --help prints usage and examples.
func newFlags(e *env, name, synopsis, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "Usage: lockcheck %s\n\nFlags:\n", synopsis)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n%s", examples)
		}
	}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors and stray
// positional arguments beyond max into an error.
func parseFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// fs.Parse has printed the usage already (flag calls Usage
			// before it returns ErrHelp): print nothing more.
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() > maxArgs {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args()[maxArgs:], " "))
	}
	return nil
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd())
}
