package results

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Errors of CheckLinks; compare with errors.Is.
var (
	// ErrBrokenLink: a relative link of a page reaches nothing inside the
	// page's tree (no such file or directory, or it climbs out).
	ErrBrokenLink = errors.New("relative link does not resolve")
	// ErrMachinePath: a page names an absolute path of the machine that
	// wrote it (/work/…, /tmp/…, /root/…, /home/…), which no reader has.
	ErrMachinePath = errors.New("absolute path of a machine")
)

// LinkError is one problem CheckLinks found in a page.
type LinkError struct {
	File string
	Line int
	// Target is the link's target, or the machine's path.
	Target string
	// Err is ErrBrokenLink or ErrMachinePath; Why says more.
	Err error
	Why string
}

func (e *LinkError) Error() string {
	s := fmt.Sprintf("%s:%d: %v: %s", e.File, e.Line, e.Err, e.Target)
	if e.Why != "" {
		s += ": " + e.Why
	}
	return s
}

func (e *LinkError) Unwrap() error { return e.Err }

var (
	// mdLink is a Markdown link or image target: [text](target).
	mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// htmlLink is an href or src attribute, in HTML or in Markdown.
	htmlLink = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*["']([^"']*)["']`)
	// machinePath is an absolute path under a folder that is one
	// machine's own, not part of a path inside a URL or a relative path.
	machinePath = regexp.MustCompile(`(?:^|[\s(\[<>"'=:,;` + "`" + `])(/(?:work|tmp|root|home|Users|var/folders)/[^\s)\]<>"'` + "`" + `]*)`)
	// fence and codeSpan are Markdown code, whose text is no link.
	fence    = regexp.MustCompile("(?ms)^\\s*(```|~~~).*?^\\s*(```|~~~)\\s*$")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
)

// CheckLinks checks the page at root/file, a Markdown or HTML file: every
// relative link (Markdown [..](..), href= and src=) must reach a file or
// directory inside root, resolved from base (the page's folder in root,
// or another folder of root for a fragment that a page there shows); and
// no text may name an absolute path of a machine. It returns one error per
// problem, a *LinkError naming file:line and wrapping ErrBrokenLink or
// ErrMachinePath, or the error reading the page.
func CheckLinks(root, file, base string) []error {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return []error{err}
	}
	text := string(b)
	var errs []error
	for _, m := range machinePath.FindAllStringSubmatchIndex(text, -1) {
		errs = append(errs, &LinkError{File: file, Line: lineOf(text, m[2]), Target: text[m[2]:m[3]], Err: ErrMachinePath})
	}
	for _, l := range pageLinks(file, text) {
		if why := ResolveLink(root, base, l.target); why != "" {
			errs = append(errs, &LinkError{File: file, Line: l.line, Target: l.target, Err: ErrBrokenLink, Why: why})
		}
	}
	return errs
}

// pageLink is one link of a page: its target as written and its line.
type pageLink struct {
	target string
	line   int
}

// pageLinks are the links of the page file holding text: Markdown
// [..](..) and href= or src= targets, outside code in a Markdown page.
func pageLinks(file, text string) []pageLink {
	linkText := text
	if strings.HasSuffix(file, ".md") {
		blank := func(s string) string { return strings.Repeat(" ", len(s)) } // keeps offsets, so lines
		linkText = codeSpan.ReplaceAllStringFunc(fence.ReplaceAllStringFunc(text, keepNewlines), blank)
	}
	var links []pageLink
	for _, re := range []*regexp.Regexp{mdLink, htmlLink} {
		for _, m := range re.FindAllStringSubmatchIndex(linkText, -1) {
			links = append(links, pageLink{target: linkText[m[2]:m[3]], line: lineOf(text, m[2])})
		}
	}
	return links
}

// ResolveLink says why the link target, relative to base inside root,
// does not reach a file or directory there ("": it does, or it is not a
// relative link: an anchor of the page, a URL, or an absolute path). Its
// "#anchor" and "?query" are not checked.
func ResolveLink(root, base, target string) string {
	target, _, _ = strings.Cut(target, "#")
	target, _, _ = strings.Cut(target, "?")
	if target == "" || strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
		return "" // an anchor of the page, a URL (http:, mailto:, data:), or a machine path (checked apart)
	}
	p, err := url.PathUnescape(target)
	if err != nil {
		return "not a valid path"
	}
	rel := filepath.Join(filepath.FromSlash(base), filepath.FromSlash(p))
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return OutsideRoot
	}
	if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
		return "no such file or directory"
	}
	return ""
}

// OutsideRoot is the LinkError.Why of a link that climbs out of the root.
const OutsideRoot = "outside the root"

// keepNewlines blanks s byte for byte but its line breaks.
func keepNewlines(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func lineOf(text string, off int) int { return 1 + strings.Count(text[:off], "\n") }
