package corpus

import (
	"errors"
	"fmt"
	"strings"
)

// prefix starts every error message of this package, once.
const prefix = "corpus: "

// ParseError reports a problem in a corpus file: which file, which line
// (1-based; 0 when the problem concerns the file as a whole, such as a
// missing file or a count mismatch) and what is wrong. It follows
// encoding/csv's ParseError: built in one place, unwrappable. Its message
// reads "corpus: FILE:LINE: PROBLEM".
type ParseError struct {
	File string // path of the file as given to the loader
	Line int    // 1-based line number, 0 for a file-level problem
	Err  error  // the problem
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s%s:%d: %s", prefix, e.File, e.Line, problem(e.Err))
	}
	return fmt.Sprintf("%s%s: %s", prefix, e.File, problem(e.Err))
}

// problem is err's message without this package's prefix: an error that
// places the problem after its own prefix and location (ParseError,
// NewDocError) may hold a sentinel such as ErrEmpty, which carries the
// prefix too, and the message must carry it once.
func problem(err error) string { return strings.TrimPrefix(err.Error(), prefix) }

func (e *ParseError) Unwrap() error { return e.Err }

// Problems a caller may test for with errors.Is.
var (
	ErrMissingFile = errors.New("corpus: missing required file")
	ErrEmpty       = errors.New("corpus: empty corpus")
)

func parseErrorf(file string, line int, format string, a ...any) *ParseError {
	return &ParseError{File: file, Line: line, Err: fmt.Errorf(format, a...)}
}
