package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// readmeLimit is the most characters README.md may hold: it is the front
// door, the manual is docs/.
const readmeLimit = 11000

// TestDocCommands checks every command of README.md, docs/*.md and
// impl/drivers/README.md (docs_extract_test.go says what a command is):
// lockcheck commands are validated by the real CLI (env.validateOnly)
// or, when cheap, run; make targets must exist; go test packages and
// patterns must name real tests. A doc whose command rots fails here.
func TestDocCommands(t *testing.T) {
	dc := newDocChecker(t)
	n := 0
	for _, file := range docFiles(t, dc.root) {
		page, errs := readDoc(t, dc.root, file)
		for _, err := range errs {
			t.Error(err)
		}
		for _, c := range page.commands {
			n++
			start := time.Now()
			how, err := dc.check(c)
			if err != nil {
				t.Errorf("%v\n  %v", c, err)
				continue
			}
			t.Logf("%-10s %5.2fs %v", how, time.Since(start).Seconds(), c)
		}
	}
	if n < 20 {
		t.Errorf("only %d commands found in the docs: is the extraction broken?", n)
	}
	t.Logf("%d commands checked", n)
}

// TestDocLinks checks that every relative link (and its #anchor) and every
// code span naming a file of the repository points at something that
// exists, that README.md links every docs/ page and that it stays short.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	pages := map[string]docPage{}
	for _, file := range docFiles(t, root) {
		pages[file], _ = readDoc(t, root, file)
	}
	for file, page := range pages {
		for _, err := range checkLinks(root, file, page, pages) {
			t.Error(err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(readme); n > readmeLimit {
		t.Errorf("README.md has %d characters, more than %d: move detail into docs/", n, readmeLimit)
	}
	for file := range pages {
		if strings.HasPrefix(file, "docs/") && !strings.Contains(string(readme), "("+file+")") {
			t.Errorf("README.md does not link %s", file)
		}
	}
	checkFrontDoor(t, root, pages["README.md"])
}

// checkFrontDoor: README.md opens with the two commands, `make run` and
// `make test`, and CI (.ci/run) runs that test command.
func checkFrontDoor(t *testing.T, root string, readme docPage) {
	t.Helper()
	var first []string
	for _, c := range readme.commands {
		if c.block == "sh" && len(first) < 2 {
			first = append(first, c.text)
		}
	}
	if !slices.Equal(first, []string{"make run", "make test"}) {
		t.Errorf("README.md's first commands are %q, want make run and make test", first)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
		t.Errorf(".ci/run does not run make test, the README's test command:\n%s", ci)
	}
}

// TestDocCheckerCatchesBadCommands proves the checks can fail: each of
// these commands is wrong in one way, and each must be reported; the good
// ones must pass.
func TestDocCheckerCatchesBadCommands(t *testing.T) {
	dc := newDocChecker(t)
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"lockcheck frobnicate", true},
		{"lockcheck run --subject nope --duration 2s", true},
		{"lockcheck run --no-such-flag", true},
		{"lockcheck run --duration soon", true},
		{"lockcheck run --scenario no-such-scenario", true},
		{"lockcheck run --plan results/no-such-plan.json", true},
		{"lockcheck nightly --shard 5/4", true},
		{"lockcheck hunt --subject reentrant --run-duration 1s", true},
		{"lockcheck check results/no-such-run", true},
		{"lockcheck scenarios no-such-scenario", true},
		{"lockcheck hunt --subject S [--no-such-flag 1]", true},
		{"lockcheck subjects   # exits 1", true},
		{"make no-such-target", true},
		{"go test -run TestNoSuchTest ./model/", true},
		{"go test -run TestBadInputExits2 ./no/such/package/", true},
		{"go test -bench NoSuchBenchmark ./impl/driver", true},
		{"go test -frobnicate ./model/", true},
		{"go doc ./no/such/package", true},
		{"lockcheck run --subject reentrant --duration 2s --seed 1", false},
		{"lockcheck hunt --subject S [--budget 10m] [--seed N]", false},
		{"lockcheck scenarios client-stall", false},
		{"SEEDS=2 make catch-rates", false},
		{"go test -run 'TestBadInputExits2/unknown' ./cmd/lockcheck/", false},
		{"go test -run '^$' -bench RoundTrip ./impl/driver", false},
		{"go doc ./impl/driver", false},
	} {
		c, ok, err := shLine("test", 1, tc.line)
		if err != nil || !ok {
			t.Fatalf("%q: not read as a command: %v", tc.line, err)
		}
		c.block = "sh"
		_, err = dc.check(c)
		switch {
		case tc.bad && err == nil:
			t.Errorf("%q: passed, want an error", tc.line)
		case !tc.bad && err != nil:
			t.Errorf("%q: %v", tc.line, err)
		case err != nil:
			first, _, _ := strings.Cut(err.Error(), "\n")
			t.Logf("%q: %s", tc.line, first)
		}
	}
}

// TestDocExtract: what counts as a command, a transcript, a link.
func TestDocExtract(t *testing.T) {
	src := "# Title\n\nRun `lockcheck run --seed 1` or `make test`, not `lockcheck_<pid>`.\n" +
		"See [a page](docs/x.md#part).\n\n" +
		"```sh\nlockcheck subjects   # exits 0\n# a comment\n\nQUICK=1 make bench\n```\n" +
		"```console\n$ ./bin/lockcheck version\nlockcheck (devel)\n```\n" +
		"```\nlockcheck run: seed 3 (output, not a command)\n```\n" +
		"<!-- ```sh\nlockcheck frobnicate\n``` -->\n" +
		"```sh\nrm -rf /\n```\n"
	p, errs := readDocPage("x.md", src)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "rm -rf") {
		t.Errorf("errors %v, want one for the sh line that is not a command", errs)
	}
	var got []string
	for _, c := range p.commands {
		got = append(got, fmt.Sprintf("%d %s %q %s", c.line, c.block, c.text, strings.Join(c.output, "|")))
	}
	want := []string{
		`7 sh "lockcheck subjects" `,
		`10 sh "QUICK=1 make bench" `,
		`13 console "./bin/lockcheck version" lockcheck (devel)`,
		`3  "lockcheck run --seed 1" `,
		`3  "make test" `,
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(p.links) != 1 || p.links[0].target != "docs/x.md#part" {
		t.Errorf("links %v", p.links)
	}
	if a := headingAnchor("The hunt workload: bugs in seconds, and `where` leases run out"); a != "the-hunt-workload-bugs-in-seconds-and-where-leases-run-out" {
		t.Errorf("anchor %q", a)
	}
	root := repoRoot(t)
	bad := docPage{links: []docLink{{file: "README.md", line: 1, target: "docs/no-such-page.md"}}, spans: []docSpan{{1, "impl/no-such-file.go"}}}
	if errs := checkLinks(root, "README.md", bad, nil); len(errs) != 2 {
		t.Errorf("a broken link and a missing file: %v", errs)
	}
}

// docFiles are the Markdown files whose commands are checked, relative to
// the repository root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md", "impl/drivers/README.md"}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		files = append(files, "docs/"+filepath.Base(p))
	}
	return files
}

func readDoc(t *testing.T, root, file string) (docPage, []error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	return readDocPage(file, string(src))
}

// repoRoot is the module's root (the test runs in cmd/lockcheck).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return root
}

// docChecker checks commands against the repository at root.
type docChecker struct {
	t       *testing.T
	root    string
	module  string          // go.mod's module path
	targets map[string]bool // the Makefile's targets
	flags   map[string]map[string]bool
}

func newDocChecker(t *testing.T) *docChecker {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+)\s*:([^=]|$)`).FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	t.Chdir(root) // the commands name files from the repository's root
	return &docChecker{t: t, root: root, module: string(m[1]), targets: targets, flags: map[string]map[string]bool{}}
}

// check checks c and says how: "synopsis" (subcommand and flags),
// "validated" (env.validateOnly), "run" (really run), "target"
// (make), "package" (go test, go doc).
func (dc *docChecker) check(c docCommand) (string, error) {
	switch c.tokens[0] {
	case "lockcheck", "./bin/lockcheck":
		return dc.checkLockcheck(c)
	case "make":
		for _, a := range c.tokens[1:] {
			if !envAssign.MatchString(a) && !dc.targets[a] {
				return "target", fmt.Errorf("the Makefile has no target %q", a)
			}
		}
		return "target", nil
	}
	if c.tokens[1] == "doc" {
		_, err := dc.packageDirs(c.tokens[2])
		return "package", err
	}
	return "package", dc.checkGoTest(c.tokens[2:])
}

// cheapCommands run for real: they only read.
var cheapCommands = map[string]bool{"subjects": true, "workloads": true, "scenarios": true, "version": true, "help": true}

// checkLockcheck checks a lockcheck command: the subcommand and flags of a
// synopsis; a cheap command, a check or a transcript by running it; any
// other by the CLI's validation.
func (dc *docChecker) checkLockcheck(c docCommand) (string, error) {
	args := c.tokens[1:]
	if !knownCommand(args[0]) {
		return "", fmt.Errorf("no command %q", args[0])
	}
	switch {
	case isSynopsis(args[1:]) || c.block == "" && len(args) == 1:
		return "synopsis", dc.checkSynopsis(args)
	case c.block == "console":
		return "run", dc.checkTranscript(c, args)
	case cheapCommands[args[0]] || helpAsked(args[1:]):
		return "run", dc.runHere(c, args)
	case args[0] == "check":
		return "run", dc.checkCheck(c, args)
	case testing.Short() && slices.Contains(args, "--driver"):
		return "skipped", nil // its validation starts the driver: python3-redis and the like
	case namesRelease(args):
		// Its validation would fetch and build the release: the name is
		// checked instead (workloads/subject's tests cover the lookup).
		return "release", checkReleaseNames(args)
	}
	code, stdout, stderr := dc.validate(args)
	if code != exitValid {
		return "validated", fmt.Errorf("validate-only lockcheck %s: exit %d:\n%s", strings.Join(args, " "), code, lastLines(stderr+stdout, 4))
	}
	return "validated", nil
}

func knownCommand(name string) bool {
	if name == "help" {
		return true
	}
	return slices.ContainsFunc(commands(), func(c command) bool { return c.name == name })
}

// validate runs a command with env.validateOnly: in-process (the
// test runs in the repository's root), or as a process when it names
// --driver (which registers a subject in the process's registry).
func (dc *docChecker) validate(args []string) (int, string, string) {
	if slices.Contains(args, "--driver") {
		return dc.cli(true, args...)
	}
	ctx, cancel := context.WithTimeout(dc.t.Context(), validateBound)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, &env{stdout: &out, stderr: &errOut, validateOnly: true}, args)
	return code, out.String(), errOut.String()
}

// validateBound ends a validation that does not stop (a command without its
// stop would start its runs): it then fails as interrupted instead of
// running for its whole budget.
const validateBound = 30 * time.Second

// runHere runs a cheap command in-process and compares its exit status.
func (dc *docChecker) runHere(c docCommand, args []string) error {
	var out, errOut bytes.Buffer
	code := run(dc.t.Context(), &env{stdout: &out, stderr: &errOut}, args)
	if code != c.exit {
		return fmt.Errorf("exit %d, the doc says %d:\n%s", code, c.exit, lastLines(errOut.String()+out.String(), 4))
	}
	return nil
}

// checkCheck runs `lockcheck check DIR` on a copy of DIR (check writes
// nothing in DIR, but a doc command may name --out).
func (dc *docChecker) checkCheck(c docCommand, args []string) error {
	dir := args[len(args)-1]
	cp := filepath.Join(dc.t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(cp, os.DirFS(filepath.Join(dc.root, dir))); err != nil {
		return fmt.Errorf("copying the run directory: %w", err)
	}
	return dc.runHere(c, append(slices.Clone(args[:len(args)-1]), cp))
}

// checkSynopsis checks a command form: its flags must be the command's.
func (dc *docChecker) checkSynopsis(args []string) error {
	flags, err := dc.commandFlags(args[0])
	if err != nil {
		return err
	}
	for _, a := range args[1:] {
		a = strings.Trim(a, "[]…")
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !flags[name] {
			return fmt.Errorf("lockcheck %s has no flag --%s", args[0], name)
		}
	}
	return nil
}

// commandFlags are the flags `lockcheck CMD --help` lists.
func (dc *docChecker) commandFlags(cmd string) (map[string]bool, error) {
	if f, ok := dc.flags[cmd]; ok {
		return f, nil
	}
	var out bytes.Buffer
	if cmd != "help" {
		if code := run(dc.t.Context(), &env{stdout: &out, stderr: &out}, []string{cmd, "--help"}); code != exitValid {
			return nil, fmt.Errorf("lockcheck %s --help: exit %d:\n%s", cmd, code, out.String())
		}
	}
	f := map[string]bool{"help": true, "h": true}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`).FindAllStringSubmatch(out.String(), -1) {
		f[m[1]] = true
	}
	dc.flags[cmd] = f
	return f, nil
}

// checkTranscript runs a console command for real (its output directories
// in a temporary directory) and compares its exit status, the header of
// its table and its number of run directories with the excerpt shown.
func (dc *docChecker) checkTranscript(c docCommand, args []string) error {
	if testing.Short() {
		dc.t.Logf("%v: not run in -short (it needs redis-server)", c)
		return nil
	}
	switch args[0] {
	case "run", "hunt", "nightly", "bench":
		args = append(slices.Clone(args), "--out", dc.t.TempDir())
	}
	code, stdout, stderr := dc.cli(false, args...)
	if code != c.exit {
		return fmt.Errorf("exit %d, the doc says %d:\n%s", code, c.exit, lastLines(stdout+stderr, 12))
	}
	shown := strings.Join(c.output, "\n")
	if want, got := tableHeader(shown), tableHeader(stdout+stderr); !slices.Equal(want, got) {
		return fmt.Errorf("the table's columns are now\n  %v\nthe doc shows\n  %v", got, want)
	}
	if want, got := strings.Count(shown, "run directory:"), strings.Count(stdout, "run directory:"); want != got {
		return fmt.Errorf("%d run directories, the doc shows %d:\n%s", got, want, stdout)
	}
	return nil
}

// tableHeader is the column names of the first boxed table in out.
func tableHeader(out string) []string {
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "│") {
			continue
		}
		var cols []string
		for _, f := range strings.Split(strings.Trim(l, "│"), "│") {
			cols = append(cols, strings.TrimSpace(f))
		}
		return cols
	}
	return nil
}

// cli runs the test binary as lockcheck in the repository's root,
// validating only when validate is set; it kills a process that outlives
// its bound (validateBound, or 5 minutes for a real run).
func (dc *docChecker) cli(validate bool, args ...string) (int, string, string) {
	cmd := cliCommand(dc.t, args...)
	cmd.Dir = dc.root
	if validate {
		cmd.Env = append(cmd.Env, testValidateOnlyEnv+"=1")
	}
	bound := 5 * time.Minute
	if validate {
		bound = validateBound
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		return -1, "", err.Error()
	}
	stop := time.AfterFunc(bound, func() { _ = cmd.Process.Kill() })
	defer stop.Stop()
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errOut.String()
	case err != nil:
		return -1, out.String(), err.Error()
	}
	return 0, out.String(), errOut.String()
}

// lastLines is the last n lines of out.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// goTestValueFlags are the go test flags that take a value.
var goTestValueFlags = map[string]bool{
	"run": true, "bench": true, "fuzz": true, "fuzztime": true, "timeout": true, "count": true,
	"benchtime": true, "list": true, "tags": true, "cpu": true, "parallel": true, "p": true, "skip": true,
}

// goTestBoolFlags are the go test flags without a value.
var goTestBoolFlags = map[string]bool{"v": true, "race": true, "short": true, "json": true, "failfast": true, "benchmem": true, "cover": true}

// checkGoTest checks a go test command line: its flags are go test's, its
// packages exist and its -run, -bench, -fuzz and -list patterns match a
// function of one of them.
func (dc *docChecker) checkGoTest(args []string) error {
	patterns := map[string]string{}
	var dirs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			d, err := dc.packageDirs(a)
			if err != nil {
				return err
			}
			dirs = append(dirs, d...)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case goTestBoolFlags[name]:
		case goTestValueFlags[name] && hasVal:
			patterns[name] = val
		case goTestValueFlags[name] && i+1 < len(args):
			i++
			patterns[name] = args[i]
		default:
			return fmt.Errorf("go test has no flag %s (or it lacks its value)", a)
		}
	}
	if len(dirs) == 0 {
		return errors.New("go test names no package")
	}
	for flag, kinds := range map[string][]string{"run": {"Test", "Example", "Fuzz"}, "list": {"Test", "Example", "Fuzz", "Benchmark"}, "bench": {"Benchmark"}, "fuzz": {"Fuzz"}} {
		pat, ok := patterns[flag]
		if !ok || pat == "^$" {
			continue
		}
		if err := dc.matchesATest(dirs, flag, pat, kinds); err != nil {
			return err
		}
	}
	return nil
}

// testFunc matches a test, benchmark, fuzz target or example declaration.
var testFunc = regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz|Example)\w*)\(`)

// matchesATest reports an error unless pat's top level matches a function
// of one of kinds in one of dirs' test files.
func (dc *docChecker) matchesATest(dirs []string, flag, pat string, kinds []string) error {
	// go test splits a pattern at slashes outside brackets: the first
	// element names the top-level function.
	top, depth := pat, 0
	for j, r := range pat {
		if r == '(' || r == '[' {
			depth++
		} else if r == ')' || r == ']' {
			depth--
		} else if r == '/' && depth == 0 {
			top = pat[:j]
			break
		}
	}
	re, err := regexp.Compile(top)
	if err != nil {
		return fmt.Errorf("-%s %q: %v", flag, pat, err)
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*_test.go"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
				if slices.Contains(kinds, m[2]) && re.MatchString(m[1]) {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("-%s %q matches no %s function in %s", flag, pat, strings.Join(kinds, "/"), strings.Join(dc.relative(dirs), " "))
}

func (dc *docChecker) relative(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		r, err := filepath.Rel(dc.root, d)
		if err != nil {
			r = d
		}
		out = append(out, "./"+r)
	}
	return out
}

// packageDirs resolves a go package pattern (./dir, ./dir/..., or an import
// path of this module) to the directories of its packages.
func (dc *docChecker) packageDirs(pat string) ([]string, error) {
	rel, ok := strings.CutPrefix(pat, dc.module)
	if !ok && !strings.HasPrefix(pat, "./") && pat != "." {
		return nil, fmt.Errorf("package %q is not this module's", pat)
	}
	rel = strings.TrimPrefix(strings.TrimPrefix(rel, "/"), "./")
	recursive := rel == "..." || strings.HasSuffix(rel, "/...")
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, "..."), "/")
	base := filepath.Join(dc.root, filepath.FromSlash(rel))
	var dirs []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != base && (!recursive || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if gos, _ := filepath.Glob(filepath.Join(p, "*.go")); len(gos) > 0 {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no package %s", pat)
	}
	return dirs, nil
}

// repoPath matches a code span that names a file or directory of the
// repository (checked when its first element is a top-level directory).
var repoPath = regexp.MustCompile(`^\.?[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+/?$`)

// checkLinks checks file's relative links (with their anchors, against
// pages) and the repository paths its code spans name.
func checkLinks(root, file string, page docPage, pages map[string]docPage) []error {
	var errs []error
	for _, l := range page.links {
		target, anchor, _ := strings.Cut(l.target, "#")
		if strings.Contains(target, ":") {
			continue // a URL
		}
		if why := results.ResolveLink(root, filepath.Dir(file), l.target); why != "" {
			errs = append(errs, fmt.Errorf("%s:%d: link to %s: %s", l.file, l.line, l.target, why))
			continue
		}
		rel := file
		if target != "" {
			rel = filepath.ToSlash(filepath.Join(filepath.Dir(file), target))
		}
		if p, ok := pages[rel]; ok && anchor != "" && !slices.ContainsFunc(p.headings, func(h string) bool { return headingAnchor(h) == anchor }) {
			errs = append(errs, fmt.Errorf("%s:%d: link to %s: %s has no heading #%s", l.file, l.line, l.target, rel, anchor))
		}
	}
	for _, s := range page.spans {
		if !repoPath.MatchString(s.text) {
			continue
		}
		// A path from the repository's root, or from the page's folder.
		first, _, _ := strings.Cut(s.text, "/")
		path := ""
		for _, base := range []string{".", filepath.Dir(file)} {
			if fi, err := os.Stat(filepath.Join(root, base, first)); err == nil && fi.IsDir() {
				path = filepath.ToSlash(filepath.Join(base, s.text))
				break
			}
		}
		if path == "" {
			continue // not a path of the repository
		}
		if _, err := os.Stat(filepath.Join(root, path)); err == nil || gitIgnored(root, path) {
			continue
		}
		errs = append(errs, fmt.Errorf("%s:%d: `%s`: no such file or directory", file, s.line, s.text))
	}
	return errs
}

// gitIgnored reports whether path is one git ignores (a build product such
// as the clock shim's library, named by the docs but not committed).
func gitIgnored(root, path string) bool {
	cmd := exec.Command("git", "check-ignore", "-q", path)
	cmd.Dir = root
	return cmd.Run() == nil
}

// namesRelease reports whether a command's --subject names a release
// (NAME@VERSION).
func namesRelease(args []string) bool {
	for i, a := range args {
		if (a == "--subject" || a == "--subjects") && i+1 < len(args) && strings.Contains(args[i+1], subject.VersionSeparator) {
			return true
		}
	}
	return false
}

// checkReleaseNames checks that each NAME@VERSION of --subject names a
// subject that runs other releases.
func checkReleaseNames(args []string) error {
	i := slices.IndexFunc(args, func(a string) bool { return a == "--subject" || a == "--subjects" })
	for _, n := range splitList(args[i+1]) {
		if permits.Known(n) {
			if err := checkPermitsReleaseNames(n); err != nil {
				return err
			}
			continue
		}
		base, v := subject.SplitVersion(n)
		s, err := catalog.Subjects.Lookup(base)
		if err != nil {
			return err
		}
		if v != "" && s.Versions == nil {
			return fmt.Errorf("%s: %s %v", n, base, subject.ErrNoVersions)
		}
	}
	return nil
}
