package faults

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// errRESP is the error of a frame that is not RESP: the Wire then stops
// framing that connection and forwards its bytes as they are.
var errRESP = errors.New("faults: not a RESP frame")

// maxRESPLen bounds a bulk string or an aggregate's length, so a corrupt
// length cannot make the Wire allocate without bound (Redis's own
// proto-max-bulk-len default is 512 MB; lock traffic is a few KB).
const maxRESPLen = 64 << 20

// readRequest reads one client request: a RESP array of bulk strings
// (what every client library sends) or an inline command (a line of
// words). It returns the request's bytes as read and its command name,
// upper-cased.
func readRequest(r *bufio.Reader) (frame []byte, cmd string, err error) {
	b, err := r.Peek(1)
	if err != nil {
		return nil, "", err
	}
	if b[0] != '*' {
		line, err := readLine(r)
		if err != nil {
			return nil, "", err
		}
		fields := bytes.Fields(line)
		if len(fields) > 0 {
			cmd = string(bytes.ToUpper(fields[0]))
		}
		return line, cmd, nil
	}
	var buf bytes.Buffer
	n, err := readHeader(r, &buf)
	if err != nil {
		return nil, "", err
	}
	for i := 0; i < n; i++ {
		start := buf.Len()
		if err := readValue(r, &buf); err != nil {
			return nil, "", err
		}
		if i == 0 {
			cmd = string(bytes.ToUpper(bulkBody(buf.Bytes()[start:])))
		}
	}
	return buf.Bytes(), cmd, nil
}

// readReply reads one reply (RESP2 or RESP3) and says whether it is a
// push (RESP3 '>': pub/sub messages and invalidations, which answer no
// request). An attribute ('|') is read with the reply it annotates.
func readReply(r *bufio.Reader) (frame []byte, push bool, err error) {
	var buf bytes.Buffer
	for {
		b, err := r.Peek(1)
		if err != nil {
			return nil, false, err
		}
		kind := b[0]
		if err := readValue(r, &buf); err != nil {
			return nil, false, err
		}
		if kind != '|' {
			return buf.Bytes(), kind == '>', nil
		}
	}
}

// readValue reads one RESP value, aggregates whole, into buf.
func readValue(r *bufio.Reader, buf *bytes.Buffer) error {
	b, err := r.Peek(1)
	if err != nil {
		return err
	}
	kind := b[0]
	switch kind {
	case '+', '-', ':', '_', ',', '#', '(':
		line, err := readLine(r)
		buf.Write(line)
		return err
	case '$', '!', '=':
		n, err := readHeader(r, buf)
		if err != nil || n < 0 {
			return err
		}
		return readN(r, buf, n+2)
	case '*', '~', '>', '%', '|':
		n, err := readHeader(r, buf)
		if kind == '%' || kind == '|' {
			n *= 2
		}
		for i := 0; err == nil && i < n; i++ {
			err = readValue(r, buf)
		}
		return err
	}
	return fmt.Errorf("%w: type byte %q", errRESP, kind)
}

// readHeader reads a "<type><length>\r\n" line into buf and returns the
// length (-1 for a RESP2 null).
func readHeader(r *bufio.Reader, buf *bytes.Buffer) (int, error) {
	line, err := readLine(r)
	if err != nil {
		return 0, err
	}
	buf.Write(line)
	n, err := strconv.Atoi(string(bytes.TrimRight(line[1:], "\r\n")))
	if err != nil || n < -1 || n > maxRESPLen {
		return 0, fmt.Errorf("%w: length in %q", errRESP, line)
	}
	return n, nil
}

// readLine reads up to and including "\n".
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%w: line longer than %d bytes", errRESP, r.Size())
	}
	return bytes.Clone(line), err
}

// readN reads exactly n bytes, the last two of them "\r\n", into buf.
func readN(r *bufio.Reader, buf *bytes.Buffer, n int) error {
	if _, err := io.CopyN(buf, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("\r\n")) {
		return fmt.Errorf("%w: bulk string not ended by CRLF", errRESP)
	}
	return nil
}

// bulkBody is the content of a bulk string frame "$<n>\r\n<body>\r\n".
func bulkBody(frame []byte) []byte {
	i := bytes.IndexByte(frame, '\n')
	if len(frame) == 0 || frame[0] != '$' || i < 0 || len(frame) < i+3 {
		return nil
	}
	return frame[i+1 : len(frame)-2]
}

// renameCommand returns request (a RESP array) with its command name
// replaced by name, arguments unchanged.
func renameCommand(request []byte, name string) []byte {
	head := bytes.IndexByte(request, '\n') + 1 // after "*<n>\r\n"
	lenEnd := head + bytes.IndexByte(request[head:], '\n') + 1
	n, err := strconv.Atoi(string(bytes.TrimRight(request[head+1:lenEnd], "\r\n")))
	if head == 0 || err != nil || request[0] != '*' {
		return request
	}
	var out bytes.Buffer
	out.Write(request[:head])
	fmt.Fprintf(&out, "$%d\r\n%s\r\n", len(name), name)
	out.Write(request[lenEnd+n+2:])
	return out.Bytes()
}
