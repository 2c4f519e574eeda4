package corpus

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The parsers below read one file each of the folder format (see LoadFolder).
// Each takes the file's name for its errors and reports every problem as a
// *ParseError naming the line; none panics on any input.

// maxDocs bounds document and word ids so that they fit int32.
const maxID = math.MaxInt32

// parseVocab reads voc.txt: one word per line; line k is word id k. Words
// are trimmed of surrounding spaces and tabs; an empty word, invalid UTF-8
// or a repeated word is an error.
func parseVocab(r io.Reader, file string) ([]string, error) {
	var words []string
	seen := make(map[string]int)
	if err := eachLine(r, file, func(line []byte, ln int) error {
		w := strings.Trim(string(line), " \t")
		switch {
		case w == "":
			return parseErrorf(file, ln, "empty word (line %d is word id %d)", ln, ln-1)
		case !utf8.ValidString(w):
			return parseErrorf(file, ln, "word %q is not valid UTF-8", quote([]byte(w)))
		case hasControl(w):
			return parseErrorf(file, ln, "word %q contains a control character", quote([]byte(w)))
		case len(words) >= maxID:
			return parseErrorf(file, ln, "more than %d words", maxID)
		}
		if first, dup := seen[w]; dup {
			return parseErrorf(file, ln, "word %q repeats line %d", w, first)
		}
		seen[w] = ln
		words = append(words, w)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, parseErrorf(file, 0, "empty vocabulary")
	}
	return words, nil
}

// parseContents reads contents.txt: one document per line, its word ids
// (0-based into a vocabulary of vocabSize words) separated by spaces or
// tabs. An empty line is an empty document.
func parseContents(r io.Reader, file string, vocabSize int) (tokens []int32, docPtr []int64, err error) {
	docPtr = []int64{0}
	if err := eachLine(r, file, func(line []byte, ln int) error {
		if len(docPtr) > maxID {
			return parseErrorf(file, ln, "more than %d documents", maxID)
		}
		ferr := fields(line, func(tok []byte) error {
			n, ok := parseID(tok)
			switch {
			case !ok:
				return fmt.Errorf("token %q is not an integer word id", quote(tok))
			case n < 0 || n >= int64(vocabSize):
				return fmt.Errorf("word id %s outside the vocabulary (ids 0 to %d)", quote(tok), vocabSize-1)
			}
			tokens = append(tokens, int32(n))
			return nil
		})
		if ferr != nil {
			return ferr // eachLine reports it at this line
		}
		docPtr = append(docPtr, int64(len(tokens)))
		return nil
	}); err != nil {
		return nil, nil, err
	}
	if len(docPtr) == 1 {
		return nil, nil, parseErrorf(file, 0, "%w: no documents", ErrEmpty)
	}
	if len(tokens) == 0 {
		return nil, nil, parseErrorf(file, 0, "%w: %d documents but no words", ErrEmpty, len(docPtr)-1)
	}
	return tokens, docPtr, nil
}

// parseLinks reads links.txt: one link per line, two document ids (0-based
// line numbers of contents.txt) separated by spaces or tabs. Either
// direction, repeats and self-links are allowed (the graph drops them);
// blank lines are skipped.
func parseLinks(r io.Reader, file string, numDocs int) ([][2]int32, error) {
	var links [][2]int32
	if err := eachLine(r, file, func(line []byte, ln int) error {
		var ends [2]int32
		k := 0
		ferr := fields(line, func(tok []byte) error {
			if k == 2 {
				return fmt.Errorf("more than two document ids (third field %q)", quote(tok))
			}
			n, ok := parseID(tok)
			switch {
			case !ok:
				return fmt.Errorf("token %q is not an integer document id", quote(tok))
			case n < 0 || n >= int64(numDocs):
				return fmt.Errorf("link names document %s, which does not exist (contents.txt has documents 0 to %d)", quote(tok), numDocs-1)
			}
			ends[k] = int32(n)
			k++
			return nil
		})
		if ferr == nil && k == 1 {
			ferr = errors.New("one document id; a link needs two")
		}
		if ferr != nil {
			return ferr // eachLine reports it at this line
		}
		if k == 2 {
			links = append(links, ends)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return links, nil
}

// parseLabels reads labels.txt: one non-negative integer label per line,
// exactly one line per document.
func parseLabels(r io.Reader, file string, numDocs int) ([]int32, error) {
	labels := make([]int32, 0, numDocs)
	if err := eachLine(r, file, func(line []byte, ln int) error {
		if len(labels) == numDocs {
			return parseErrorf(file, ln, "more labels than documents (contents.txt has %d documents)", numDocs)
		}
		tok := []byte(strings.Trim(string(line), " \t"))
		n, ok := parseID(tok)
		switch {
		case len(tok) == 0:
			return parseErrorf(file, ln, "empty line: expected the label of document %d", len(labels))
		case !ok:
			return parseErrorf(file, ln, "label %q is not an integer", quote(tok))
		case n < 0 || n >= maxID:
			return parseErrorf(file, ln, "label %s out of range (labels are 0, 1, 2, ...)", quote(tok))
		}
		labels = append(labels, int32(n))
		return nil
	}); err != nil {
		return nil, err
	}
	if len(labels) != numDocs {
		return nil, parseErrorf(file, 0, "%d labels for %d documents (one label per line of contents.txt)", len(labels), numDocs)
	}
	return labels, nil
}

// parseLabelNames reads label_names.txt: line k names label k. Names are
// trimmed of surrounding spaces and tabs and may contain spaces.
func parseLabelNames(r io.Reader, file string) ([]string, error) {
	var names []string
	if err := eachLine(r, file, func(line []byte, ln int) error {
		name := strings.Trim(string(line), " \t")
		switch {
		case name == "":
			return parseErrorf(file, ln, "empty name for label %d", len(names))
		case !utf8.ValidString(name):
			return parseErrorf(file, ln, "label name %q is not valid UTF-8", quote([]byte(name)))
		case hasControl(name):
			return parseErrorf(file, ln, "label name %q contains a control character", quote([]byte(name)))
		case len(names) >= maxID:
			return parseErrorf(file, ln, "more than %d label names", maxID)
		}
		names = append(names, name)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, parseErrorf(file, 0, "no label names")
	}
	return names, nil
}

// hasControl reports whether s holds a control character (a stray '\r' or
// tab inside a word or name would garble every table that prints it).
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// checkLabelNames reports the first label that has no name.
func checkLabelNames(labels []int32, names []string, labelsFile, namesFile string) error {
	for i, l := range labels {
		if int(l) >= len(names) {
			return parseErrorf(labelsFile, i+1, "label %d has no name (%s names labels 0 to %d)", l, namesFile, len(names)-1)
		}
	}
	return nil
}

// parseEmbeddings reads the word-vector file: one row of dim floats per
// vocabulary word, separated by spaces or tabs. The values must be finite.
func parseEmbeddings(r io.Reader, file string, vocabSize, dim int) ([]float32, error) {
	// Grow as rows arrive rather than trusting vocabSize*dim up front, so a
	// tiny file with a huge claimed vocabulary cannot force a huge allocation.
	var vec []float32
	if err := eachLine(r, file, func(line []byte, ln int) error {
		if ln > vocabSize {
			return parseErrorf(file, ln, "more rows than words (voc.txt has %d words)", vocabSize)
		}
		k := 0
		ferr := fields(line, func(tok []byte) error {
			k++
			if k > dim {
				return nil // counted, reported below
			}
			f, err := strconv.ParseFloat(string(tok), 32)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("value %d, %q, is not a finite number", k, quote(tok))
			}
			vec = append(vec, float32(f))
			return nil
		})
		if ferr == nil && k != dim {
			ferr = fmt.Errorf("row has %d values, want %d (one %d-dimensional vector per word)", k, dim, dim)
		}
		if ferr != nil {
			return ferr // eachLine reports it at this line
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if rows := len(vec) / dim; rows != vocabSize {
		return nil, parseErrorf(file, 0, "%d rows for %d vocabulary words (one row per line of voc.txt)", rows, vocabSize)
	}
	return vec, nil
}
