package faults

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestReadRequest(t *testing.T) {
	for _, tc := range []struct{ in, cmd string }{
		{"*3\r\n$7\r\nevalsha\r\n$2\r\nab\r\n$1\r\n0\r\n", "EVALSHA"},
		{"*1\r\n$4\r\nPING\r\n", "PING"},
		{"ping hello\r\n", "PING"},
		{"*2\r\n$3\r\nGET\r\n$-1\r\n", "GET"},
	} {
		r := bufio.NewReader(strings.NewReader(tc.in + "*1\r\n$4\r\nNEXT\r\n"))
		frame, cmd, err := readRequest(r)
		if err != nil || cmd != tc.cmd || string(frame) != tc.in {
			t.Errorf("readRequest(%q) = %q, %q, %v; want the frame and %q", tc.in, frame, cmd, err, tc.cmd)
		}
		if _, next, err := readRequest(r); err != nil || next != "NEXT" {
			t.Errorf("after %q: next request %q, %v", tc.in, next, err)
		}
	}
}

func TestReadReply(t *testing.T) {
	for _, tc := range []struct {
		in   string
		push bool
	}{
		{"+OK\r\n", false},
		{"-ERR no\r\n", false},
		{":12\r\n", false},
		{"$-1\r\n", false},
		{"$5\r\nhe\r\nl\r\n", false}, // CRLF inside a bulk string
		{"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", false},
		{"*-1\r\n", false},
		{"%1\r\n+k\r\n~2\r\n_\r\n#t\r\n", false},
		{"|1\r\n+ttl\r\n:3\r\n+OK\r\n", false}, // an attribute, then its reply
		{">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n", true},
		{"=8\r\ntxt:abcd\r\n", false},
		{",1.5\r\n", false},
		{"(12345678901234567890\r\n", false},
		{"!3\r\nERR\r\n", false},
	} {
		r := bufio.NewReader(strings.NewReader(tc.in + ":7\r\n"))
		frame, push, err := readReply(r)
		if err != nil || push != tc.push || string(frame) != tc.in {
			t.Errorf("readReply(%q) = %q, push %v, %v", tc.in, frame, push, err)
		}
		if next, _, err := readReply(r); err != nil || string(next) != ":7\r\n" {
			t.Errorf("after %q: next reply %q, %v", tc.in, next, err)
		}
	}
}

func TestReadReplyRefusesGarbage(t *testing.T) {
	for _, in := range []string{"?x\r\n", "$abc\r\n", "$3\r\nabcde\r\n", "*99999999999\r\n"} {
		if _, _, err := readReply(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("readReply(%q): no error", in)
		}
	}
}

func TestRenameCommand(t *testing.T) {
	in := "*3\r\n$7\r\nEVALSHA\r\n$2\r\nab\r\n$1\r\n0\r\n"
	got := string(renameCommand([]byte(in), refusedCommand))
	want := "*3\r\n$17\r\nlockcheck-refused\r\n$2\r\nab\r\n$1\r\n0\r\n"
	if got != want {
		t.Fatalf("renameCommand = %q, want %q", got, want)
	}
	frame, cmd, err := readRequest(bufio.NewReader(strings.NewReader(got)))
	if err != nil || cmd != "LOCKCHECK-REFUSED" || string(frame) != want {
		t.Fatalf("the renamed request reads back as %q, %q, %v", frame, cmd, err)
	}
}

// FuzzReadReply: a reply read back whole is exactly the bytes it was read
// from, and garbage is an error, never a panic or a hang.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "|1\r\n+a\r\n:1\r\n:2\r\n", ">1\r\n+x\r\n", "%1\r\n+k\r\n_\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		var got []byte
		for {
			frame, _, err := readReply(r)
			if err != nil {
				break
			}
			got = append(got, frame...)
		}
		if !bytes.HasPrefix(in, got) {
			t.Fatalf("frames %q are not a prefix of the input %q", got, in)
		}
	})
}
