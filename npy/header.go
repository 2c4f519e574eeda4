package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// hdr is the content of a .npy header dict.
type hdr struct {
	descr   string
	fortran bool
	shape   []int
}

// parseHeader parses the Python dict literal of a .npy header: exactly the
// keys 'descr' (a string), 'fortran_order' (True/False) and 'shape' (a tuple
// of non-negative integers), in any order, with an optional trailing comma.
// It accepts only this subset of Python syntax, which is all numpy writes.
func parseHeader(s string) (hdr, error) {
	p := &lit{s: s}
	var h hdr
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return h, fmt.Errorf("expected '{' at offset %d", p.i)
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return h, fmt.Errorf("expected ':' after key %q at offset %d", key, p.i)
		}
		p.space()
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %w", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
				h.fortran = false
			default:
				return h, fmt.Errorf("fortran_order: expected True or False at offset %d", p.i)
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, fmt.Errorf("shape: %w", err)
			}
		default:
			return h, fmt.Errorf("unexpected key %q", key)
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat('}') {
			return h, fmt.Errorf("expected ',' or '}' at offset %d", p.i)
		}
		break
	}
	if strings.TrimSpace(s[p.i:]) != "" {
		return h, fmt.Errorf("trailing characters after the dict at offset %d", p.i)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	return h, nil
}

// lit is a cursor over a Python literal.
type lit struct {
	s string
	i int
}

func (p *lit) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *lit) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lit) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes (dtype strings and keys never
// need them).
func (p *lit) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("expected a quoted string at offset %d", p.i)
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string at offset %d", p.i)
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.ContainsRune(v, '\\') {
		return "", fmt.Errorf("escape sequences not supported in string at offset %d", p.i)
	}
	p.i += end + 2
	return v, nil
}

// tuple reads "(a, b, )" of non-negative integers; "()" is a scalar shape.
func (p *lit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("expected '(' at offset %d", p.i)
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		// Python 2 era files may write long integers as "3L".
		digits := p.s[start:p.i]
		p.eat('L')
		if digits == "" {
			return nil, fmt.Errorf("expected a non-negative integer at offset %d", start)
		}
		d, err := strconv.Atoi(digits)
		if err != nil || d > maxElems {
			return nil, fmt.Errorf("dimension %q out of range", digits)
		}
		shape = append(shape, d)
		p.space()
		if p.eat(',') {
			continue
		}
		// "(3)" is the integer 3 in Python, not a tuple; numpy never writes
		// it, and reading it as shape (3,) is harmless.
		if p.eat(')') {
			return shape, nil
		}
		return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.i)
	}
}
