"""The shipped long text: Ambrose Bierce's *The Devil's Dictionary* (1911 edition, public domain, the Internet
Wiretap edition of 1993 as shipped in Debian's dict-devil package; provenance in ``data/devils_dictionary.md``),
and its tokens for either model. Both files are package data: they ship in the wheel."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

__all__ = ["shipped_text", "smollm2_tokenize", "text_token_count", "text_tokens"]

_DATA = Path(__file__).resolve().parent / "data"  # package data: in the wheel
_TEXT_PATH = _DATA / "devils_dictionary.txt"
_TOKENS_PATH = _DATA / "devils_dictionary.smollm2_tokens.npy"


@functools.cache
def shipped_text() -> str:
    """The whole text (383,157 characters)."""
    try:
        return _TEXT_PATH.read_text(encoding="ascii")
    except OSError as error:
        raise ValueError(f"The shipped text {_TEXT_PATH.name} is missing from the package ({error}).") from None


@functools.cache
def _smollm2_tokens() -> np.ndarray:
    # Shipped, because SmolLM2's tokenizer takes 20-30 s over the whole text on two busy cores; made by
    # ``smollm2_tokenize(shipped_text())`` and checked against a fresh tokenization in tests/test_real.py.
    try:
        ids = np.load(_TOKENS_PATH)  # (95,358,) uint16: the vocabulary has 49,152 entries
    except OSError as error:
        raise ValueError(f"The shipped tokens {_TOKENS_PATH.name} are missing from the package ({error}).") from None
    ids.setflags(write=False)
    return ids


def smollm2_tokenize(text: str) -> list[int]:
    """SmolLM2's token ids of ``text`` (no special tokens: the model reads plain text)."""
    from .models import load_smollm2

    tokenizer, _ = load_smollm2()  # refuses, naming the extra, without transformers
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def text_token_count() -> int:
    """How many SmolLM2 tokens the shipped text has (95,358)."""
    return int(_smollm2_tokens().shape[0])


def text_tokens(start: int, count: int) -> list[int]:
    """SmolLM2 token ids start .. start + count of the shipped text (95,358 tokens in all)."""
    ids = _smollm2_tokens()
    if start < 0 or count < 1 or start + count > len(ids):
        raise ValueError(f"The shipped text has {len(ids):,} SmolLM2 tokens; tokens {start:,} to "
                         f"{start + count:,} do not fit in it.")
    return [int(i) for i in ids[start:start + count]]
