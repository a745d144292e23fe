"""Which layers rotate, read from the condition the model's own attention code puts around its rotation.

A model's ``modeling_<type>.py`` decides per layer whether the attention calls ``apply_rotary_pos_emb``: most
call it always, some only ``if self.sliding_window is not None`` (Cohere2, Flint), ``if self.use_rope`` (read
from ``no_rope_layers``: Llama 4, SmolLM3), ``if self.sliding_window is None or self.is_sliding`` (EXAONE 4 and
its relatives), ``if self.config.use_mem_rope`` (Zamba2). ``attention_guards`` parses that file (the Python
syntax tree of its text attention classes, nothing is imported or run) and returns those conditions;
``GUARD_RULES`` says what each condition means for one layer of a config. The rules are keyed by the code's
condition, not by model type, so a relative that copies a family's attention (cohere2 -> cohere2_moe, exaone4
-> exaone_moe, kolibri1) is read by the same rule. A condition not in the registry is reported in the layer's
``reasons``; the all-model-types sweep in the tests fails on it, so a new pattern is added here, not misread.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Callable

from .layer_row import RotationReason
from .reader import ConfigReading

__all__ = ["GUARD_RULES", "MROPE_LAYOUTS", "NEUTRAL_GUARDS", "attention_guards", "has_rotary_module", "layer_rotates",
           "mrope_code", "OWN_LAYOUT"]

# Classes of a modeling file that belong to an encoder of another modality, not to the language model. The words are
# looked for after the part of a class name it shares with the model type's own name (``_of_other_modality``):
# GLM-Image, PE Audio or LASR's encoder start every class name with a modality word, and their own rotary module is
# the one the model runs.
_OTHER_MODALITIES = ("Vision", "Visual", "Audio", "Speech", "Image", "Encoder", "Cross", "Vit", "Sam", "Video")

# Conditions that do not decide per layer whether positions are used (a layout choice, a KV-sharing branch
# that rotates too, a check that the model passed position embeddings at all: that last one is decided by
# ``rope_parameters`` null entries and ``position_embedding_type``, which the default reading covers).
NEUTRAL_GUARDS = frozenset({
    "self.config.rope_interleave", "self.is_kv_shared_layer", "position_embeddings is not None",
    "not is_cross_attention", "alibi is None", "self.rotary_emb is not None",
})

Rule = Callable[[ConfigReading, int, str], tuple[bool, RotationReason]]
Verdict = tuple[bool, tuple[RotationReason, ...]]


def _is_sliding(layer_type: str) -> bool:
    return layer_type in ("sliding_attention", "local")


def _no_rope_layers(reading, index, layer_type):
    flags = reading.get("no_rope_layers")
    if isinstance(flags, (list, tuple)) and index < len(flags):
        return (True, RotationReason("no_rope_layers_one")) if flags[index] else \
            (False, RotationReason("no_rope_layers_zero"))
    return True, RotationReason("no_rope_layers_missing")


def _sliding_only(reading, index, layer_type):
    window = reading.layer_get("sliding_window", index)
    if _is_sliding(layer_type) and window is not None:
        return True, RotationReason("sliding_only")
    return False, RotationReason("sliding_only_not_sliding")


def _sliding_or_forced(reading, index, layer_type):
    rotates, why = _sliding_only(reading, index, layer_type)
    if rotates:
        return rotates, why
    mlp_types = reading.get("mlp_layer_types")
    forced = (isinstance(mlp_types, (list, tuple)) and index < len(mlp_types) and mlp_types[index] == "dense"
              and reading.get("prefix_dense_sliding_window_pattern") == 1)
    if forced:
        return True, RotationReason("force_rope")
    return False, why


def _no_window_or_sliding(reading, index, layer_type):
    if reading.layer_get("sliding_window", index) is None:
        return True, RotationReason("sliding_window_null")
    if _is_sliding(layer_type):
        return True, RotationReason("sliding_rotates")
    return False, RotationReason("global_skips")


def _mem_rope(reading, index, layer_type):
    if reading.get("use_mem_rope"):
        return True, RotationReason("mem_rope_on")
    return False, RotationReason("mem_rope_off")


def _rotary_type(reading, index, layer_type):
    kind = reading.get("position_embedding_type")
    return (True, RotationReason("rotary_type")) if kind == "rotary" else \
        (False, RotationReason("not_rotary_type", kind))


# The condition around the rotation in the attention's forward (as ast.unparse writes it) -> its rule.
GUARD_RULES: dict[str, Rule] = {
    "self.use_rope": _no_rope_layers,
    "self.sliding_window is not None": _sliding_only,
    "self.is_local_attention": _sliding_only,
    "self.sliding_window is not None or self.force_rope": _sliding_or_forced,
    "self.sliding_window is None or self.is_sliding": _no_window_or_sliding,
    "self.config.use_mem_rope": _mem_rope,
    "self.position_embedding_type == 'rotary'": _rotary_type,
}


def _own_name(model_type: str) -> str | None:
    """The class-name prefix of the model type (its config class's name without ``Config``), read from
    transformers' table of names, so nothing is imported."""
    try:
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    except ImportError:
        return None
    name = CONFIG_MAPPING_NAMES.get(model_type, "")
    return name.removesuffix("Config") or None


_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9_]+|[A-Z]+")


def _of_other_modality(class_name: str, own: str | None) -> bool:
    """Whether a class belongs to another modality than the model type's own: a modality word in what follows the
    words its name shares with the type's (Qwen2VL: Qwen2*Vision*RotaryEmbedding; GlmImage: GlmImageTextAttention
    is its own)."""
    words, own_words = _WORDS.findall(class_name), _WORDS.findall(own or "")
    shared = next((i for i, (a, b) in enumerate(zip(words, own_words, strict=False)) if a != b),
                  min(len(words), len(own_words)))
    return any(word in "".join(words[shared:]) for word in _OTHER_MODALITIES)


def _modeling_path(model_type: str) -> str | None:
    try:
        import transformers
        from transformers.models.auto.configuration_auto import model_type_to_module_name
    except ImportError:
        return None
    name = model_type_to_module_name(model_type)
    path = os.path.join(os.path.dirname(transformers.__file__), "models", name, f"modeling_{name}.py")
    return path if os.path.exists(path) else None


# A top-level class this reading looks at, and the next line that starts at the margin (a closing parenthesis there
# still belongs to a header written over several lines)
_READ_CLASS = re.compile(r"^class (\w+(?:Attention|RotaryEmbedding))\b", re.M)
_MARGIN = re.compile(r"^[^\s#)]", re.M)


def _read_classes(source: str) -> list[ast.ClassDef]:
    """The module's top-level attention and rotary classes, each parsed on its own: parsing whole modeling files took
    most of a sweep over every model type, and these classes are all the reading needs. A class cut short (a line
    at the margin inside one of its strings or brackets) does not parse, and then the whole file is parsed."""
    classes = []
    for header in _READ_CLASS.finditer(source):
        line_end = source.find("\n", header.end())
        end = _MARGIN.search(source, line_end + 1) if line_end != -1 else None
        try:
            tree = ast.parse(source[header.start():end.start() if end else len(source)])
        except SyntaxError:
            return [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
        classes += [node for node in tree.body if isinstance(node, ast.ClassDef)]
    return classes


@functools.lru_cache(maxsize=512)
def _parse(model_type: str) -> tuple[bool, tuple[str, ...], tuple[tuple[int, ...] | None, str] | None] | None:
    path = _modeling_path(model_type)
    if path is None:
        return None
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    own = _own_name(model_type)
    classes = [n for n in _read_classes(source) if not _of_other_modality(n.name, own)]
    rotary = any(c.name.endswith("RotaryEmbedding") for c in classes)
    mrope = next((m for c in classes if c.name.endswith("RotaryEmbedding") for m in [_mrope_of(c)] if m), None)
    guards: set[str] = set()
    for cls in classes:
        if not cls.name.endswith("Attention"):
            continue
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        if forward is not None:
            guards |= _call_guards(forward)
    return rotary, tuple(sorted(guards)), mrope


OWN_LAYOUT = "own_code"  # a layout no fragment of MROPE_LAYOUTS matches: the model's own

# How a text rotary module's ``recomposition_frequencies`` hands its pairs to the time / height / width axes, told by
# the expression that does it (keys of ``posenc_core.multimodal.ALLOCATIONS``); the first fragment found wins.
MROPE_LAYOUTS = (
    ("(i + 1) % 3", "ernie3d"),  # ERNIE 4.5 VL: height and width alternate over the fast pairs, time takes the slow
    ("slice(offset, length, 3)", "interleaved"),  # Qwen3-VL, Qwen3.5, Qwen3-Omni: t, h, w, t, h, w, ...
    ("m[i % 3]", "chunked"),  # Qwen2-VL, Qwen2.5-VL, GLM-4V: consecutive blocks of pairs
    ("m[i % len(self.mrope_section)]", "chunked"),  # HunYuan-VL: its sections, in consecutive blocks
)


def _mrope_of(cls: ast.ClassDef) -> tuple[tuple[int, ...] | None, str] | None:
    """``(default mrope_section, layout)`` of a rotary module that recomposes frequencies per axis, else None.

    The default is the literal of ``config.rope_parameters.get("mrope_section", [...])`` in its ``__init__``: the
    sections a config that names none gets (None where the code has no default)."""
    recompose = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "recomposition_frequencies"),
                     None)
    if recompose is None:
        return None
    default = None
    for node in ast.walk(cls):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "mrope_section"
                and len(node.args) > 1):
            try:
                default = tuple(int(v) for v in ast.literal_eval(node.args[1]))
            except (ValueError, TypeError):
                default = None
    text = ast.unparse(recompose)
    layout = next((name for fragment, name in MROPE_LAYOUTS if fragment in text), OWN_LAYOUT)
    return default, layout


def _call_guards(forward: ast.FunctionDef) -> set[str]:
    """The conditions (innermost first, joined by ' & ') around each call of a rotary function in ``forward``."""
    parents = {child: node for node in ast.walk(forward) for child in ast.iter_child_nodes(node)}
    guards = set()
    for node in ast.walk(forward):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        if ("rotary" not in name and "rope" not in name.lower()) or "Rotary" in name:
            continue
        conditions, parent = [], parents.get(node)
        while parent is not None and parent is not forward:
            if isinstance(parent, (ast.If, ast.IfExp)):
                conditions.append(ast.unparse(parent.test))
            parent = parents.get(parent)
        guards.add(" & ".join(conditions))
    return guards


def has_rotary_module(model_type: str | None) -> bool | None:
    """Whether the model's code defines a language-model rotary module (None: transformers has no modeling file)."""
    parsed = _parse(model_type) if model_type else None
    return None if parsed is None else parsed[0]


def attention_guards(model_type: str | None) -> tuple[str, ...] | None:
    """The conditions under which the model's text attention calls its rotation ('' = always), or None."""
    parsed = _parse(model_type) if model_type else None
    return None if parsed is None else parsed[1]


def mrope_code(model_type: str | None) -> tuple[tuple[int, ...] | None, str] | None:
    """``(default mrope_section, layout)`` where the model's text rotary module splits its pairs between time,
    height and width (multimodal RoPE), read from its code; None where it does not."""
    parsed = _parse(model_type) if model_type else None
    return None if parsed is None else parsed[2]


def layer_rotates(reading: ConfigReading, index: int, layer_type: str,
                  default: tuple[bool, RotationReason]) -> Verdict:
    """Whether layer ``index`` rotates and why, by the rule of its model's attention code; ``default`` (what the
    RoPE settings alone say) where the code rotates unconditionally or its condition does not decide per layer."""
    fallback = default[0], (default[1],)
    if reading.obj is None:  # no model code to read: the fields a NoPE rule reads, where the config has them
        if default[0] and isinstance(reading.get("no_rope_layers"), (list, tuple)):
            rotates, reason = _no_rope_layers(reading, index, layer_type)
            return rotates, (reason,)
        return fallback
    kind = reading.get("position_embedding_type")
    if kind not in (None, "rope", "rotary"):
        return False, (RotationReason("no_rotary_embedding", kind),)
    if has_rotary_module(reading.model_type) is False:
        return False, (RotationReason("no_rotary_module"),)
    guards = attention_guards(reading.model_type) or ()
    if not default[0] or not guards or "" in guards:
        return fallback
    for guard in guards:
        parts = [p for p in guard.split(" & ") if p not in NEUTRAL_GUARDS]
        if not parts:
            return fallback
        verdicts = [GUARD_RULES[p](reading, index, layer_type) if p in GUARD_RULES else
                    (True, RotationReason("unread_condition", p)) for p in parts]
        if all(v[0] for v in verdicts):
            return True, tuple(v[1] for v in verdicts)
    return False, (verdicts[-1][1],)
