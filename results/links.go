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
// problem, each naming file:line and wrapping ErrBrokenLink or
// ErrMachinePath, or the error reading the page.
func CheckLinks(root, file, base string) []error {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return []error{err}
	}
	text := string(b)
	var errs []error
	for _, m := range machinePath.FindAllStringSubmatchIndex(text, -1) {
		errs = append(errs, fmt.Errorf("%s:%d: %w: %s", file, lineOf(text, m[2]), ErrMachinePath, text[m[2]:m[3]]))
	}
	linkText := text
	if strings.HasSuffix(file, ".md") {
		blank := func(s string) string { return strings.Repeat(" ", len(s)) } // keeps offsets, so lines
		linkText = codeSpan.ReplaceAllStringFunc(fence.ReplaceAllStringFunc(text, keepNewlines), blank)
	}
	for _, re := range []*regexp.Regexp{mdLink, htmlLink} {
		for _, m := range re.FindAllStringSubmatchIndex(linkText, -1) {
			target := linkText[m[2]:m[3]]
			if why := resolve(root, base, target); why != "" {
				errs = append(errs, fmt.Errorf("%s:%d: %w: %s: %s", file, lineOf(text, m[2]), ErrBrokenLink, target, why))
			}
		}
	}
	return errs
}

// resolve says why the link target, relative to base inside root, does
// not reach a file or directory there ("": it does, or it is not a
// relative link).
func resolve(root, base, target string) string {
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
		return "outside the repository"
	}
	if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
		return "no such file or directory"
	}
	return ""
}

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
