// Command gtformer learns a topic tree and hyperbolic document embeddings from
// a document graph. Run "gtformer help" for the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gtformer/gtformer/tensor"
)

// command is one subcommand. Subcommands live in cmd_*.go files and register
// themselves in init, so each can be written and tested on its own.
type command struct {
	name    string // e.g. "train" or "data stats"
	summary string // one line for the overview
	// run parses args with its own FlagSet and does the work. It returns a
	// usageError for bad usage (exit 2) and any other error for a runtime
	// failure (exit 1).
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("gtformer: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks a command-line mistake: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// newFlagSet returns a FlagSet whose usage text names the command and that
// reports errors instead of exiting, so that run can map them to exit 2.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gtformer "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gtformer %s %s\n\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns flag errors into usage errors; -h prints
// help and reports flag.ErrHelp, which main turns into exit 0.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	return nil
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printOverview(stdout)
		return 0
	}
	// Two-word commands ("data stats") take precedence over one-word ones.
	var c *command
	rest := args[1:]
	if len(args) >= 2 {
		if c2, ok := commands[args[0]+" "+args[1]]; ok {
			c, rest = c2, args[2:]
		}
	}
	if c == nil {
		c = commands[args[0]]
	}
	if c == nil {
		if group := groupCommands(args[0]); len(group) > 0 {
			fmt.Fprintf(stderr, "gtformer %s: expected a subcommand: %s\n", args[0], strings.Join(group, ", "))
			return 2
		}
		fmt.Fprintf(stderr, "gtformer: unknown command %q (run 'gtformer help')\n", args[0])
		return 2
	}
	// A bad GTFORMER_BLAS or GTFORMER_BLAS_LIB is a usage error: running on
	// another path than asked would go unnoticed.
	if err := tensor.BLASError(); err != nil {
		fmt.Fprintf(stderr, "gtformer %s: %v\n", c.name, err)
		return 2
	}
	err := c.run(rest, stdout, stderr)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "gtformer %s: %v\n", c.name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "gtformer %s: %v\n", c.name, err)
		return 1
	}
}

func groupCommands(prefix string) []string {
	var out []string
	for name := range commands {
		if strings.HasPrefix(name, prefix+" ") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func printOverview(w io.Writer) {
	fmt.Fprintln(w, "gtformer: hierarchical graph topic modelling (topic tree + hyperbolic document embeddings)")
	fmt.Fprintln(w, "\nusage: gtformer <command> [flags]   (gtformer <command> -h for a command's flags)\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
}
