// Command gtformer learns a topic tree and hyperbolic document embeddings from
// a document graph. Run "gtformer help" for the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
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
	fs.Bool(helpAllFlag, false, "list every flag, the research options included")
	fs.Usage = func() { printUsage(stderr, fs, synopsis, "", helpAll(fs)) }
	return fs
}

// helpAll reports whether fs's --help-all was given.
func helpAll(fs *flag.FlagSet) bool {
	f := fs.Lookup(helpAllFlag)
	return f != nil && f.Value.String() == "true"
}

// parseFlags parses args and turns flag errors into usage errors; -h prints
// help and reports flag.ErrHelp, which main turns into exit 0. A float flag
// given NaN or an infinity is a usage error too: no setting means either,
// and an infinite learning rate once reached the optimiser and panicked.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if helpAll(fs) {
		fs.Usage()
		return flag.ErrHelp
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || bad != nil {
			return
		}
		var x float64
		switch v := g.Get().(type) {
		case float64:
			x = v
		case float32:
			x = float64(v)
		default:
			return
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			bad = usagef("--%s %s: not a finite number", f.Name, f.Value)
		}
	})
	return bad
}

// float32Value is a float32 flag (flag has none); Get makes it visible to
// parseFlags's finite check.
type float32Value struct{ p *float32 }

func (v float32Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(float64(*v.p), 'g', -1, 32)
}

func (v float32Value) Set(s string) error {
	x, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return errors.New("parse error")
	}
	*v.p = float32(x)
	return nil
}

func (v float32Value) Get() any { return *v.p }

// exitError carries an exit status of its own (128 + the signal for an
// interrupted run, as shells report a process ended by that signal).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// No command is a usage mistake: the overview goes where errors go.
		printOverview(stderr)
		return 2
	}
	if args[0] == "help" && len(args) == 2 && args[1] == "--markdown" {
		if err := writeCLIDoc(stdout); err != nil {
			fmt.Fprintf(stderr, "gtformer help: %v\n", err)
			return 1
		}
		return 0
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
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
			if len(args) >= 2 && (args[1] == "-h" || args[1] == "--help" || args[1] == "help") {
				fmt.Fprintf(stdout, "usage: gtformer %s <subcommand> [flags]   (gtformer %s <subcommand> -h for its flags)\n\nsubcommands:\n", args[0], args[0])
				for _, name := range group {
					fmt.Fprintf(stdout, "  %-16s %s\n", name, commands[name].summary)
				}
				return 0
			}
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
	var ee exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "gtformer %s: %s\n", c.name, unstutter(c.name, err))
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "gtformer %s: %s\n", c.name, unstutter(c.name, err))
		return 2
	default:
		fmt.Fprintf(stderr, "gtformer %s: %s\n", c.name, unstutter(c.name, err))
		return 1
	}
}

// unstutter is err's message without a leading "name: ": the packages
// prefix their errors with their name, and two share it with a command
// (train, model), which would print "gtformer train: train: ...".
func unstutter(name string, err error) string {
	return strings.TrimPrefix(err.Error(), name+": ")
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
