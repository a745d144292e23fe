"""The GGUF header parser bounds its work: what a header asks it to walk item by item is checked against its caps
before the walk, so a header built to be slow is refused at once and one at the caps is read."""

from __future__ import annotations

import struct

import pytest

from devtools import gguf_crafted
from posenc_core.inference import GGUF_LIMITS, MAX_HEADER_BYTES, GGUFLimits, gguf_header, read_gguf_header

LIMITS = GGUF_LIMITS


@pytest.mark.parametrize("name", list(gguf_crafted.CRAFTED))
def test_a_header_filling_the_upload_cap_with_items_is_refused_before_the_walk(name, monkeypatch):
    builder, item_bytes = gguf_crafted.CRAFTED[name]
    data = gguf_crafted.filling(builder, item_bytes)
    assert len(data) <= MAX_HEADER_BYTES
    walked = []
    real_value = gguf_header._Cursor.value

    def counting(self, *args, **kwargs):
        walked.append(1)
        return real_value(self, *args, **kwargs)

    monkeypatch.setattr(gguf_header._Cursor, "value", counting)
    with pytest.raises(ValueError, match=r"the most read here|the limit here is"):
        read_gguf_header(data)
    assert len(walked) <= 1  # at most the key's own value was started: no item was walked


@pytest.mark.parametrize("builder, count, check", [
    (gguf_crafted.nested_empty_arrays, LIMITS.nested, lambda h: h.fields["a"].count),
    (gguf_crafted.empty_strings, LIMITS.strings, lambda h: h.fields["s"].count),
    (gguf_crafted.tiny_tensors, LIMITS.tensors, lambda h: len(h.tensor_names)),
    (gguf_crafted.many_keys, LIMITS.keys, lambda h: len(h.fields)),
])
def test_a_header_at_each_cap_is_read_and_one_more_item_is_refused(builder, count, check):
    assert check(read_gguf_header(builder(count))) == count
    with pytest.raises(ValueError, match=f"{count:,}"):
        read_gguf_header(builder(count + 1))


def test_the_string_allowance_is_shared_by_every_array_of_the_header():
    half = LIMITS.strings // 2 + 1

    def strings_key(name: str) -> bytes:
        return (struct.pack("<Q", 1) + name.encode() + struct.pack("<I", gguf_crafted.ARRAY)
                + struct.pack("<IQ", gguf_crafted.STRING, half) + b"\0" * (8 * half))

    data = struct.pack("<IIQQ", gguf_crafted.GGUF_MAGIC, 3, 0, 2) + strings_key("s") + strings_key("t")
    with pytest.raises(ValueError, match=f"the value of 't' would bring .* past {LIMITS.strings:,}"):
        read_gguf_header(data)


def test_real_tokenizer_sizes_fit_the_caps():
    """Llama 3's vocabulary and merges (128,256 + 280,147 strings), Gemma 3's 262,144 tokens."""
    assert 128_256 + 280_147 <= LIMITS.strings and 262_144 <= LIMITS.strings


def test_limits_can_be_tightened_per_call():
    data = gguf_crafted.empty_strings(100)
    with pytest.raises(ValueError, match="past 99"):
        read_gguf_header(data, limits=GGUFLimits(strings=99))
    assert read_gguf_header(data).fields["s"].count == 100
