"""transformers' GGUF loader, the config part: the config dict ``load_gguf_checkpoint`` builds from a GGUF
header's keys (``modeling_gguf_pytorch_utils`` in transformers 5.23), and the position keys it leaves out.

It renames ``<arch>.<key>`` through ``GGUF_CONFIG_MAPPING`` (``integrations/ggml.py``) into a config dict; of the
position keys it maps ``context_length``, ``rope.freq_base`` and ``rope.dimension_count``, each for the
architectures whose mapping names a field for it (``gguf_loader_targets``), and ignores every ``rope.scaling.*``
key except for gpt-oss (whose rebuild reads the wrong part of each field and fails).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ._extras import require_transformers
from .gguf_header import ARRAY_KEPT, GGUFArray, GGUFHeader
from .gguf_rope_keys import gguf_rope_keys, rope_key_templates

__all__ = ["GGUFLoadedConfig", "GGUFLoaderTarget", "gguf_loader_targets", "gguf_transformers_config"]

# load_gguf_checkpoint's renames of general.architecture, in its order: (test on (architecture, general.name
# as the one-item list read_field returns), name used instead). The first group is an if/elif chain, the second
# a separate one that runs after it.
_Rename = Callable[[str, list], Any]
_ARCH_RENAMES_FIRST: tuple[tuple[_Rename, _Rename], ...] = (
    (lambda arch, name: "llama" in arch and "mistral" in name, lambda arch, name: "mistral"),
    (lambda arch, name: "t5" in arch or "t5encoder" in arch,
     lambda arch, name: "umt5" if name and "umt5" in name[0].lower() else "t5"),
)
_ARCH_RENAMES_SECOND = (("qwen2moe", "qwen2_moe"), ("gpt_oss", "gpt_oss"), ("gpt-oss", "gpt_oss"),
                        ("qwen3moe", "qwen3_moe"), ("minimax-m2", "minimax_m2"))
_TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "gemma4": "gemma4_text"}  # the GGUF holds the text backbone only


def _ggml_mappings() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """transformers' ``GGUF_CONFIG_MAPPING`` and ``GGUF_CONFIG_DEFAULTS_MAPPING``."""
    require_transformers("Reading a GGUF header as transformers' loader does")
    from transformers.integrations.ggml import GGUF_CONFIG_DEFAULTS_MAPPING, GGUF_CONFIG_MAPPING

    return GGUF_CONFIG_MAPPING, GGUF_CONFIG_DEFAULTS_MAPPING


def _transformers_architecture(arch: str, name: list) -> str:
    updated = next((rename(arch, name) for test, rename in _ARCH_RENAMES_FIRST if test(arch, name)), arch)
    return next((new for part, new in _ARCH_RENAMES_SECOND if part in arch), updated)


def _config_value(key: str, value: Any, arch: str, updated: str) -> Any:
    if isinstance(value, GGUFArray):
        if value.count != len(value.head):
            raise ValueError(f"{key} is an array of {value.count:,} items that transformers maps into the config; "
                             f"this reading keeps only {ARRAY_KEPT} items of an array.")
        value = list(value.head)
        value = value[0] if len(value) == 1 else value
    if isinstance(value, str) and arch in value:
        value = value.replace(arch, updated)
    return value


class GGUFLoaderTarget(NamedTuple):
    """Where transformers' GGUF loader puts one position key (``gguf_loader_targets``).

    Fields:
        gguf_key: the key after ``<arch>.``, as gguf names it (``"rope.dimension_count"``).
        config_key: the config field it becomes; None where the loader reads the key and drops it.
        architectures: the GGUF_CONFIG_MAPPING architectures that map it so, in the mapping's order.
    """

    gguf_key: str
    config_key: str | None
    architectures: tuple[str, ...]


def gguf_loader_targets() -> tuple[GGUFLoaderTarget, ...]:
    """For every position key (``gguf_rope_keys``' templates), each config field transformers' GGUF loader maps it
    to, from its own ``GGUF_CONFIG_MAPPING`` (``integrations/ggml.py``).

    Returns:
        one ``GGUFLoaderTarget`` per (key, config field) pair that some architecture has, keys in
        ``gguf_rope_keys``' order; an architecture whose mapping lacks a key is in none of that key's targets.
    """
    mapping_of, _ = _ggml_mappings()
    out = []
    for _, template in rope_key_templates():
        key = template.removeprefix("{arch}.")
        found: dict[str | None, list[str]] = {}
        for arch, mapping in mapping_of.items():
            if key in mapping:
                found.setdefault(mapping[key], []).append(arch)
        out += [GGUFLoaderTarget(key, target, tuple(archs)) for target, archs in found.items()]
    return tuple(out)


class GGUFLoadedConfig(NamedTuple):
    """What transformers' GGUF loader makes of a header (``gguf_transformers_config``); unpacks as a pair.

    Fields:
        config: the config dict it builds (config.json fields).
        ignored: the file's position keys (``gguf_rope_keys``) it does not put into the config, in that order.
    """

    config: dict[str, Any]
    ignored: list[str]


def _per_family_fixes(config: dict[str, Any]) -> None:
    """load_gguf_checkpoint's fixes that touch positions: Gemma's text model type, LFM2's attention layers."""
    if config.get("model_type") in _TEXT_MODEL_TYPES:
        config["model_type"] = _TEXT_MODEL_TYPES[config["model_type"]]
    if config.get("model_type") == "lfm2" and isinstance(config.get("num_key_value_heads"), list):
        heads = config["num_key_value_heads"]
        config.update(num_key_value_heads=max(heads), full_attn_idxs=[i for i, h in enumerate(heads) if h > 0])


def gguf_transformers_config(header: GGUFHeader) -> GGUFLoadedConfig:
    """The config dict transformers 5.23's GGUF loader builds from these keys, and the keys it leaves out.

    Follows ``load_gguf_checkpoint``: the architecture renames, then every key renamed through transformers' own
    ``GGUF_CONFIG_MAPPING`` (``integrations/ggml.py``), then its per-family fixes that touch positions (Gemma's
    text model type, LFM2's attention layers). Not reproduced: ``tie_word_embeddings`` and the ``vocab_size``
    fallback, which need the tensor list and the tokenizer (neither sets positions).

    Raises ``ValueError`` for an architecture transformers does not load from GGUF, and for a gpt-oss file with
    ``rope.scaling.type``: transformers 5.23 rebuilds that rope_scaling from ``field.parts[0]`` (the key's length,
    not its value) and stops with a TypeError. ``MissingExtraError`` without transformers.
    """
    mapping_of, defaults = _ggml_mappings()
    arch = header.architecture if isinstance(header, GGUFHeader) else None
    if arch is None:
        raise ValueError("The header has no general.architecture string, which transformers reads first.")
    name = [header.fields["general.name"]] if "general.name" in header.fields else []
    updated = _transformers_architecture(arch, name)
    if arch not in mapping_of and updated not in mapping_of:
        raise ValueError(f"transformers 5.23 cannot load a GGUF file of architecture {arch!r}: it is not in its "
                         f"GGUF_CONFIG_MAPPING ({len(mapping_of) - 1} architectures).")
    config: dict[str, Any] = dict(defaults.get(updated, defaults.get(arch) or {}))
    used = set()
    for key, value in header.fields.items():
        prefix, _, config_key = key.replace(arch, updated).partition(".")
        target = mapping_of.get(prefix, {}).get(config_key) if config_key else None
        if not isinstance(target, str):  # None: read and dropped, or not mapped
            continue
        used.add(key)
        config[target] = _config_value(key, value, arch, updated)
    _per_family_fixes(config)
    if updated == "gpt_oss" and "gpt-oss.rope.scaling.type" in header.fields:
        raise ValueError("transformers 5.23 cannot load this gpt-oss GGUF: its loader rebuilds rope_scaling from "
                         "field.parts[0] of each gpt-oss.rope.scaling.* key, which is the key's length, and stops "
                         "with a TypeError.")
    ignored = [row.key for row in gguf_rope_keys(header) if row.present and row.key not in used]
    return GGUFLoadedConfig(config, ignored)
