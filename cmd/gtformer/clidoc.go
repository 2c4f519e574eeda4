package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// cliDocCommand regenerates docs/cli.md.
const cliDocCommand = "go run ./cmd/gtformer help --markdown > docs/cli.md"

// writeCLIDoc writes docs/cli.md: every command's summary and its full
// help (--help-all), as the flag sets print it.
func writeCLIDoc(w io.Writer) error {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# gtformer command reference\n\n")
	fmt.Fprintf(&b, "Generated from the commands' flag sets by `%s`;\n", cliDocCommand)
	fmt.Fprintf(&b, "a test fails when this file is stale. `gtformer <command> -h` shows the main flags,\n")
	fmt.Fprintf(&b, "`--help-all` all of them, as listed here.\n\n")
	for _, n := range names {
		fmt.Fprintf(&b, "- [gtformer %s](#%s): %s\n", n, anchor("gtformer "+n), commands[n].summary)
	}
	for _, n := range names {
		var help bytes.Buffer
		err := commands[n].run([]string{"--" + helpAllFlag}, io.Discard, &help)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			return fmt.Errorf("%s --%s: %w", n, helpAllFlag, err)
		}
		fmt.Fprintf(&b, "\n## gtformer %s\n\n%s\n\n```text\n%s```\n", n, commands[n].summary, help.String())
	}
	_, err := w.Write(b.Bytes())
	return err
}

// anchor is the Markdown heading's link target.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}
