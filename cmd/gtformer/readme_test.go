package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The documentation's code blocks are commands a reader copies. These tests
// check that every `gtformer <command>` they show is a command of this
// binary and every flag given to it is one of that command's flags, so a
// renamed or removed command or flag fails the build instead of the reader.
// They do not check wording.

// docsWithCommands are the documents whose code blocks must run as written
// (the journal is history: its commands name options since removed).
var docsWithCommands = []string{"README.md", "docs/results.md"}

// flagDefined reports whether the command defines the flag, by parsing
// "--name=x -h" with the command's own flag set: the flag package reports an
// unknown flag as "provided but not defined" before anything runs, and a
// known one either takes the value or rejects it, and -h then stops the
// command before it does anything. So research flags that short help leaves
// out are found too, whatever the help text looks like.
func flagDefined(cmd, name string) bool {
	if name == "h" || name == "help" {
		return true
	}
	args := append(strings.Fields(cmd), "--"+name+"=x", "-h")
	var stdout, stderr bytes.Buffer
	run(args, &stdout, &stderr)
	return !strings.Contains(stderr.String(), "provided but not defined")
}

// commandName resolves the words after the program name to a registered
// command as run does (a two-word command first) and returns it with the
// number of words it took; ok is false for no registered command.
func commandName(words []string) (name string, n int, ok bool) {
	if len(words) >= 2 {
		if _, found := commands[words[0]+" "+words[1]]; found {
			return words[0] + " " + words[1], 2, true
		}
	}
	if len(words) >= 1 {
		if _, found := commands[words[0]]; found {
			return words[0], 1, true
		}
		if words[0] == "help" {
			return "help", 1, true
		}
	}
	return "", 0, false
}

// isProgram reports whether a shell word runs gtformer: the binary by name
// or path, or the package path that go run and go build are given.
func isProgram(w string) bool {
	return w == "gtformer" || strings.HasSuffix(w, "/gtformer")
}

// isWord reports whether a shell word can be a command name (not a flag, a
// path, a placeholder or a variable).
func isWord(w string) bool {
	if w == "" {
		return false
	}
	c := w[0]
	return c >= 'a' && c <= 'z'
}

// shellSegments returns a code block's commands: lines joined at trailing
// backslashes, comments dropped, split into words and at the shell's
// separators (|, ||, &&, ;, &).
func shellSegments(block string) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
		var seg []string
		for _, w := range strings.Fields(line) {
			if strings.HasPrefix(w, "#") {
				break
			}
			sep := false
			switch w {
			case "|", "||", "&&", ";", "&":
				sep = true
			default:
				if t := strings.TrimRight(w, ";&"); t != w {
					seg = append(seg, t)
					sep = true
				}
			}
			if sep {
				out = append(out, seg)
				seg = nil
				continue
			}
			seg = append(seg, w)
		}
		out = append(out, seg)
	}
	return out
}

// codeBlocks returns the contents of md's fenced code blocks.
func codeBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if in {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

// checkCommands checks every gtformer invocation in md's code blocks and
// returns the problems found and how many invocations were checked.
func checkCommands(md string, flagDefined func(cmd, name string) bool) (problems []string, checked int) {
	for _, block := range codeBlocks(md) {
		for _, seg := range shellSegments(block) {
			for i := 0; i < len(seg); i++ {
				if !isProgram(seg[i]) || i+1 >= len(seg) || !isWord(seg[i+1]) {
					continue
				}
				rest := seg[i+1:]
				name, n, ok := commandName(rest)
				checked++
				if !ok {
					problems = append(problems, fmt.Sprintf("%q: no command %q", strings.Join(seg, " "), rest[0]))
					break
				}
				for _, w := range rest[n:] {
					w = strings.TrimLeft(w, "[")
					if len(w) < 2 || w[0] != '-' {
						continue
					}
					f := strings.TrimRight(strings.TrimLeft(w, "-"), "]")
					f, _, _ = strings.Cut(f, "=")
					if f != "" && !flagDefined(name, f) {
						problems = append(problems, fmt.Sprintf("%q: gtformer %s has no flag --%s", strings.Join(seg, " "), name, f))
					}
				}
				break
			}
		}
	}
	return problems, checked
}

// TestREADMECommandsExist: every command the README and docs/results.md show
// in a code block is a command, and every flag given to it is its flag.
func TestREADMECommandsExist(t *testing.T) {
	for _, doc := range docsWithCommands {
		b, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		problems, checked := checkCommands(string(b), flagDefined)
		for _, p := range problems {
			t.Errorf("%s: %s", doc, p)
		}
		if checked == 0 {
			t.Errorf("%s: no gtformer command found in its code blocks; this test would check nothing", doc)
		}
		t.Logf("%s: %d gtformer commands checked", doc, checked)
	}
}

// TestREADMECheckFindsProblems: the check fails on an unknown command or
// flag and passes what run accepts, on small documents.
func TestREADMECheckFindsProblems(t *testing.T) {
	fence := "```"
	block := func(lines ...string) string {
		return "text\n\n" + fence + "sh\n" + strings.Join(lines, "\n") + "\n" + fence + "\n"
	}
	for _, tc := range []struct {
		name     string
		md       string
		problems int
		checked  int
	}{
		{"known command and flags", block("gtformer train --data data/ml --epochs 2 --out m"), 0, 1},
		{"flag=value", block("gtformer train --epochs=2 --supervised"), 0, 1},
		{"unknown command", block("gtformer nosuchcommand --data x"), 1, 1},
		{"unknown flag", block("gtformer train --no-such-flag 3"), 1, 1},
		{"flag of another command", block("gtformer topics --epochs 2"), 1, 1},
		{"two-word command", block("gtformer data stats --json"), 0, 1},
		{"two-word command, unknown flag", block("gtformer bench serve --no-such-flag"), 1, 1},
		{"unknown subcommand of a group", block("gtformer data nosuch"), 1, 1},
		{"go run of the package", block("go run ./cmd/gtformer train --no-such-flag"), 1, 1},
		{"build and install are not invocations", block("go build -o gtformer ./cmd/gtformer", "go install ./cmd/gtformer"), 0, 0},
		{"continued line", block("gtformer train \\", "  --no-such-flag 1"), 1, 1},
		{"comment", block("gtformer train --epochs 2   # --no-such-flag in a comment"), 0, 1},
		{"pipe", block("gtformer topics --model m | head -n 5"), 0, 1},
		{"background and next command", block("gtformer serve --model m & gtformer nosuch"), 1, 2},
		{"usage brackets", block("gtformer eval --model DIR [--data PATH]"), 0, 1},
		{"research flag", block("gtformer train --tau 10"), 0, 1},
		{"help", block("gtformer train -h", "gtformer help"), 0, 2},
		{"prose is not checked", "run `gtformer nosuch --bogus` in prose\n", 0, 0},
		{"two problems", block("gtformer train --bogus-a 1 --bogus-b 2"), 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems, checked := checkCommands(tc.md, flagDefined)
			if len(problems) != tc.problems || checked != tc.checked {
				t.Errorf("%d problems %q, %d checked; want %d problems, %d checked", len(problems), problems, checked, tc.problems, tc.checked)
			}
		})
	}
}
