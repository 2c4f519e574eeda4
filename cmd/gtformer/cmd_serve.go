package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/pipeline"
	"github.com/gtformer/gtformer/serve"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve a trained model: HTTP API and the topic-tree explorer page",
		run:     runServe,
	})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	var d dataFlags
	fs := newFlagSet("serve", "--model DIR [--data PATH] [--addr 127.0.0.1:8080]", stderr)
	d.registerLoad(fs)
	allow := allowCorpusFlag(fs, "serve")
	dir := modelDirFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "`HOST:PORT` to listen on; the default binds to this machine only (port 0: any free port)")
	def := serve.DefaultOptions()
	maxBody := fs.Int64("max-body", def.MaxBody, "largest request body in bytes (413 beyond)")
	maxDocs := fs.Int("max-docs", def.MaxDocs, "most documents in one POST /v1/embed (413 beyond)")
	maxConc := fs.Int("max-concurrent", def.MaxConcurrent, "API requests in flight at once (429 with Retry-After beyond)")
	maxEmbed := fs.Int("max-embed", def.MaxEmbed, "embed requests in flight at once (429 with Retry-After beyond; default: one per core, or --threads)")
	grace := fs.Duration("grace", 10*time.Second, "on SIGINT/SIGTERM, how long requests in flight may take to finish")
	threads := threadsFlag(fs)
	var hosts hostList
	fs.Var(&hosts, "allowed-host", "a Host `NAME` (or IP) the server answers for besides localhost, 127.0.0.1, [::1] and the --addr host; repeatable or a comma list")
	token := fs.String("token", "", "a `TOKEN` every API request must send as \"Authorization: Bearer TOKEN\" (the page: open /?token=TOKEN once); visible to other users of this machine in the process list, so prefer --token-file")
	tokenFile := fs.String("token-file", "", "read the token from `FILE` (its first line, surrounding spaces removed)")
	insecure := fs.Bool("insecure-no-token", false, "allow --addr to bind an address other machines can reach without a token: anyone who can reach it reads the corpus")
	describe(fs, stderr, "--model DIR [--data PATH] [--addr 127.0.0.1:8080]", `
Serves a trained model and the corpus it was trained on (--data, as for
train; empty: the built-in corpus) over HTTP: the explorer page at / and the
JSON API under /v1/ (info, tree, topics, facets, link map, documents, words,
search, layout, doc-topic CSV, POST embed and neighbors; see the README). The documents'
embeddings come from the model folder's doc_embeddings.npy and
doc_topics.npy, or are computed at start when those are missing. SIGINT or
SIGTERM stops the server gracefully.

The server answers only requests for its own names (localhost, 127.0.0.1,
[::1], the --addr host and --allowed-host names; others get 421), so that a
web page elsewhere cannot reach it by rebinding its DNS name to this
machine, and takes POST bodies only as application/json. With --token or
--token-file every API request needs "Authorization: Bearer TOKEN"; open
the page once as /?token=TOKEN and it keeps the token for the tab. An
--addr other machines can reach (":PORT", 0.0.0.0, a LAN address) needs a
token, or --insecure-no-token to say that anyone who reaches it may read
the corpus. With a token, the page can rename topics (PUT
/v1/topics/{id}/label): the label goes into the model folder's edit log,
edits.json. /healthz answers 503 {"status": "saturated"} while every API
slot is taken.`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--model is required")
	}
	if *maxBody < 1 || *maxDocs < 1 || *maxConc < 1 || *maxEmbed < 1 {
		return usagef("--max-body, --max-docs, --max-concurrent and --max-embed must be positive")
	}
	restore, err := useThreads(*threads)
	if err != nil {
		return err
	}
	defer restore()
	if *threads > 0 && !visited(fs, "max-embed") {
		*maxEmbed = *threads // one embed request per core, as by default
	}
	tok, err := serveToken(*token, *tokenFile)
	if err != nil {
		return err
	}
	allowed, err := serveHosts(*addr, tok, *insecure)
	if err != nil {
		return err
	}
	// Signals are caught from here on, before the slow load, so that an
	// early Ctrl-C still ends the command through the same path.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The documents' embeddings do not depend on the split.
	m, _, g, _, err := loadModelAndCorpus(*dir, &d, *allow, stderr, "split")
	if err != nil {
		return err
	}
	start := time.Now()
	ix, err := explore.Open(*dir, m, g)
	if err != nil {
		return err
	}
	info := ix.Info()
	fmt.Fprintf(stderr, "indexed %d documents and %d topics in %.1fs (embeddings: %s)\n", info.Documents, info.Topics, time.Since(start).Seconds(), info.Embeddings)
	opt := def
	opt.MaxBody, opt.MaxDocs, opt.MaxConcurrent, opt.MaxEmbed = *maxBody, *maxDocs, *maxConc, *maxEmbed
	opt.AllowedHosts, opt.Token = append(allowed, hosts...), tok
	if tok != "" {
		// Renames (PUT /v1/topics/{id}/label) go into the model folder's
		// edit log: only with a token, and only when the folder takes files.
		if err := writable(*dir); err != nil {
			fmt.Fprintf(stderr, "topics cannot be renamed from the page: %v\n", err)
		} else {
			opt.SaveEdits = func(l *edits.Log) error { return pipeline.SaveEdits(*dir, l) }
		}
	}
	err = serve.ListenAndServe(ctx, *addr, serve.New(ix, opt), *grace, func(a net.Addr) {
		how := "Ctrl-C stops"
		if tok != "" {
			how = "open it as /?token=TOKEN with the token given; Ctrl-C stops"
		}
		fmt.Fprintf(stdout, "serving %s on http://%s/ (%s)\n", d.source(), a, how)
	})
	if err == nil {
		fmt.Fprintln(stdout, "stopped")
	}
	return err
}

// writable reports why no file can be made in dir (nil when one can).
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".gtformer-write-check-*")
	if err != nil {
		return fmt.Errorf("the model folder %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// hostList is --allowed-host: repeatable, each a comma list.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(s string) error {
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if serve.HostName(n) == "" {
			return fmt.Errorf("serve: an empty name: want host names or IP addresses, separated by commas")
		}
		*h = append(*h, n)
	}
	return nil
}

// serveToken returns the token of --token or --token-file ("" for none).
func serveToken(flagTok, file string) (string, error) {
	if flagTok != "" && file != "" {
		return "", usagef("give --token or --token-file, not both")
	}
	tok := flagTok
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("serve: --token-file: %w", err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if tok = strings.TrimSpace(first); tok == "" {
			return "", fmt.Errorf("serve: --token-file %s: the first line is empty: write the token there", file)
		}
	}
	for _, r := range tok {
		// The page sends the token in a header, which a browser takes in
		// printable ASCII only; spaces inside are allowed (the whole rest
		// of the header is the token).
		if r < 0x20 || r >= 0x7f {
			return "", usagef("the token holds %q: use printable ASCII characters only", r)
		}
	}
	return tok, nil
}

// serveHosts checks that --addr may be bound with the token given and
// returns the Host names it adds: its own host, unless that is every
// interface. A host other than a loopback address or localhost can be
// reached from other machines, so it needs a token unless insecure.
func serveHosts(addr, tok string, insecure bool) ([]string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("--addr %q: want HOST:PORT (e.g. 127.0.0.1:8080): %v", addr, err)
	}
	name := serve.HostName(host)
	ip := net.ParseIP(name)
	loopback := name == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && tok == "" && !insecure {
		where := "every interface of this machine"
		if name != "" && (ip == nil || !ip.IsUnspecified()) {
			where = name + ", which other machines may reach"
		}
		return nil, usagef("--addr %s binds %s, and without a token anyone who reaches it reads the corpus: give --token-file FILE (or --token), bind 127.0.0.1, or say --insecure-no-token", addr, where)
	}
	if name == "" || ip != nil && ip.IsUnspecified() {
		return nil, nil // clients name this machine as they reach it: --allowed-host
	}
	return []string{host}, nil
}
