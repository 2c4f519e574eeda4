"""A small reader of the safetensors format, as weights.safetensors is
written by the Go program (package safetensors there): an 8-byte
little-endian header length, a JSON header mapping each tensor's name to its
dtype, shape and [begin, end) byte offsets into the data that follows, and
the raw little-endian data. Only the dtypes the model uses are read."""

import json
import struct

import numpy as np

from .errors import GtformerError

# DTYPES maps a safetensors dtype to the little-endian numpy dtype.
DTYPES = {
    "F32": np.dtype("<f4"),
    "F64": np.dtype("<f8"),
    "I32": np.dtype("<i4"),
    "I64": np.dtype("<i8"),
}

# A header larger than this is refused rather than read into memory: the
# format's own readers use the same bound (100 MB).
MAX_HEADER = 100 * 1000 * 1000


def read(path):
    """Returns (tensors, metadata): a dict name -> numpy array (a copy, in
    native byte order) and the header's "__metadata__" dict ({} when
    absent). Every problem is a GtformerError naming the file."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise GtformerError(f"{path}: {e.strerror or e}") from e
    return parse(raw, path)


def parse(raw, name="weights.safetensors"):
    """read() on the file's bytes; name labels the errors."""
    if len(raw) < 8:
        raise GtformerError(f"{name}: {len(raw)} bytes, too short for the 8-byte header length")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > MAX_HEADER or 8 + n > len(raw):
        raise GtformerError(f"{name}: header length {n} runs past the file's {len(raw)} bytes")
    try:
        header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise GtformerError(f"{name}: header is not valid JSON: {e}") from e
    if not isinstance(header, dict):
        raise GtformerError(f"{name}: header is not a JSON object")
    data = memoryview(raw)[8 + n :]
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise GtformerError(f"{name}: __metadata__ is not an object")
    out = {}
    for key in sorted(header):
        out[key] = _tensor(name, key, header[key], data)
    return out, meta


def _tensor(name, key, entry, data):
    """One tensor of the header, checked against the data's extent."""
    where = f"{name}: tensor {key!r}"
    if not isinstance(entry, dict):
        raise GtformerError(f"{where}: entry is not an object")
    dt = DTYPES.get(entry.get("dtype"))
    if dt is None:
        raise GtformerError(f"{where}: dtype {entry.get('dtype')!r} is not one of {', '.join(DTYPES)}")
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise GtformerError(f"{where}: shape {shape!r} is not a list of non-negative integers")
    offs = entry.get("data_offsets")
    if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(o, int) and not isinstance(o, bool) for o in offs)):
        raise GtformerError(f"{where}: data_offsets {offs!r} is not a pair of integers")
    begin, end = offs
    if not 0 <= begin <= end <= len(data):
        raise GtformerError(f"{where}: data_offsets [{begin}, {end}] fall outside the {len(data)} data bytes")
    count = 1
    for d in shape:
        count *= d
    if end - begin != count * dt.itemsize:
        raise GtformerError(
            f"{where}: {end - begin} bytes for shape {shape} of {entry['dtype']} (want {count * dt.itemsize})"
        )
    arr = np.frombuffer(data[begin:end], dtype=dt).reshape(shape)
    return arr.astype(dt.newbyteorder("="), copy=True)
