package serve

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// What guards the server against the browser of its own user (a web page
// elsewhere that rebinds its name to this machine, or fires requests at
// it) and against slow clients, in the order a request meets it:
//
//  1. Every answer carries securityHeaders.
//  2. A request whose Host is not a loopback name or one of
//     Options.AllowedHosts gets 421: after DNS rebinding the browser still
//     sends the attacker's name.
//  3. With Options.Token set, every request but the page, its assets and
//     /healthz needs "Authorization: Bearer <token>" (401 otherwise).
//  4. A POST or PUT body must be Content-Type application/json (415 otherwise):
//     a cross-site form or text/plain fetch cannot send it without a CORS
//     preflight, which this server never grants.
//  5. A POST or PUT body is read whole, within Options.BodyTimeout (408 beyond),
//     before the request takes an in-flight slot, so that slow senders
//     hold connections but never the slots the other requests need.
//  6. The answer is made in memory under the slot and sent after it is
//     given back (limit's buffer), so that slow readers hold no slot
//     either.

// securityHeaders are set on every answer: no MIME sniffing, no framing,
// and a page that loads scripts, styles and data only from this server
// (images also from data: and blob: URLs, which the page's favicon and
// PNG export use). The token travels in the page's first URL, so no
// Referer is sent.
var securityHeaders = map[string]string{
	"X-Content-Type-Options":       "nosniff",
	"Content-Security-Policy":      "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Frame-Options":              "DENY",
	"Referrer-Policy":              "no-referrer",
	"Cross-Origin-Resource-Policy": "same-origin",
}

// LoopbackHosts are the Host names always answered: this machine's.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// HostName returns the name part of a Host header or a --addr host, as the
// host check compares it: without the port or IPv6 brackets, lower case,
// without a final dot.
func HostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// guard is the server's front: the checks 1-3 above, then next.
type guard struct {
	hosts map[string]bool // HostName of every allowed Host
	token []byte          // SHA-256 of Options.Token; nil: no token needed
	next  http.Handler
}

func newGuard(opt Options, next http.Handler) guard {
	g := guard{hosts: map[string]bool{}, next: next}
	for _, h := range append(append([]string(nil), LoopbackHosts...), opt.AllowedHosts...) {
		if n := HostName(h); n != "" {
			g.hosts[n] = true
		}
	}
	if opt.Token != "" {
		sum := sha256.Sum256([]byte(opt.Token))
		g.token = sum[:]
	}
	return g
}

func (g guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	if !g.hosts[HostName(r.Host)] {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusMisdirectedRequest)
		io.WriteString(w, "misdirected request: this server does not answer for the host name "+quoteHost(r.Host)+
			" (it answers for localhost, 127.0.0.1, [::1] and the names given to gtformer serve --allowed-host)\n")
		return
	}
	if g.token != nil && needsToken(r.URL.Path) && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gtformer"`)
		writeError(w, errorf(http.StatusUnauthorized, "this server needs its token: send the header \"Authorization: Bearer <token>\" (in a browser, open /?token=<token> once)"))
		return
	}
	g.next.ServeHTTP(w, r)
}

// quoteHost quotes a Host for the 421 message, cut short: it is the
// client's own text, echoed as plain text.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100] + "…"
	}
	return `"` + strings.ToValidUTF8(h, "?") + `"`
}

// needsToken: everything but the page, its static assets and /healthz,
// which hold no data of the model or the corpus.
func needsToken(path string) bool {
	return path != "/" && path != "/healthz" && !strings.HasPrefix(path, "/assets/")
}

// authorized compares the request's bearer token with the server's in
// constant time (both hashed first, so that neither length leaks).
func (g guard) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], g.token) == 1
}

// bodyFirst reads a POST or PUT body (checks 4 and 5 above) and hands the request
// on with the body in memory.
type bodyFirst struct {
	maxBody int64
	timeout time.Duration
	next    http.Handler
}

func (b bodyFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, errorf(http.StatusUnsupportedMediaType, "the request body must be JSON sent with \"Content-Type: application/json\", got Content-Type %q", r.Header.Get("Content-Type")))
		return
	}
	if r.ContentLength > b.maxBody {
		w.Header().Set("Connection", "close")
		writeError(w, errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes is over the limit of %d bytes", r.ContentLength, b.maxBody))
		return
	}
	// A recorder in tests has no connection: no deadline then.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(b.timeout))
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, b.maxBody))
	// No deadline once the body is in: the connection's background read
	// during a long request must not time out (that would cancel it).
	rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooBig *http.MaxBytesError
		w.Header().Set("Connection", "close")
		switch {
		case errors.As(err, &tooBig):
			writeError(w, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit of %d bytes", b.maxBody))
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(w, errorf(http.StatusRequestTimeout, "the request body did not arrive within %v", b.timeout))
		default:
			writeError(w, errorf(http.StatusBadRequest, "reading the request body: %v", err))
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	b.next.ServeHTTP(w, r)
}
