// Package csvsafe neutralises CSV cells that a spreadsheet would read as a
// formula (CSV or formula injection): a cell starting with =, +, -, @, a
// tab or a carriage return gets a single quote in front, as OWASP's advice
// on CSV injection has it; a line feed too, since encoding/csv reads a
// quoted CR LF back as LF and the cell must stay recognisably quoted. The
// quote makes a spreadsheet show the cell as text, and hides the quote.
//
// Only text that came from outside the program (document ids, labels,
// words) needs it. Numbers the program formats itself (a topic id, a θ, a
// negative coordinate such as -0.25) are not user input: writing them
// unquoted keeps numeric columns numeric, and a number cannot hold a
// formula. A text cell that merely looks like a negative number (an id
// "-1") is still quoted: its column is text, and "-1+A1" would be a formula.
package csvsafe

// risky reports whether a spreadsheet may read a cell starting with b as
// a formula (=, +, -, @) or strip or split it (tab, carriage return, line
// feed).
func risky(b byte) bool {
	switch b {
	case '=', '+', '-', '@', '\t', '\r', '\n':
		return true
	}
	return false
}

// Text returns s safe to write as a CSV cell: prefixed with a single quote
// when it starts with =, +, -, @, a tab, a carriage return or a line feed,
// and also when
// it starts with a single quote, so that Undo recovers every cell exactly
// (a spreadsheet shows "”x" as "'x", the original). Other text is
// returned unchanged.
func Text(s string) string {
	if s != "" && (risky(s[0]) || s[0] == '\'') {
		return "'" + s
	}
	return s
}

// Undo returns the text that Text was given for cell: one leading single
// quote removed. It is for programs that read back a CSV this project
// wrote; a spreadsheet does the same by itself.
func Undo(cell string) string {
	if len(cell) > 1 && cell[0] == '\'' && (risky(cell[1]) || cell[1] == '\'') {
		return cell[1:]
	}
	return cell
}
