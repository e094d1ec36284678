package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The documentation test's reading of Markdown (docs_test.go checks what it
// finds). A command is:
//   - a line of a ```sh block (every non-blank line there that is not a
//     comment must be a command lockcheck knows how to check);
//   - a "$ " line of a ```console block (a transcript: the lines up to the
//     next "$ " line are its output);
//   - an inline code span that starts with "lockcheck ", "./bin/lockcheck ",
//     "make ", "go test " or "go doc " (after optional VAR=value
//     assignments); a span of only `lockcheck CMD` names the command (CMD
//     must exist) rather than showing one to paste.
// HTML comments are not read. "# exits N" after a command gives the exit
// status it has when really run (default 0).

// docCommand is one command found in a Markdown file.
type docCommand struct {
	file   string
	line   int
	text   string   // the command without its comment
	tokens []string // text split as a shell would (quotes), env assignments dropped
	env    []string // VAR=value assignments before the command
	exit   int      // "# exits N"; 0 when not said
	block  string   // "sh", "console" or "" (inline)
	output []string // a console command's output lines, as shown
}

func (c docCommand) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

// docLink is a relative link or image of a Markdown file.
type docLink struct {
	file   string
	line   int
	target string // as written: path, optionally #anchor
}

// docPage is what the test reads from one Markdown file.
type docPage struct {
	commands []docCommand
	links    []docLink
	spans    []docSpan // every inline code span (for file references)
	headings []string  // heading texts, for anchors
}

// docSpan is an inline code span.
type docSpan struct {
	line int
	text string
}

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	fenceLine   = regexp.MustCompile("^(```+|~~~+)\\s*([A-Za-z0-9_-]*)")
	exitsNote   = regexp.MustCompile(`#\s*exits\s+(\d)`)
	envAssign   = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
	mdLink      = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// commandPrefixes are how checkable commands start.
var commandPrefixes = []string{"lockcheck", "./bin/lockcheck", "make", "go test", "go doc"}

// blankComments replaces HTML comments by as many newlines, so line numbers
// stay true.
func blankComments(src string) string {
	return htmlComment.ReplaceAllStringFunc(src, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
}

// readDocPage extracts the commands, links, spans and headings of a Markdown
// file's text. Malformed sh-block lines are returned as errors.
func readDocPage(file, src string) (docPage, []error) {
	var p docPage
	var errs []error
	lines := strings.Split(blankComments(src), "\n")
	var prose []string // the text outside fences, fences blanked
	fence, lang := "", ""
	var cur *docCommand // the console command collecting output
	for i, l := range lines {
		n := i + 1
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(l), fence) {
				fence, cur = "", nil
			} else {
				switch lang {
				case "sh":
					c, ok, err := shLine(file, n, l)
					switch {
					case err != nil:
						errs = append(errs, err)
					case ok:
						c.block = "sh"
						p.commands = append(p.commands, c)
					}
				case "console":
					if rest, ok := strings.CutPrefix(l, "$ "); ok {
						c, isCmd, err := shLine(file, n, rest)
						if err != nil || !isCmd {
							errs = append(errs, fmt.Errorf("%s:%d: a transcript line lockcheck cannot check: %q", file, n, l))
							cur = nil
							break
						}
						c.block = "console"
						p.commands = append(p.commands, c)
						cur = &p.commands[len(p.commands)-1]
					} else if cur != nil {
						cur.output = append(cur.output, l)
					}
				}
			}
			prose = append(prose, "")
			continue
		}
		if m := fenceLine.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			fence, lang = m[1], m[2]
			prose = append(prose, "")
			continue
		}
		if m := headingLine.FindStringSubmatch(l); m != nil {
			p.headings = append(p.headings, m[1])
		}
		for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
			p.links = append(p.links, docLink{file: file, line: n, target: m[1]})
		}
		prose = append(prose, l)
	}
	p.spans = codeSpans(prose)
	for _, s := range p.spans {
		c, ok, err := shLine(file, s.line, s.text)
		if err == nil && ok {
			p.commands = append(p.commands, c)
		}
	}
	return p, errs
}

// shLine reads one command line: ok is false for a blank line or a comment;
// an error for a line that is not a command lockcheck can check.
func shLine(file string, n int, l string) (docCommand, bool, error) {
	c := docCommand{file: file, line: n}
	if m := exitsNote.FindStringSubmatch(l); m != nil {
		c.exit, _ = strconv.Atoi(m[1])
	}
	toks, err := shellSplit(l)
	if err != nil {
		return c, false, fmt.Errorf("%s:%d: %v: %q", file, n, err, l)
	}
	if len(toks) == 0 {
		return c, false, nil
	}
	for len(toks) > 0 && envAssign.MatchString(toks[0]) {
		c.env = append(c.env, toks[0])
		toks = toks[1:]
	}
	c.tokens = toks
	c.text = strings.Join(append(append([]string{}, c.env...), toks...), " ")
	joined := strings.Join(toks, " ")
	for _, pre := range commandPrefixes {
		if joined == pre || strings.HasPrefix(joined, pre+" ") {
			if len(toks) <= len(strings.Fields(pre)) {
				return c, false, fmt.Errorf("%s:%d: %q names no subcommand, target or package", file, n, l)
			}
			return c, true, nil
		}
	}
	return c, false, fmt.Errorf("%s:%d: not a command the documentation test can check (want %s): %q",
		file, n, strings.Join(commandPrefixes, ", "), l)
}

// codeSpans returns the inline code spans of prose (lines joined: a span
// may cross a line break), each with the line it starts on.
func codeSpans(prose []string) []docSpan {
	text := strings.Join(prose, "\n")
	var out []docSpan
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		ticks := text[i:j]
		end := strings.Index(text[j:], ticks)
		// The closing run must be exactly as long as the opening one.
		for end >= 0 && j+end+len(ticks) < len(text) && text[j+end+len(ticks)] == '`' {
			next := strings.Index(text[j+end+len(ticks)+1:], ticks)
			if next < 0 {
				end = -1
				break
			}
			end += len(ticks) + 1 + next
		}
		if end < 0 {
			i = j
			continue
		}
		body := strings.Join(strings.Fields(text[j:j+end]), " ")
		out = append(out, docSpan{line: strings.Count(text[:i], "\n") + 1, text: body})
		i = j + end + len(ticks)
	}
	return out
}

// shellSplit splits a command line as sh would for the quoting used in the
// docs (single and double quotes, backslash escapes outside single quotes)
// and drops a trailing comment.
func shellSplit(s string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inTok := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '#' && !inTok:
			return toks, nil
		case ch == ' ' || ch == '\t':
			if inTok {
				toks = append(toks, cur.String())
				cur.Reset()
				inTok = false
			}
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inTok = true
		case ch == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated double quote")
			}
			i = j
			inTok = true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inTok = true
		default:
			cur.WriteByte(ch)
			inTok = true
		}
	}
	if inTok {
		toks = append(toks, cur.String())
	}
	return toks, nil
}

// placeholder matches an argument that stands for a value the reader
// chooses: NAME, DIR…, [--flag], A,B, I/N, HOST:PORT, <time>, ${VAR}, *.
var placeholder = regexp.MustCompile(`^[A-Z][A-Z0-9_]*([ ,+/:.-]+[A-Z][A-Z0-9_]*)*$|[\[\]…<>{}$*|]|\.\.\.`)

// isSynopsis reports whether a lockcheck command shows a form rather than
// a command to paste.
func isSynopsis(args []string) bool {
	for _, a := range args {
		if placeholder.MatchString(strings.TrimPrefix(a, "--")) {
			return true
		}
	}
	return false
}

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func headingAnchor(h string) string {
	h = strings.ToLower(strings.NewReplacer("`", "", "*", "").Replace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127 && !strings.ContainsRune("—–…→×≤≥’“”", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
