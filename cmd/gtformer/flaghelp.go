package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// flagGroup is a heading of a command's help and the flags under it.
type flagGroup struct {
	title string
	// hidden groups are listed by --help-all only; -h says they exist.
	hidden bool
	flags  []string
}

// flagGroups are the groups of each command that has grouped help, by
// its flag set's name ("gtformer train"). A command without an entry
// lists its flags under one heading. Every flag of a grouped command is
// in exactly one group (TestFlagGroupsComplete).
var flagGroups = map[string][]flagGroup{}

// helpAllFlag is the flag that every command registers to list all its
// flags, hidden groups included.
const helpAllFlag = "help-all"

// helpWidth is the longest line help prints.
const helpWidth = 120

// printUsage writes fs's usage: the synopsis, the description and the
// flags by group, every line wrapped at helpWidth. all includes the hidden
// groups.
func printUsage(w io.Writer, fs *flag.FlagSet, synopsis, text string, all bool) {
	for i, line := range wrap(fmt.Sprintf("usage: %s %s", fs.Name(), synopsis), helpWidth) {
		if i > 0 {
			line = "    " + line
		}
		fmt.Fprintln(w, line)
	}
	if text = strings.TrimSpace(text); text != "" {
		fmt.Fprintln(w)
		for _, line := range strings.Split(text, "\n") {
			for _, l := range wrap(line, helpWidth) {
				fmt.Fprintln(w, l)
			}
		}
	}
	groups := flagGroups[fs.Name()]
	placed := map[string]bool{helpAllFlag: true}
	for _, g := range groups {
		for _, name := range g.flags {
			placed[name] = true
		}
	}
	// The flags no group names come first: a command that groups only
	// its hidden flags lists the others as it always did.
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !placed[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	printGroup(w, fs, "flags", rest)
	hidden := 0
	for _, g := range groups {
		if g.hidden && !all {
			for _, name := range g.flags {
				if fs.Lookup(name) != nil {
					hidden++
				}
			}
			continue
		}
		printGroup(w, fs, g.title, g.flags)
	}
	if hidden > 0 {
		fmt.Fprintf(w, "\n%d more flags (research options, stress tests, the finer settings): --%s lists every flag\n", hidden, helpAllFlag)
	}
}

// corpusGroups are the corpus flags that the commands reading a corpus
// hide behind --help-all.
var corpusGroups = []flagGroup{
	{title: "corpus reading", hidden: true, flags: []string{"knn-k", "knn-budget", "min-df", "max-df", "max-vocab", "split-seed"}},
	{title: "stress tests", hidden: true, flags: []string{"drop-links", "cut-words"}},
}

func init() {
	for _, name := range []string{"baseline", "eval", "embed", "report", "data stats", "data validate", "bench serve"} {
		flagGroups["gtformer "+name] = corpusGroups
	}
}

// printGroup writes one heading and its flags, in the order given.
func printGroup(w io.Writer, fs *flag.FlagSet, title string, names []string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		kind, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if kind != "" {
			head += " " + kind
		}
		if !zeroDefault(f) {
			// Quoted for a string flag, as the flag package prints it.
			if fmt.Sprintf("%T", f.Value) == "*flag.stringValue" {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %v)", f.DefValue)
			}
		}
		fmt.Fprintln(w, head)
		for _, line := range wrap(usage, helpWidth-6) {
			fmt.Fprintln(w, "      "+line)
		}
	}
}

// zeroDefault reports whether f's default is its type's zero value, which
// help does not print.
func zeroDefault(f *flag.Flag) bool {
	return slices.Contains([]string{"", "0", "false"}, f.DefValue)
}

// wrap breaks s into lines of at most width characters at spaces (a
// longer word gets a line of its own).
func wrap(s string, width int) []string {
	var lines []string
	if len([]rune(s)) <= width {
		return []string{s}
	}
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	line := indent
	for _, word := range strings.Fields(s) {
		switch {
		case line == indent:
			line += word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line = indent + word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}
