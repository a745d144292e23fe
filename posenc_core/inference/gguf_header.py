"""A GGUF file's header (its key-value section and tensor names), read by a parser whose work is bounded.

The parser is built on the ``gguf`` package's own constants (``GGUFValueType``, ``GGUF_MAGIC``) and reads what
``gguf.GGUFReader`` reads, from bytes in memory. Every count and length is checked against the bytes actually
present, and every count of items the parser walks one by one (keys, strings in an array, arrays in an array,
tensor infos) against its cap, before anything is walked or allocated: a header inside the upload cap is read or
refused in a fraction of a second, whatever it claims.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._extras import require_gguf

__all__ = ["ARRAY_KEPT", "GGUF_LIMITS", "HEADER_COMMAND", "MAX_HEADER_BYTES", "GGUFArray", "GGUFHeader", "GGUFLimits",
           "gguf_header_bytes", "read_gguf_header"]

MAX_HEADER_BYTES = 20 << 20  # 20 MiB: a header is read from bytes in memory (the page's upload cap is the same)
ARRAY_KEPT = 16  # an array's first values kept for display; longer arrays are walked and counted
# 16 MiB: under the 20 MiB cap, past a 256k-token vocab
HEADER_COMMAND = "head -c 16M model.gguf > header.gguf"  # shown as code
_SUPPORTED_VERSIONS = (2, 3)  # what gguf.GGUFReader 0.19 accepts (READER_SUPPORTED_VERSIONS)
_MAX_TENSOR_DIMS = 4  # GGML_MAX_DIMS


@dataclass(frozen=True)
class GGUFLimits:
    """What one header may ask the parser to walk item by item. Real files stay far inside each cap: a few dozen
    keys, a vocabulary and its merges (Llama 3: 128,256 tokens and 280,147 merges), no arrays of arrays, and a
    few thousand tensors at most (a MoE's experts are stored as one tensor per layer)."""

    keys: int = 1 << 12  # key-value pairs
    strings: int = 1 << 20  # strings inside arrays, summed over the header
    nested: int = 1 << 12  # arrays inside arrays, summed over the header
    depth: int = 3  # arrays nested in arrays this deep at most
    key_bytes: int = 1 << 16  # a key's or a tensor's name (llama.cpp's are under 100 bytes)
    tensors: int = 1 << 16  # tensor infos after the key-value section


GGUF_LIMITS = GGUFLimits()


def _require_gguf():
    """The ``gguf`` package's constants module, or a MissingExtraError that names the extra bringing it."""
    return require_gguf("Reading a GGUF header")


@dataclass(frozen=True)
class GGUFArray:
    """An array value: its item type (a ``GGUFValueType`` name), its length, and its first ``ARRAY_KEPT`` items."""

    item_type: str
    count: int
    head: tuple


@dataclass(frozen=True)
class GGUFHeader:
    """The key-value section of a GGUF file: ``fields`` maps each key to its value, ``types`` to its type name."""

    version: int
    tensor_count: int
    kv_count: int
    fields: dict[str, Any] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    end: int = 0  # the byte where the key-value section ends (the tensor infos follow)
    byte_order: str = "little"
    tensor_names: tuple[str, ...] = ()  # the tensor infos the bytes given hold, in file order
    tensors_complete: bool = False  # whether every tensor info was in the bytes given

    @property
    def architecture(self) -> str | None:
        value = self.fields.get("general.architecture")
        return value if isinstance(value, str) else None


@functools.cache
def _value_types() -> dict[int, tuple[str, str | None, int]]:
    """GGUF value type code -> (name, struct format or None, smallest size in bytes), from gguf's own enum."""
    T = _require_gguf().GGUFValueType
    formats = {T.UINT8: "B", T.INT8: "b", T.UINT16: "H", T.INT16: "h", T.UINT32: "I", T.INT32: "i",
               T.FLOAT32: "f", T.BOOL: "B", T.UINT64: "Q", T.INT64: "q", T.FLOAT64: "d"}
    table: dict[int, tuple[str, str | None, int]] = {int(t): (t.name, fmt, struct.calcsize(fmt))
                                                     for t, fmt in formats.items()}
    table[int(T.STRING)] = (T.STRING.name, None, 8)  # a uint64 length, then the bytes
    table[int(T.ARRAY)] = (T.ARRAY.name, None, 12)  # a uint32 item type and a uint64 count
    return table


class _Cursor:
    """Reads a GGUF buffer front to back; every read checks the bytes present first, and every walk its cap."""

    def __init__(self, data: bytes, order: str, limits: GGUFLimits):
        self.data, self.pos, self.order, self.limits = data, 0, order, limits
        self.types = _value_types()
        self.strings_left, self.nested_left = limits.strings, limits.nested

    def left(self) -> int:
        return len(self.data) - self.pos

    def take(self, size: int, what: str) -> memoryview:
        if size > self.left():
            raise ValueError(f"The header ends inside {what}: it needs {size:,} more bytes at byte {self.pos:,}, "
                             f"but only {self.left():,} are there. Take more of the file ({HEADER_COMMAND}).")
        view = memoryview(self.data)[self.pos:self.pos + size]
        self.pos += size
        return view

    def scalar(self, fmt: str, what: str):
        return struct.unpack(self.order + fmt, self.take(struct.calcsize(fmt), what))[0]

    def text(self, what: str, limit: int | None = None) -> str:
        length = self.scalar("Q", f"the length of {what}")  # refusal words
        if length > self.left() or (limit is not None and length > limit):
            bound = self.left() if limit is None or self.left() < limit else limit
            raise ValueError(f"{what} claims {length:,} bytes, but at most {bound:,} can follow at byte "
                             f"{self.pos:,}: the header is cut short or its length field is wrong.")
        raw = bytes(self.take(length, what))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{what} is not UTF-8 text (byte {error.start} of it cannot be decoded).") from None

    def value(self, code: int, what: str, depth: int = 0):
        if code not in self.types:
            raise ValueError(f"{what} has value type {code}, which is not a GGUF type (0 to "
                             f"{max(self.types)}): the file is damaged or not a GGUF file.")
        name, fmt, _ = self.types[code]
        if fmt is not None:
            value = self.scalar(fmt, what)
            return bool(value) if name == "BOOL" else value
        if name == "STRING":
            return self.text(what)
        return self.array(what, depth + 1)

    def spend(self, count: int, kind: str, what: str) -> None:
        """Take ``count`` items of ``kind`` ("strings" or "nested") from the header's allowance before walking."""
        left = getattr(self, f"{kind}_left")
        if count > left:
            cap = getattr(self.limits, kind)
            items = "strings inside arrays" if kind == "strings" else "arrays inside arrays"  # refusal words
            raise ValueError(f"{what} would bring the header's {items} past {cap:,}, the most read here (real "
                             "GGUF files hold far fewer): the file is damaged or built to be slow to read.")
        setattr(self, f"{kind}_left", left - count)

    def array(self, what: str, depth: int) -> GGUFArray:
        if depth > self.limits.depth:
            raise ValueError(f"{what} nests arrays {depth} deep; GGUF metadata nests at most {self.limits.depth}.")
        code = self.scalar("I", f"the item type of {what}")  # refusal words
        count = self.scalar("Q", f"the length of {what}")  # refusal words
        if code not in self.types:
            raise ValueError(f"{what} is an array of value type {code}, which is not a GGUF type.")
        name, fmt, smallest = self.types[code]
        if count * smallest > self.left():
            raise ValueError(f"{what} claims {count:,} items of {name} (at least {count * smallest:,} bytes), "
                             f"but only {self.left():,} bytes follow: the header is cut short or the count is wrong.")
        if fmt is not None:  # fixed size: keep the first items, step over the rest without reading them
            kept = min(count, ARRAY_KEPT)
            head = struct.unpack(f"{self.order}{kept}{fmt}", self.take(kept * smallest, what)) if kept else ()
            self.take((count - kept) * smallest, what)
            head = tuple(bool(v) for v in head) if name == "BOOL" else head
            return GGUFArray(name, count, head)
        if name == "STRING":
            self.spend(count, "strings", what)
            return GGUFArray(name, count, self.strings(count, what))
        self.spend(count, "nested", what)
        items = []
        for i in range(count):  # arrays have their own lengths: walk them (bounded by the allowance)
            item = self.value(code, f"item {i:,} of {what}", depth)
            if i < ARRAY_KEPT:
                items.append(item)
        return GGUFArray(name, count, tuple(items))

    def strings(self, count: int, what: str) -> tuple:
        """Walk ``count`` strings (a tokenizer's vocabulary: 10⁵ of them), keeping the first ``ARRAY_KEPT``."""
        data, pos, size, unpack = self.data, self.pos, len(self.data), struct.Struct(self.order + "Q").unpack_from
        kept = []
        for i in range(count):
            if pos + 8 > size:
                self.pos = pos
                self.take(8, f"the length of item {i:,} of {what}")  # raises, the header ends here: refusal words
            length = unpack(data, pos)[0]
            if length > size - pos - 8:
                self.pos = pos + 8
                raise ValueError(f"item {i:,} of {what} claims {length:,} bytes, but only {size - pos - 8:,} follow "
                                 f"at byte {pos + 8:,}: the header is cut short or its length field is wrong.")
            if i < ARRAY_KEPT:
                self.pos = pos
                kept.append(self.text(f"item {i:,} of {what}"))
            pos += 8 + length
        self.pos = pos
        return tuple(kept)


def _byte_order(data: bytes) -> str:
    """``<`` or ``>``: gguf writes big-endian files too, with the version's bytes swapped."""
    version = struct.unpack_from("<I", data, 4)[0]
    return ">" if version & 0xFFFF == 0 and version else "<"


def _start(data, max_bytes: int, limits: GGUFLimits) -> tuple[_Cursor, int, int, int]:
    """Check the size, magic, version and counts; returns the cursor after them, version, tensor and key counts."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"A GGUF header is bytes, but got {type(data).__name__}.")
    if len(data) > max_bytes:
        raise ValueError(f"This file is {len(data):,} bytes; the limit for a GGUF header here is {max_bytes:,} "
                         f"bytes ({max_bytes >> 20} MiB). Send only its first bytes: {HEADER_COMMAND}.")
    data = bytes(data)
    if len(data) < 24:
        raise ValueError(f"A GGUF header starts with 24 bytes (magic, version, tensor count, key count), but this "
                         f"file has {len(data)}.")
    if struct.unpack_from("<I", data, 0)[0] != _require_gguf().GGUF_MAGIC:
        raise ValueError(f"This is not a GGUF file: it starts with {data[:4]!r}, not b'GGUF'.")
    cursor = _Cursor(data, _byte_order(data), limits)
    cursor.take(4, "the magic")
    version = cursor.scalar("I", "the version")
    if version not in _SUPPORTED_VERSIONS:
        raise ValueError(f"This GGUF file has version {version}; the gguf package reads versions 2 and 3.")
    tensor_count = cursor.scalar("Q", "the tensor count")  # refusal words
    kv_count = cursor.scalar("Q", "the key count")  # refusal words
    if kv_count > limits.keys or kv_count * 13 > cursor.left():  # each key: 8 + 1 + 4 bytes at least
        keys = f"{kv_count:,} key{'s' * (kv_count != 1)}"
        raise ValueError(f"The header claims {keys}, but {cursor.left():,} bytes cannot hold that many "
                         f"(and the limit here is {limits.keys:,}): the count is wrong or the file is cut short.")
    if tensor_count > limits.tensors:
        raise ValueError(f"The header claims {tensor_count:,} tensors; the most read here is {limits.tensors:,} "
                         "(real models hold a few thousand at most): the count is wrong or the file is damaged.")
    return cursor, version, tensor_count, kv_count


def read_gguf_header(data: bytes | bytearray | memoryview, *, max_bytes: int = MAX_HEADER_BYTES,
                     limits: GGUFLimits = GGUF_LIMITS) -> GGUFHeader:
    """Read the key-value section of a GGUF file (or of its first bytes), bounded by the bytes given.

    Args:
        data: the file's first bytes: enough to hold the key-value section (the tensor infos after it are read as
            far as the bytes go), at most ``max_bytes``.
        max_bytes: the size cap, checked before anything is parsed.
        limits: the caps on what the parser walks item by item (``GGUFLimits``), each checked before the walk.

    Returns:
        a ``GGUFHeader``; arrays are ``GGUFArray`` (item type, count, first items), everything else plain Python.

    Raises ``ValueError`` naming what is wrong: too large, wrong magic, unsupported version, a key count, string
    length or array length larger than the bytes present, more keys, strings, nested arrays or tensors than
    ``limits`` allows, an unknown value type, nesting too deep, a duplicate key, text that is not UTF-8, or a header
    that ends inside the key-value section; ``MissingExtraError`` without the gguf package.
    """
    cursor, version, tensor_count, kv_count = _start(data, max_bytes, limits)
    fields: dict[str, Any] = {}
    types: dict[str, str] = {}
    for index in range(kv_count):
        key = cursor.text(f"the name of key {index:,}", limits.key_bytes)  # refusal words
        if key in fields:
            raise ValueError(f"The key {key!r} appears twice in the header.")
        code = cursor.scalar("I", f"the type of key {key!r}")  # refusal words
        value = cursor.value(code, f"the value of {key!r}")  # refusal words
        fields[key] = value
        name = cursor.types[code][0]
        types[key] = f"ARRAY[{value.item_type}]" if isinstance(value, GGUFArray) else name
    end = cursor.pos
    names = _tensor_names(cursor, tensor_count)
    return GGUFHeader(version, tensor_count, kv_count, fields, types, end,
                      "big" if cursor.order == ">" else "little", names, len(names) == tensor_count)


def _tensor_names(cursor: _Cursor, count: int) -> tuple[str, ...]:
    """The names of the tensor infos after the key-value section, as far as the bytes go (a header is cut
    anywhere in them); a tensor info that cannot be one (more than 4 dimensions) is refused."""
    data, pos, size = cursor.data, cursor.pos, len(cursor.data)
    u32, u64 = struct.Struct(cursor.order + "I").unpack_from, struct.Struct(cursor.order + "Q").unpack_from
    names: list[str] = []
    for _ in range(count):
        if pos + 8 > size:
            break
        length = u64(data, pos)[0]
        if length > cursor.limits.key_bytes or pos + 8 + length + 4 > size:
            break  # the bytes end inside this tensor info (or its name cannot be one): the header was cut here
        try:
            name = data[pos + 8:pos + 8 + length].decode("utf-8")
        except UnicodeDecodeError:
            break  # not a name: the tensor infos end before it
        dims = u32(data, pos + 8 + length)[0]
        if dims > _MAX_TENSOR_DIMS:
            raise ValueError(f"Tensor {name!r} claims {dims:,} dimensions; GGUF tensors have at most "
                             f"{_MAX_TENSOR_DIMS}.")
        end = pos + 8 + length + 4 + 8 * dims + 4 + 8  # the shape, the type and the offset follow
        if end > size:
            break
        names.append(name)
        pos = end
    cursor.pos = pos
    return tuple(names)


def gguf_header_bytes(fields: Mapping[str, tuple[str, Any]], *, version: int = 3, tensor_count: int = 0) -> bytes:
    """A GGUF key-value section (no tensors) from ``{key: (type name, value)}``, little-endian.

    Type names are ``GGUFValueType`` names; an array is ``("ARRAY", (item type name, [values]))``. Used for the
    lesson's example headers and for the tests' hostile ones.
    """
    constants = _require_gguf()
    value_type = constants.GGUFValueType

    def encode(type_name: str, value) -> bytes:
        t = value_type[type_name]
        if t == value_type.STRING:
            raw = value.encode("utf-8")
            return struct.pack("<Q", len(raw)) + raw
        if t == value_type.ARRAY:
            item, items = value
            return struct.pack("<IQ", int(value_type[item]), len(items)) + b"".join(encode(item, v) for v in items)
        fmt = {v[0]: v[1] for v in _value_types().values()}[type_name] or ""
        return struct.pack("<" + fmt, value)

    out = [struct.pack("<IIQQ", constants.GGUF_MAGIC, version, tensor_count, len(fields))]
    for key, (type_name, value) in fields.items():
        out.append(encode("STRING", key) + struct.pack("<I", int(value_type[type_name])) + encode(type_name, value))
    return b"".join(out)
