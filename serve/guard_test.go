package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// liveServer serves New(ix, opt) on a free loopback port through
// ListenAndServe, as gtformer serve does, and returns its address.
func liveServer(t *testing.T, opt Options) string {
	t.Helper()
	ix, _ := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, "127.0.0.1:0", New(ix, opt), 5*time.Second, func(a net.Addr) { addr <- a.String() })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	})
	select {
	case a := <-addr:
		return a
	case err := <-done:
		t.Fatal(err)
		return ""
	}
}

// rawResponse is an answer read off a raw connection.
type rawResponse struct {
	code   int
	header http.Header
	body   string
}

// rawRequest sends req (a whole HTTP/1.1 request, headers and body as
// given) over a new TCP connection to addr and reads the answer.
func rawRequest(t *testing.T, addr, req string) rawResponse {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	return readRaw(t, c)
}

func readRaw(t *testing.T, c net.Conn) rawResponse {
	t.Helper()
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return rawResponse{res.StatusCode, res.Header, string(b)}
}

// TestHostCheck sends requests over raw TCP with the Host header a
// DNS-rebinding page would make the browser send, and the ones a local
// client sends: only loopback names and --allowed-host names are answered.
func TestHostCheck(t *testing.T) {
	opt := DefaultOptions()
	opt.AllowedHosts = []string{"gtformer.lan:8080", "10.1.2.3"}
	addr := liveServer(t, opt)
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		host string
		code int
	}{
		{"127.0.0.1:" + port, 200},
		{"127.0.0.1", 200},
		{"localhost", 200},
		{"LocalHost:" + port, 200},
		{"localhost.", 200},
		{"[::1]", 200},
		{"[::1]:" + port, 200},
		{"gtformer.lan", 200},
		{"gtformer.lan:9999", 200},
		{"10.1.2.3:" + port, 200},
		{"attacker.example:" + port, 421},
		{"attacker.example", 421},
		{"localhost.attacker.example", 421},
		{"127.0.0.2", 421},
		{"10.1.2.4", 421},
	} {
		t.Run(c.host, func(t *testing.T) {
			res := rawRequest(t, addr, "GET /v1/documents/0 HTTP/1.1\r\nHost: "+c.host+"\r\nConnection: close\r\n\r\n")
			if res.code != c.code {
				t.Fatalf("Host %s: %d %s, want %d", c.host, res.code, res.body, c.code)
			}
			if c.code == 421 && (!strings.Contains(res.body, "misdirected request") || strings.Contains(res.body, `"text"`)) {
				t.Errorf("421 body %q", res.body)
			}
		})
	}
	// HTTP/1.0 may leave Host out: not a name this server answers for.
	if res := rawRequest(t, addr, "GET /v1/tree HTTP/1.0\r\n\r\n"); res.code != 421 {
		t.Errorf("no Host: %d", res.code)
	}
}

// TestContentType: a POST must carry its JSON as application/json; a
// cross-site text/plain POST (which a browser sends without asking) is
// refused before anything is read or embedded.
func TestContentType(t *testing.T) {
	addr := liveServer(t, DefaultOptions())
	body := `{"doc":"5","k":2}`
	for _, c := range []struct {
		ct   string
		code int
	}{
		{"application/json", 200},
		{"application/json; charset=utf-8", 200},
		{"Application/JSON", 200},
		{"text/plain", 415},
		{"text/plain; charset=utf-8", 415},
		{"application/x-www-form-urlencoded", 415},
		{"multipart/form-data; boundary=x", 415},
		{"application/json-seq", 415},
		{"", 415},
	} {
		t.Run(c.ct, func(t *testing.T) {
			h := ""
			if c.ct != "" {
				h = "Content-Type: " + c.ct + "\r\n"
			}
			res := rawRequest(t, addr, fmt.Sprintf("POST /v1/neighbors HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", h, len(body), body))
			if res.code != c.code {
				t.Fatalf("%d %s, want %d", res.code, res.body, c.code)
			}
			if c.code == 415 && !strings.Contains(res.body, `Content-Type: application/json`) {
				t.Errorf("415 body %s", res.body)
			}
			if res.header.Get("Access-Control-Allow-Origin") != "" {
				t.Error("the answer allows a cross-origin reader")
			}
		})
	}
}

// TestToken: with a token, every data request needs it as a bearer token
// (compared whole); the page, its assets and /healthz do not.
func TestToken(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.Token = "correct horse battery staple"
	h := New(ix, opt)
	for _, c := range []struct {
		name, method, path, auth string
		code                     int
	}{
		{"no header", "GET", "/v1/tree", "", 401},
		{"wrong token", "GET", "/v1/tree", "Bearer wrong", 401},
		{"prefix of the token", "GET", "/v1/tree", "Bearer correct horse", 401},
		{"token and more", "GET", "/v1/tree", "Bearer correct horse battery staple!", 401},
		{"basic scheme", "GET", "/v1/tree", "Basic correct horse battery staple", 401},
		{"token alone", "GET", "/v1/tree", "correct horse battery staple", 401},
		{"right token", "GET", "/v1/tree", "Bearer correct horse battery staple", 200},
		{"scheme in lower case", "GET", "/v1/info", "bearer correct horse battery staple", 200},
		{"CSV", "GET", "/v1/export/doc-topics.csv", "", 401},
		{"CSV with token", "GET", "/v1/export/doc-topics.csv", "Bearer correct horse battery staple", 200},
		{"embed", "POST", "/v1/embed", "", 401},
		{"unknown endpoint", "GET", "/v1/nothing", "", 401},
		{"unknown path", "GET", "/secret", "", 401},
		{"page", "GET", "/", "", 200},
		{"page with token in URL", "GET", "/?token=x", "", 200},
		{"script", "GET", "/assets/app.js", "", 200},
		{"health", "GET", "/healthz", "", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, "http://localhost:8080"+c.path, strings.NewReader(""))
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != c.code {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.code)
			}
			if c.code == 401 {
				if w.Header().Get("WWW-Authenticate") != `Bearer realm="gtformer"` || !strings.Contains(w.Body.String(), "/?token=") {
					t.Errorf("401 without the challenge or the hint: %v %s", w.Header(), w.Body)
				}
			}
		})
	}
}

// TestSecurityHeaders: every kind of answer (the page, an asset, data, an
// error, a refused Host) forbids sniffing and framing and carries the CSP.
func TestSecurityHeaders(t *testing.T) {
	ix, _ := fixture(t)
	h := New(ix, DefaultOptions())
	for _, target := range []string{"http://127.0.0.1/", "http://127.0.0.1/assets/style.css", "http://127.0.0.1/v1/tree",
		"http://127.0.0.1/v1/export/doc-topics.csv", "http://127.0.0.1/v1/topics/x", "http://127.0.0.1/healthz", "http://evil.example/"} {
		req, _ := http.NewRequest("GET", target, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		csp := w.Header().Get("Content-Security-Policy")
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(csp, "default-src 'self'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s (%d): %v", target, w.Code, w.Header())
		}
	}
}

// TestSlowBodies holds 64 POST bodies half sent over raw TCP (as many as
// the API's slots): /v1/tree, /v1/info and /healthz still answer 200, an
// embed request gets through although two slow embeds are open (the embed
// limit is 2), and each slow sender gets 408 once its deadline passes.
func TestSlowBodies(t *testing.T) {
	opt := DefaultOptions()
	opt.MaxEmbed, opt.BodyTimeout = 2, 3*time.Second
	addr := liveServer(t, opt)
	const slow = 64
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range slow {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		path := "/v1/neighbors"
		if i < 2 {
			path = "/v1/embed"
		}
		// 200 bytes announced, 10 sent.
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"doc\": \"1", path)
	}
	sent := time.Now()
	time.Sleep(200 * time.Millisecond) // every slow request has reached its handler
	start := time.Now()
	embed := `{"docs":[{"id":"new","text":"a few words"}]}`
	for _, req := range []string{
		"GET /v1/tree HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
		"GET /v1/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
		fmt.Sprintf("POST /v1/embed HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(embed), embed),
	} {
		t0 := time.Now()
		if res := rawRequest(t, addr, req); res.code != 200 {
			t.Errorf("%s with %d slow bodies open: %d %s", strings.Fields(req)[1], slow, res.code, res.body)
		}
		t.Logf("%s with %d slow bodies open: %v", strings.Fields(req)[1], slow, time.Since(t0).Round(time.Millisecond))
	}
	res := rawRequest(t, addr, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
	var hl Health
	if res.code != 200 || json.Unmarshal([]byte(res.body), &hl) != nil || hl.Status != "ok" || hl.APIInFlight != 0 {
		t.Errorf("healthz with the slow bodies open: %d %s", res.code, res.body)
	}
	if el := time.Since(start); el > opt.BodyTimeout {
		t.Fatalf("the other requests took %v, longer than the slow bodies' deadline: the test proves nothing", el)
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(opt.BodyTimeout + 10*time.Second))
		if res := readRaw(t, c); res.code != http.StatusRequestTimeout || !strings.Contains(res.body, "did not arrive within 3s") {
			t.Errorf("slow body %d: %d %s, want 408", i, res.code, res.body)
		}
	}
	t.Logf("the %d slow senders had their 408 %v after they started", slow, time.Since(sent).Round(time.Millisecond))
}

// TestHealthSaturated: with every API slot taken, /healthz says so with
// 503, and says ok again once a slot is free.
func TestHealthSaturated(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.MaxConcurrent = 3
	s := New(ix, opt)
	for range 3 {
		s.apiSem <- struct{}{}
	}
	w := do(t, s, "GET", "/healthz", "")
	var hl Health
	if w.Code != 503 || json.Unmarshal(w.Body.Bytes(), &hl) != nil || hl != (Health{Status: "saturated", APIInFlight: 3, APILimit: 3, EmbedLimit: opt.MaxEmbed}) {
		t.Errorf("saturated: %d %s", w.Code, w.Body)
	}
	<-s.apiSem
	if w := do(t, s, "GET", "/healthz", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"status":"ok","api_in_flight":2`) {
		t.Errorf("a slot free: %d %s", w.Code, w.Body)
	}
}

// TestHostName: the forms a Host header or --addr takes.
func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"localhost": "localhost", "LOCALHOST:80": "localhost", "[::1]:8080": "::1", "[::1]": "::1",
		"example.com.": "example.com", "127.0.0.1:0": "127.0.0.1", "": "", ":8080": "",
	} {
		if got := HostName(in); got != want {
			t.Errorf("HostName(%q) = %q, want %q", in, got, want)
		}
	}
}

// stuckWriter is a client that stops reading: Write blocks until release
// is closed, and says when it was first called.
type stuckWriter struct {
	header  http.Header
	writing chan struct{}
	release chan struct{}
	once    bool
}

func (s *stuckWriter) Header() http.Header { return s.header }
func (s *stuckWriter) WriteHeader(int)     {}
func (s *stuckWriter) Write(p []byte) (int, error) {
	if !s.once {
		s.once = true
		close(s.writing)
	}
	<-s.release
	return len(p), nil
}

// TestSlowReaderFreesSlot: an answer is made under the slot and sent after
// it, so a client that stops reading (here the CSV of every document, the
// largest answer) holds no slot while its answer waits.
func TestSlowReaderFreesSlot(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.MaxConcurrent = 1
	s := New(ix, opt)
	for _, path := range []string{"/v1/export/doc-topics.csv", "/v1/layout?sample=300", "/v1/tree"} {
		w := &stuckWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
		req := httptest.NewRequest("GET", "http://127.0.0.1"+path, nil)
		done := make(chan struct{})
		go func() {
			s.ServeHTTP(w, req)
			close(done)
		}()
		<-w.writing
		if got := do(t, s, "GET", "/v1/info", ""); got.Code != 200 {
			t.Errorf("%s stuck in writing: /v1/info %d %s", path, got.Code, got.Body)
		}
		close(w.release)
		<-done
	}
}
