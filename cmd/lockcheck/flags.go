package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

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

// parseFlags parses args, turning flag errors into usage errors of one
// line that names the flag (flagError) and stray positional arguments
// beyond max into an error. The usage is printed only when asked for
// (--help).
func parseFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	usage := fs.Usage
	fs.Usage = func() {} // flag calls it on every error: print it only for --help
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return errHelp
	}
	if err != nil {
		return usageError{flagError(fs, err)}
	}
	if fs.NArg() > maxArgs {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args()[maxArgs:], " "))
	}
	return nil
}

// Messages of the flag package's errors (flag.FlagSet.Parse), which
// flagError rephrases.
var (
	reBadValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)
	reUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	reNoValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// flagError rephrases an error of fs.Parse as one line that names the
// flag first: `--seed "abc": want an integer`, `unknown flag --bogus`.
// An error it does not know is returned as it is.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := reBadValue.FindStringSubmatch(msg); m != nil {
		why := strings.TrimPrefix(m[3], fmt.Sprintf("%q: ", m[1])) // a Set that quotes the value already
		return fmt.Errorf("--%s %q: %s", m[2], m[1], valueWanted(fs.Lookup(m[2]), why))
	}
	if m := reUnknown.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("unknown flag --%s", m[1])
	}
	if m := reNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("--%s needs a value", m[1])
	}
	return err
}

// valueWanted says what value the flag takes, from its type; a flag
// whose own Set explains the error (a flag.Value of lockcheck's) keeps
// that explanation.
func valueWanted(f *flag.Flag, why string) string {
	if f == nil {
		return why
	}
	g, ok := f.Value.(flag.Getter)
	if !ok || why == "value out of range" {
		return why
	}
	switch g.Get().(type) {
	case bool:
		return "want true or false"
	case int, int64:
		return "want an integer"
	case uint, uint64:
		return "want a non-negative integer"
	case float64:
		return "want a number"
	case time.Duration:
		return "want a duration such as 500ms, 10s or 1m30s"
	}
	return why
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd())
}
