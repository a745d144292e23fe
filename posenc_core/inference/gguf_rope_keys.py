"""A GGUF header's position keys, each named by the ``gguf`` package's own constant (``gguf.constants.Keys``).

The header itself is read by ``gguf_header``'s bounded parser; here its ``<arch>.rope.*`` keys, and the few
others that set positions (context length, width, heads, key length), are looked up by gguf's names.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._extras import require_gguf
from .gguf_header import GGUFArray, GGUFHeader

__all__ = ["LEGACY_SCALE_KEY", "GGUFRopeKey", "gguf_rope_keys", "rope_key_templates"]

# llama.cpp's older name of the linear scaling factor, still read when rope.scaling.factor is absent; gguf has no
# constant for it
LEGACY_SCALE_KEY = "{arch}.rope.scale_linear"


def rope_key_templates() -> tuple[tuple[str | None, str], ...]:
    """``(constant, key template)`` for every key that sets positions, in ``gguf.constants.Keys``' order.

    The constant is the name in gguf (``"Keys.Rope.FREQ_BASE"``); None for ``LEGACY_SCALE_KEY``, which gguf does
    not name. Raises ``MissingExtraError`` without the gguf package.
    """
    keys = require_gguf("Naming a GGUF file's rope keys").Keys
    names: list[tuple[str | None, str]] = [
        ("Keys.LLM.CONTEXT_LENGTH", keys.LLM.CONTEXT_LENGTH), ("Keys.LLM.EMBEDDING_LENGTH", keys.LLM.EMBEDDING_LENGTH),
        ("Keys.LLM.BLOCK_COUNT", keys.LLM.BLOCK_COUNT), ("Keys.Attention.HEAD_COUNT", keys.Attention.HEAD_COUNT),
        ("Keys.Attention.KEY_LENGTH", keys.Attention.KEY_LENGTH)]
    names += [(f"Keys.Rope.{name}", value) for name, value in vars(keys.Rope).items() if name.isupper()]
    names.append((None, LEGACY_SCALE_KEY))
    return tuple(names)


class GGUFRopeKey(NamedTuple):
    """One position key of a GGUF header (``gguf_rope_keys``).

    Fields:
        constant: its name among gguf's constants (``"Keys.Rope.FREQ_BASE"``); None for ``LEGACY_SCALE_KEY``.
        key: the key in this file (``"qwen2.rope.freq_base"``).
        present: whether the file holds it.
        type: its GGUF value type (``"FLOAT32"``, ``"ARRAY[INT32]"``); "" where the file lacks the key.
        value: its value: a number or a string, a list for an array read whole, the ``GGUFArray`` (item type,
            count, first items) for a longer one; None where the file lacks the key.
    """

    constant: str | None
    key: str
    present: bool
    type: str
    value: Any


def _plain(value: Any) -> Any:
    if isinstance(value, GGUFArray) and value.count == len(value.head):
        return list(value.head)
    return value


def gguf_rope_keys(header: GGUFHeader) -> tuple[GGUFRopeKey, ...]:
    """One ``GGUFRopeKey`` per position key of ``rope_key_templates``, in that order, present or not.

    Raises ``ValueError`` for a header without ``general.architecture`` (the keys are named after it).
    """
    if not isinstance(header, GGUFHeader):
        raise ValueError(f"header must be a GGUFHeader (read_gguf_header), but got {type(header).__name__}.")
    arch = header.architecture
    if arch is None:
        raise ValueError("The header has no general.architecture string, so its <arch>.rope.* keys cannot be named.")
    rows = []
    for constant, template in rope_key_templates():
        key = template.format(arch=arch)
        rows.append(GGUFRopeKey(constant, key, key in header.fields, header.types.get(key, ""),
                                _plain(header.fields.get(key))))
    return tuple(rows)
