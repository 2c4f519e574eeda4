"""A client for `gtformer serve`'s JSON API, over the standard library's
urllib. Every POST carries Content-Type: application/json; with a token,
every request carries Authorization: Bearer TOKEN."""

import json
import urllib.error
import urllib.parse
import urllib.request

from .errors import ServerError

# TIMEOUT is the default seconds a request may take (embedding many
# documents on a loaded server is the slow case).
TIMEOUT = 60.0


class Client:
    """Client(url, token=None, timeout=TIMEOUT): url is the server's base,
    e.g. "http://127.0.0.1:8080". Methods return the decoded JSON answer;
    an error answer raises ServerError(status, message)."""

    def __init__(self, url, token=None, timeout=TIMEOUT):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method, path, body=None):
        url = self.url + path
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raise ServerError(e.code, _server_message(e), url) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ServerError(0, f"cannot reach the server: {reason}", url) from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ServerError(200, f"answer is not JSON: {e}", url) from None

    def health(self):
        """GET /healthz: {"status": "ok"}."""
        return self._request("GET", "/healthz")

    def info(self):
        """GET /v1/info: dataset, geometry, dim, curvature, counts, limits."""
        return self._request("GET", "/v1/info")

    def tree(self):
        """GET /v1/tree: every topic, breadth-first."""
        return self._request("GET", "/v1/tree")

    def topic(self, id):
        """GET /v1/topics/{id}: a topic's words, subtopics and documents."""
        return self._request("GET", f"/v1/topics/{int(id)}")

    def facets(self, topic, field, bin=None):
        """GET /v1/topics/{topic}/facets/{field}: the topic's share per bin of a
        document field, its children stacked (bin: year, month, quantile or value)."""
        q = "?bin=" + urllib.parse.quote(bin) if bin else ""
        return self._request("GET", f"/v1/topics/{int(topic)}/facets/" + urllib.parse.quote(str(field), safe="") + q)

    def topic_links(self, level=1, top=10):
        """GET /v1/topics/links: the link map of a level (lift matrix, mean
        lifts inside and across branches, the strongest cross-branch pairs)."""
        return self._request("GET", f"/v1/topics/links?level={int(level)}&top={int(top)}")

    def document(self, id):
        """GET /v1/documents/{id}: a known document's label, text, topics and path."""
        return self._request("GET", "/v1/documents/" + urllib.parse.quote(str(id), safe=""))

    def embed(self, docs):
        """POST /v1/embed. docs: a list of strings (texts; ids "text-0", "text-1", …
        by position) or of dicts {"id", "text", "links"} as `gtformer embed
        --new` reads them. Returns {"docs": [{"id", "embedding", "topics",
        "path", "words", "unknown_words"}], "warnings": [...]}."""
        if isinstance(docs, (str, dict)):
            raise TypeError("gtformer: embed takes a list of documents (strings or dicts), not one document")
        out = []
        for i, d in enumerate(docs):
            if isinstance(d, str):
                out.append({"id": f"text-{i}", "text": d})
            elif isinstance(d, dict):
                out.append(d)
            else:
                raise TypeError(f"gtformer: docs[{i}] is {type(d).__name__}, want a string or a dict")
        return self._request("POST", "/v1/embed", {"docs": out})

    def neighbors(self, id=None, embedding=None, k=None):
        """POST /v1/neighbors: the k nearest known documents to a known
        document (id) or a point (embedding: n+1 hyperboloid coordinates, as
        embed() returns them). Returns the list of {"id", "label",
        "snippet", "distance"}, nearest first."""
        if (id is None) == (embedding is None):
            raise ValueError("gtformer: give exactly one of id= and embedding=")
        body = {}
        if id is not None:
            body["doc"] = str(id)
        else:
            body["embedding"] = [float(v) for v in embedding]
        if k is not None:
            body["k"] = int(k)
        return self._request("POST", "/v1/neighbors", body)["neighbors"]


def _server_message(err):
    """The server's {"error": ...} text, or the raw body or reason."""
    try:
        raw = err.read().decode("utf-8", "replace")
    except OSError:
        raw = ""
    try:
        msg = json.loads(raw).get("error")
        if isinstance(msg, str):
            return msg
    except (ValueError, AttributeError):
        pass
    return raw.strip() or str(err.reason)
