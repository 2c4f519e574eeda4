"""The tests' shared fixture, built once per test run: the gtformer binary
(go build), a synthetic corpus (gtformer data synth, the built-in corpus in
the folder format, with labels and a year field) and a model trained on it for one epoch.
Building needs the Go toolchain and takes well under a minute; without Go
the tests fail (they never skip)."""

import atexit
import os
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_state = {}


class Fixture:
    """tmp: scratch folder (removed at exit); binary: the gtformer command;
    corpus: the dataset folder; model: the trained model folder."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.binary = os.path.join(tmp, "gtformer")
        self.corpus = os.path.join(tmp, "corpus")
        self.model = os.path.join(tmp, "model")


def go():
    """The go command: $GO when set, else `go` on PATH."""
    found = os.environ.get("GO") or shutil.which("go")
    if found:
        return found
    raise RuntimeError("the tests build their fixture with the Go toolchain: put `go` on PATH (or set GO to its path)")


def run(args, **kw):
    """Runs a command from the repository root; a failure raises with its output."""
    res = subprocess.run(args, cwd=REPO, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
    return res


def get():
    """The fixture, built on first use."""
    if "fx" not in _state:
        tmp = tempfile.mkdtemp(prefix="gtformer-py-")
        atexit.register(shutil.rmtree, tmp, True)
        fx = Fixture(tmp)
        run([go(), "build", "-o", fx.binary, "./cmd/gtformer"])
        run([fx.binary, "data", "synth", "--out", fx.corpus, "--years", "2000-2020"])
        run([fx.binary, "train", "--data", fx.corpus, "--out", fx.model, "--epochs", "1", "--quiet"])
        _state["fx"] = fx
    return _state["fx"]


def copy_model(dst_parent):
    """A copy of the trained model folder (without its checkpoint), to break."""
    fx = get()
    dst = os.path.join(dst_parent, "model")
    shutil.copytree(fx.model, dst, ignore=shutil.ignore_patterns("checkpoint"))
    return dst
