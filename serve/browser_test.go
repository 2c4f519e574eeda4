package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/internal/shared"
	"github.com/gtformer/gtformer/model"
)

// chromiumPath finds Debian's chromium. Without it the browser tests skip
// with a message, except in CI ($GTFORMER_REQUIRE_SHARED set, as .ci/run
// does after installing the package), where they fail.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed (Debian: apt-get install chromium): the browser tests need it"
	if shared.Required() {
		t.Fatal(msg + "; CI must install it (.ci/run does)")
	}
	t.Skip(msg + "; skipping outside CI")
	return ""
}

// browser starts a headless Chromium with a fresh profile and the flags
// that keep it off the network on its own (no background fetches, updates,
// sync or QUIC), and records every console error or warning, uncaught
// exception, log error and requested URL.
type browser struct {
	ctx context.Context
	mu  sync.Mutex
	bad []string // console errors, exceptions, log errors
	url []string // requested URLs
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	// The profile lives outside t.TempDir: Chromium's helper processes may
	// still be writing into it for a moment after the browser has exited,
	// which would fail TempDir's cleanup; it is removed with retries below.
	profile, err := os.MkdirTemp("", "gtformer-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1500, 950),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelT()
		cancelB()
		cancelA()
		for range 100 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("the browser profile %s could not be removed", profile)
	})
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.APITypeError || ev.Type == cdpruntime.APITypeWarning || ev.Type == cdpruntime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.bad = append(b.bad, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *cdpruntime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.bad = append(b.bad, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				b.bad = append(b.bad, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.url = append(b.url, ev.Request.URL)
		}
	})
	if err := chromedp.Run(ctx, cdpruntime.Enable(), cdplog.Enable(), network.Enable()); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return b
}

// problems returns the console errors and exceptions seen so far.
func (b *browser) problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.bad...)
}

func (b *browser) urls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.url...)
}

func (b *browser) run(t *testing.T, step string, actions ...chromedp.Action) {
	t.Helper()
	// A step that waits for something the page never shows fails after
	// a minute, not at the test's deadline.
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v (console: %v)", step, err, b.problems())
	}
}

// screenshot writes the page as name.png into the test's artifact
// directory (kept with go test -artifacts).
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	var png []byte
	// Quality 100 makes a PNG (below, a JPEG).
	b.run(t, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// explorerChecks drives the page that b shows: the tree lists the
// model's topic words, clicking a topic opens its panel, the disk view
// draws topics and documents, searching a word lists its topics, and a
// document opens from a panel.
func explorerChecks(t *testing.T, b *browser, ix *explore.Index, prefix string) {
	var outline string
	b.run(t, "load", chromedp.WaitVisible(`body[data-ready="true"]`), chromedp.Text(`#outline`, &outline))
	for _, n := range ix.Tree().Nodes {
		if w := n.Words[0].Word; !strings.Contains(outline, w) {
			t.Errorf("the outline does not show topic %d's top word %q", n.ID, w)
		}
		if !strings.Contains(outline, n.Label) {
			t.Errorf("the outline does not show topic %d's label %q", n.ID, n.Label)
		}
	}

	// Clicking a leaf topic in the outline opens its panel.
	nodes := ix.Tree().Nodes
	leaf := nodes[len(nodes)-1]
	var title, panel string
	b.run(t, "click topic",
		chromedp.Click(fmt.Sprintf(`#outline .topic-label[data-topic="%d"]`, leaf.ID), chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`#panel[data-kind="topic"][data-id="%d"]`, leaf.ID), chromedp.ByQuery),
		chromedp.Text(`#panel-title`, &title, chromedp.ByQuery),
		chromedp.Text(`#panel`, &panel, chromedp.ByQuery))
	if title != fmt.Sprintf("Topic #%d", leaf.ID) || !strings.Contains(panel, leaf.Words[0].Word) {
		t.Errorf("topic panel: title %q, want Topic #%d with word %q", title, leaf.ID, leaf.Words[0].Word)
	}
	b.run(t, "lift toggle", chromedp.Click(`#words-lift`, chromedp.ByQuery), chromedp.WaitVisible(`#words-lift.active`, chromedp.ByQuery))
	b.screenshot(t, prefix+"-icicle")

	// The Poincaré disk.
	var topics, docs int
	b.run(t, "disk",
		chromedp.Click(`#tabs .tab[data-view="disk"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#view svg .topic-point`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#view .topic-point').length`, &topics),
		chromedp.Evaluate(`document.querySelectorAll('#view .doc-point').length`, &docs))
	if topics != len(nodes) || docs == 0 {
		t.Errorf("disk: %d topics (want %d) and %d documents", topics, len(nodes), docs)
	}
	b.screenshot(t, prefix+"-disk")

	// Search a word: the topics where it ranks highest.
	word := nodes[1].Words[0].Word
	wt, err := ix.Word(word, 10)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	b.run(t, "search",
		chromedp.SetValue(`#search-input`, word, chromedp.ByQuery),
		chromedp.Click(`#search-form button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#panel[data-kind="search"] #search-results .topic-link`, chromedp.ByQuery),
		chromedp.Text(`#search-results .topic-link`, &first, chromedp.ByQuery))
	if want := fmt.Sprintf("#%d", wt.Topics[0].Topic); first != want {
		t.Errorf("search %q: first topic %q, want %q", word, first, want)
	}

	// A document from a topic panel.
	b.run(t, "document",
		chromedp.Click(`#search-results .topic-link`, chromedp.ByQuery),
		chromedp.WaitVisible(`#panel[data-kind="topic"] #topic-docs .doc-link`, chromedp.ByQuery),
		chromedp.Click(`#topic-docs .doc-link`, chromedp.ByQuery),
		chromedp.WaitVisible(`#panel[data-kind="document"]`, chromedp.ByQuery),
		chromedp.Text(`#panel-title`, &title, chromedp.ByQuery))
	if !strings.HasPrefix(title, "Document ") {
		t.Errorf("document panel title %q", title)
	}
}

// TestBrowserExplorer opens the served explorer in headless Chromium,
// from a server that needs a token and sends its CSP: the page, given the
// token once in its URL, works under the CSP (a refused inline script or
// style would be a console error) and takes the token out of the address.
func TestBrowserExplorer(t *testing.T) {
	ix, _ := fixture(t)
	b := newBrowser(t)
	opt := DefaultOptions()
	opt.Token = "s3cret-t0ken"
	srv := httptest.NewServer(New(ix, opt))
	defer srv.Close()
	b.run(t, "navigate", chromedp.Navigate(srv.URL+"/?token="+opt.Token))
	explorerChecks(t, b, ix, "explorer")
	var search string
	b.run(t, "address", chromedp.Evaluate(`location.search`, &search))
	if search != "" {
		t.Errorf("the token stays in the address bar: %q", search)
	}

	// Embed pasted text with a link: its topics and nearest documents.
	var topics, near int
	b.run(t, "embed",
		chromedp.SetValue(`#embed-text`, strings.Join(wordsOf(ix, 2), " "), chromedp.ByQuery),
		chromedp.SetValue(`#embed-links`, "3, nope", chromedp.ByQuery),
		chromedp.Click(`#embed-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#panel[data-kind="embed"] #embed-results .topic-link`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#embed-results ul .topic-link').length`, &topics),
		chromedp.Evaluate(`document.querySelectorAll('#embed-results .doc-link').length`, &near))
	if topics != explore.DocTopics || near != explore.Nearest {
		t.Errorf("embed: %d topics and %d nearest documents, want %d and %d", topics, near, explore.DocTopics, explore.Nearest)
	}
	var warn string
	b.run(t, "embed warning", chromedp.Text(`#embed-results .error`, &warn, chromedp.ByQuery))
	if !strings.Contains(warn, `"nope"`) {
		t.Errorf("embed warning %q does not name the unknown link", warn)
	}
	b.screenshot(t, "explorer-embed")
	exportChecks(t, b, ix, ix.NumDocs())
	mapsChecks(t, b, ix, "explorer")
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %v", p)
	}
}

// TestBrowserRename renames a topic from its panel on a server that takes
// edits: the panel and the outline show the new label, and the model
// folder's edit log holds it. A refused label shows the server's reason.
func TestBrowserRename(t *testing.T) {
	h, ix, dir := editableServer(t)
	b := newBrowser(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	id := ix.Tree().Nodes[1].ID
	b.run(t, "navigate", chromedp.Navigate(srv.URL+"/?token="+labelToken), chromedp.WaitVisible(`body[data-ready="true"]`))
	var refused string
	b.run(t, "refused label",
		chromedp.Click(fmt.Sprintf(`#outline .topic-label[data-topic="%d"]`, id), chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`#panel[data-kind="topic"][data-id="%d"] #rename-open`, id), chromedp.ByQuery),
		chromedp.Click(`#rename-open`, chromedp.ByQuery),
		// Past the field's maxlength, as a script may set it: the server refuses.
		chromedp.Evaluate(`document.getElementById('rename-input').value = 'x'.repeat(81)`, nil),
		chromedp.Click(`#rename-save`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('rename-error').textContent`, &refused))
	if !strings.Contains(refused, "at most 80 bytes") {
		t.Errorf("refused label: the page says %q", refused)
	}
	var name, outline string
	b.run(t, "rename",
		chromedp.SetValue(`#rename-input`, "Planted branch", chromedp.ByQuery),
		chromedp.Click(`#rename-save`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('topic-name').textContent === 'Planted branch'`, nil),
		chromedp.Text(`#topic-name`, &name, chromedp.ByQuery),
		chromedp.Text(`#outline`, &outline, chromedp.ByQuery))
	if name != "Planted branch" || !strings.Contains(outline, "Planted branch") {
		t.Errorf("after the rename: panel %q, outline holds it: %v", name, strings.Contains(outline, "Planted branch"))
	}
	m, _, err := model.Load(dir)
	if err != nil || m.Edits.Labels()[id] != "Planted branch" {
		t.Errorf("the folder's model: %v, labels %v", err, m.Edits.Labels())
	}
	b.screenshot(t, "explorer-rename")
	if p := b.problems(); len(p) > 0 {
		// The refused PUT is a 400 the browser logs as a failed request.
		for _, x := range p {
			if !strings.Contains(x, "400") {
				t.Errorf("console errors: %v", p)
				break
			}
		}
	}
}

// exportChecks clicks the four export buttons (the disk view is shown)
// and checks the downloaded files: an SVG, a PNG, the tree as JSON and the
// document→topic CSV of csvRows documents.
func exportChecks(t *testing.T, b *browser, ix *explore.Index, csvRows int) {
	dir := t.TempDir()
	b.run(t, "downloads", cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(dir))
	for _, id := range []string{"export-svg", "export-png", "export-tree", "export-csv"} {
		b.run(t, id, chromedp.Click("#"+id, chromedp.ByID))
	}
	want := map[string]func([]byte) bool{
		"gtformer-disk.svg": func(b []byte) bool {
			return bytes.HasPrefix(b, []byte("<svg")) && bytes.Contains(b, []byte("topic-point"))
		},
		"gtformer-disk.png": func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) },
		"gtformer-tree.json": func(b []byte) bool {
			var tr explore.Tree
			return json.Unmarshal(b, &tr) == nil && len(tr.Nodes) == len(ix.Tree().Nodes)
		},
		"gtformer-doc-topics.csv": func(b []byte) bool {
			return bytes.HasPrefix(b, []byte("id,label,top_topic,top_theta,path,top_topic_label\n")) && bytes.Count(b, []byte("\n")) == csvRows+1
		},
	}
	deadline := time.Now().Add(time.Minute)
	for name, ok := range want {
		for {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil && ok(data) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("export %s: %v, %d bytes", name, err, len(data))
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// wordsOf returns the top words of topic row r.
func wordsOf(ix *explore.Index, r int) []string {
	var out []string
	for _, w := range ix.Tree().Nodes[r].Words {
		out = append(out, w.Word)
	}
	return out
}

// TestBrowserReport opens a report file with the network switched off:
// the same checks pass, no request leaves the file, and the embed form
// says it needs the server.
func TestBrowserReport(t *testing.T) {
	ix, _ := fixture(t)
	b := newBrowser(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := ix.WriteReport(path, explore.ReportOptions{MaxDocs: 200}); err != nil {
		t.Fatal(err)
	}
	b.run(t, "offline", network.EmulateNetworkConditions(true, 0, -1, -1))
	b.run(t, "navigate", chromedp.Navigate("file://"+path))
	explorerChecks(t, b, ix, "report")
	var disabled bool
	var note string
	b.run(t, "embed disabled",
		chromedp.Evaluate(`document.getElementById('embed-button').disabled`, &disabled),
		chromedp.Text(`#embed-note`, &note, chromedp.ByQuery))
	if !disabled || !strings.Contains(note, "gtformer serve") {
		t.Errorf("report embed form: disabled %v, note %q", disabled, note)
	}
	exportChecks(t, b, ix, 200) // the report's CSV holds its sample
	mapsChecks(t, b, ix, "report")
	for _, u := range b.urls() {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
			t.Errorf("the report requested %s", u)
		}
	}
	if p := b.problems(); len(p) > 0 {
		t.Errorf("console errors: %v", p)
	}
}
