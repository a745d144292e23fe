"""GGUF headers built to be slow to read: each fills the page's 20 MiB upload cap (or sits at one of the
parser's caps) with items that are walked one by one. Shared by the tests and ``bench/gguf_headers.py``."""

from __future__ import annotations

import struct

GGUF_MAGIC = 0x46554747  # b"GGUF", little-endian
ARRAY, STRING, UINT8, UINT32 = 9, 8, 0, 4
UPLOAD_BYTES = 20 << 20


def _head(keys: int, tensors: int = 0) -> bytes:
    return struct.pack("<IIQQ", GGUF_MAGIC, 3, tensors, keys)


def _name(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def nested_empty_arrays(count: int) -> bytes:
    """One key holding an array of ``count`` empty arrays (12 bytes each)."""
    return (_head(1) + _name("a") + struct.pack("<I", ARRAY) + struct.pack("<IQ", ARRAY, count)
            + struct.pack("<IQ", UINT32, 0) * count)


def empty_strings(count: int) -> bytes:
    """One key holding an array of ``count`` empty strings (8 bytes each)."""
    return (_head(1) + _name("s") + struct.pack("<I", ARRAY) + struct.pack("<IQ", STRING, count)
            + struct.pack("<Q", 0) * count)


def tiny_tensors(count: int) -> bytes:
    """No keys, then ``count`` tensor infos with empty names and no dimensions (24 bytes each)."""
    return _head(0, count) + (_name("") + struct.pack("<I", 0) + struct.pack("<IQ", 0, 0)) * count


def many_keys(count: int) -> bytes:
    """``count`` keys, each a one-byte value."""
    return _head(count) + b"".join(_name(f"k{i}") + struct.pack("<IB", UINT8, 1) for i in range(count))


def filling(builder, item_bytes: int) -> bytes:
    """The builder's header with as many items as fit the upload cap."""
    return builder((UPLOAD_BYTES - 64) // item_bytes)


# name -> (builder, bytes per item): the shapes a hostile upload takes
CRAFTED = {"nested empty arrays": (nested_empty_arrays, 12), "empty strings": (empty_strings, 8),
           "tiny tensor infos": (tiny_tensors, 24), "one-byte keys": (many_keys, 21)}
