package driver

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into argv the way a POSIX shell splits
// words: blanks separate words, single quotes keep everything literally,
// double quotes keep blanks (a backslash escapes only " and \ inside them), and a
// backslash outside quotes escapes the next character. Nothing else of the
// shell (variables, globs, pipes) is interpreted: the driver is exec'd
// directly, so that signals reach it and not a shell.
func SplitCommand(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		word  bool // cur holds a word (possibly empty: "")
		quote rune // 0, '\'' or '"'
		esc   bool // the next rune is escaped
		dqEsc bool // a backslash inside double quotes: escapes only " and \
	)
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case dqEsc:
			if r != '"' && r != '\\' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			dqEsc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				dqEsc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, word = true, true
		case r == '\'' || r == '"':
			quote, word = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if word {
				args = append(args, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(r)
			word = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("command %q: unterminated %c quote", s, quote)
	case esc:
		return nil, fmt.Errorf("command %q: ends with a backslash", s)
	}
	if word {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
