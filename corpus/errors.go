package corpus

import (
	"errors"
	"fmt"
)

// ParseError reports a problem in a corpus file: which file, which line
// (1-based; 0 when the problem concerns the file as a whole, such as a
// missing file or a count mismatch) and what is wrong. It follows
// encoding/csv's ParseError: built in one place, unwrappable.
type ParseError struct {
	File string // path of the file as given to the loader
	Line int    // 1-based line number, 0 for a file-level problem
	Err  error  // the problem
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Problems a caller may test for with errors.Is.
var (
	ErrMissingFile = errors.New("missing required file")
	ErrEmpty       = errors.New("empty corpus")
)

func parseErrorf(file string, line int, format string, a ...any) *ParseError {
	return &ParseError{File: file, Line: line, Err: fmt.Errorf(format, a...)}
}
