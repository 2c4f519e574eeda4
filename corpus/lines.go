package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// lineReader yields the lines of a text file without a length limit and
// without allocating per line: bufio.Scanner would stop at 64 KiB, and a
// document line of a large corpus can be longer. Lines end in "\n" or
// "\r\n"; a final line without a newline counts; the empty "line" after a
// final newline does not. A UTF-8 byte order mark at the start of the file
// (which some Windows editors write) is not part of the first line.
type lineReader struct {
	r    *bufio.Reader
	long []byte // accumulates a line longer than the bufio buffer
	line int    // 1-based number of the line last returned
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line without its line end, valid until the next
// call. It returns io.EOF after the last line, or the read error.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == io.EOF && len(b) == 0 {
		return nil, io.EOF
	}
	lr.line++
	if lr.line == 1 {
		b = bytes.TrimPrefix(b, byteOrderMark)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}

// byteOrderMark is U+FEFF in UTF-8.
var byteOrderMark = []byte{0xEF, 0xBB, 0xBF}

// isSpace reports the field separators of the numeric files: space and tab
// (a stray '\r' inside a line is reported as part of a bad token).
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// fields calls fn for each space- or tab-separated field of line, stopping
// at the first error.
func fields(line []byte, fn func(tok []byte) error) error {
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			if err := fn(line[i:j]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// parseID parses a non-negative decimal integer below limit. It returns
// (-1, false) for a token that is not a decimal integer and (n, true) with n
// possibly >= limit (or -1 for a negative or huge number) so the caller can
// say which is wrong.
func parseID(tok []byte) (n int64, ok bool) {
	s := tok
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return -1, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1, false
		}
		if n > 1<<40 { // far beyond any int32 id; keep going to validate digits
			continue
		}
		n = n*10 + int64(c-'0')
	}
	if neg && n != 0 {
		return -n, true
	}
	return n, true
}

// quote shortens a bad token for an error message.
func quote(tok []byte) string {
	const max = 40
	if len(tok) > max {
		return string(tok[:max]) + "..."
	}
	return string(tok)
}

// eachLine calls fn for every line of r with its 1-based number, stopping at
// the first error: the loop every parser of the folder format shares. Blank
// lines (empty, or spaces and tabs only) at the end of the file are not
// lines: an editor's trailing newline must not become an empty document, a
// missing label or an empty word; blank lines before a non-blank one are
// passed on as they are. A read error is reported at the line being read;
// an error from fn that is not already a *ParseError is reported at fn's
// line.
func eachLine(r io.Reader, file string, fn func(line []byte, n int) error) error {
	lr := newLineReader(r)
	call := func(line []byte, n int) error {
		if err := fn(line, n); err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				return err
			}
			return &ParseError{File: file, Line: n, Err: err}
		}
		return nil
	}
	held := 0 // blank lines not passed on yet: they count only if a non-blank line follows
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &ParseError{File: file, Line: lr.line + 1, Err: err}
		}
		if isBlank(line) {
			held++
			continue
		}
		for k := held; k > 0; k-- {
			if err := call(nil, lr.line-k); err != nil {
				return err
			}
		}
		held = 0
		if err := call(line, lr.line); err != nil {
			return err
		}
	}
}

// isBlank reports whether a line holds nothing but spaces and tabs.
func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// checkUTF8 reports the first byte of line that is not valid UTF-8. JSON
// decoding would replace such bytes by U+FFFD without a word, and words
// would silently change.
func checkUTF8(line []byte) error {
	if i := invalidUTF8At(line); i < len(line) {
		return fmt.Errorf("not valid UTF-8 (byte %d of the line is 0x%02x): save the file as UTF-8", i+1, line[i])
	}
	return nil
}

// invalidUTF8At returns the index of the first byte of line that is not
// part of valid UTF-8 (len(line) when there is none).
func invalidUTF8At(line []byte) int {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(line)
}
