package corpus

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// SplitFile is the name of a stored split beside a dataset folder's files:
// a folder that holds one is split by it (see ReadSplit).
const SplitFile = "split.txt"

// Role is a document's part in a split.
type Role byte

// Roles. A validation document is a training document that validation
// holds out (Split.Valid is a subset of Split.Train).
const (
	RoleTrain Role = iota + 1
	RoleValid
	RoleTest
)

// roleNames are the words of a split file, by role.
var roleNames = map[Role]string{RoleTrain: "train", RoleValid: "valid", RoleTest: "test"}

func (r Role) String() string {
	if s, ok := roleNames[r]; ok {
		return s
	}
	return fmt.Sprintf("Role(%d)", r)
}

// Roles returns each of g's n documents' role under s; a document in no
// part (none of a split made by this package) has role 0.
func (s *Split) Roles(n int) []Role {
	roles := make([]Role, n)
	for _, d := range s.Train {
		roles[d] = RoleTrain
	}
	for _, d := range s.Valid {
		roles[d] = RoleValid
	}
	for _, d := range s.Test {
		roles[d] = RoleTest
	}
	return roles
}

// SplitFromRoles is the split that gives document i of g the role
// roles[i] (len(roles) must be g.NumDocs() and every role set): a stored
// split (ReadSplit), or one that keeps old documents' roles as new ones
// join (gtformer update).
func SplitFromRoles(g *Graph, roles []Role) (*Split, error) {
	if len(roles) != g.NumDocs() {
		return nil, fmt.Errorf("corpus: a split of %d documents for a corpus of %d", len(roles), g.NumDocs())
	}
	var train, valid, test []int32
	for i, r := range roles {
		switch r {
		case RoleTrain:
			train = append(train, int32(i))
		case RoleValid:
			train = append(train, int32(i))
			valid = append(valid, int32(i))
		case RoleTest:
			test = append(test, int32(i))
		default:
			return nil, fmt.Errorf("corpus: document %d has no role in the split", i)
		}
	}
	return newSplit(g, train, valid, test), nil
}

// WriteSplit writes roles as a split file: one word per document line,
// train, valid or test.
func WriteSplit(w io.Writer, roles []Role) error {
	c := newChunks(w)
	for i, r := range roles {
		s, ok := roleNames[r]
		if !ok {
			return fmt.Errorf("corpus: document %d has no role in the split", i)
		}
		c.buf = append(c.buf, s...)
		c.buf = append(c.buf, '\n')
		c.spill()
	}
	return c.done()
}

// ReadSplit reads the split file at path for a corpus of n documents: line
// k is document k's role, train, valid (a training document validation
// holds out) or test; spaces around the word are allowed, an empty line
// (but for trailing ones) is an error. Errors are
// *ParseError naming the file and line.
func ReadSplit(path string, n int) ([]Role, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: split: %w", err)
	}
	defer f.Close()
	return parseSplit(f, path, n)
}

func parseSplit(r io.Reader, file string, n int) ([]Role, error) {
	roles := make([]Role, 0, n)
	err := eachLine(r, file, func(line []byte, ln int) error {
		if len(roles) == n {
			return parseErrorf(file, ln, "more lines than the corpus's %d documents", n)
		}
		word := bytes.Trim(line, " \t")
		var role Role
		for r, s := range roleNames {
			if string(word) == s {
				role = r
			}
		}
		if role == 0 {
			return parseErrorf(file, ln, "%q is not a role: want train, valid or test (one per document line)", quote(word))
		}
		roles = append(roles, role)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(roles) != n {
		return nil, parseErrorf(file, 0, "%d roles for a corpus of %d documents (one line per document)", len(roles), n)
	}
	return roles, nil
}

// parseIDs reads ids.txt: line k is document k's id, non-empty (spaces
// around it are trimmed) and unlike every other.
func parseIDs(r io.Reader, file string, n int) ([]string, error) {
	ids := make([]string, 0, n)
	line := make(map[string]int, n)
	err := eachLine(r, file, func(b []byte, ln int) error {
		if len(ids) == n {
			return parseErrorf(file, ln, "more ids than documents (contents.txt has %d documents)", n)
		}
		id := string(bytes.Trim(b, " \t"))
		if id == "" {
			return parseErrorf(file, ln, "empty line: expected the id of document %d", len(ids))
		}
		if first, dup := line[id]; dup {
			return parseErrorf(file, ln, "duplicate id %q (first on line %d)", quote([]byte(id)), first)
		}
		line[id] = ln
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, parseErrorf(file, 0, "%d ids for %d documents (one id per line of contents.txt)", len(ids), n)
	}
	return ids, nil
}
