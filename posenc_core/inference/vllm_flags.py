"""vLLM's command line, the part that sets positions: ``--max-model-len``, ``--hf-overrides``, the removed
``--rope-scaling`` / ``--rope-theta``, and ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` written before the command.

--rope-scaling and --rope-theta were deprecated for --hf-overrides in vLLM 0.5.x (PR #5836) and removed in
PR #28006 (Nov 2025); vLLM 0.13 answers "unrecognized arguments". They are read here as vLLM read them before.
What vLLM does with these flags: ``vllm_context``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._checks import as_float, as_int
from .command_lines import _json_object, _number, _pairs, _split, _without_program

__all__ = ["ALLOW_LONG_ENV", "AUTO_FIT", "VLLM_OPTIONS", "VLLM_REMOVED", "VllmFlags", "vllm_flags"]

ALLOW_LONG_ENV = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"  # vllm envs: on when the value is "1" or "true" (any case)
AUTO_FIT = -1  # --max-model-len -1 or auto: vLLM fits the length to the KV-cache memory at start-up
VLLM_REMOVED = {"--rope-scaling": "rope_scaling", "--rope-theta": "rope_theta"}  # flag -> the config key it set
_VLLM_SKIPPED = ("--model",)
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_MAX_ASKED = 1 << 30  # the longest --max-model-len read here


@dataclass(frozen=True)
class VllmFlags:
    """The position settings of a ``vllm serve`` command line (``vllm_flags``).

    Fields:
        max_model_len: ``--max-model-len`` in tokens (``AUTO_FIT`` for ``-1`` / ``auto``); None when not given.
        overrides: ``--hf-overrides``: {config key: value}, later flags' keys over earlier ones.
        legacy: {config key: value} set by the removed ``--rope-scaling`` / ``--rope-theta``.
        removed: the removed flags used, in order (each as often as given).
        allow_long: whether ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` (or ``true``) was written before the command.
    """

    max_model_len: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    legacy: dict[str, Any] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    allow_long: bool = False


def _env(tokens: list[str]) -> tuple[list[str], bool]:
    """Leading ``NAME=value`` words (the shell's environment for the command): only ALLOW_LONG_ENV is read."""
    allow = False
    while tokens and "=" in tokens[0] and not tokens[0].startswith("-"):
        name, _, value = tokens[0].partition("=")
        if name != ALLOW_LONG_ENV:
            raise ValueError(f"{name} is not an environment variable read here: only {ALLOW_LONG_ENV} changes "
                             "the context length.")
        allow = value.strip().lower() in ("1", "true")
        tokens = tokens[1:]
    return tokens, allow


def _max_model_len(flag: str, text: str) -> int:
    """``--max-model-len`` as vLLM's ``human_readable_int_or_auto`` parses it (``vllm/utils/argparse_utils.py``):
    ``-1`` or ``auto`` (any case) for the fit to memory; a number with a decimal suffix (k, m, g, t: ``25.6k`` is
    25,600, ``int(float(number) * 10**3)``) or a binary one without decimals (K, M, G, T: ``1K`` is 1,024); else
    Python's ``int()``."""
    value = text.strip()
    if value == "-1" or value.lower() == "auto":
        return AUTO_FIT
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    try:
        if match and match.group(2) in _DECIMAL:
            length = int(float(match.group(1)) * _DECIMAL[match.group(2)])
        elif match:
            length = int(match.group(1)) * _BINARY[match.group(2)]  # a decimal here: vLLM refuses it too
        else:
            length = int(value)
    except ValueError:
        raise ValueError(f"{flag} takes a whole number, a number with k, m, g, t (powers of 1,000) or K, M, G, T "
                         f"(powers of 1,024, whole numbers only), or auto; vLLM refuses {text!r}.") from None
    return as_int(flag, length, minimum=1, maximum=_MAX_ASKED)


# Each flag's reading: (flag, its text, the settings read so far) -> the settings it changes.
def _read_max_model_len(flag: str, text: str, out: dict[str, Any]) -> dict[str, Any]:
    return {"max_model_len": _max_model_len(flag, text)}


def _read_overrides(flag: str, text: str, out: dict[str, Any]) -> dict[str, Any]:
    return {"overrides": {**out["overrides"], **_json_object(flag, text)}}


def _read_rope_scaling(flag: str, text: str, out: dict[str, Any]) -> dict[str, Any]:
    return {"legacy": {**out["legacy"], "rope_scaling": _json_object(flag, text)}, "removed": out["removed"] + (flag,)}


def _read_rope_theta(flag: str, text: str, out: dict[str, Any]) -> dict[str, Any]:
    theta = as_float(flag, _number(flag, text), above=1.0)
    return {"legacy": {**out["legacy"], "rope_theta": theta}, "removed": out["removed"] + (flag,)}


# vLLM's flags that change positions: flag -> its reading. Later flags win.
VLLM_OPTIONS: dict[str, Callable[[str, str, dict[str, Any]], dict[str, Any]]] = {
    "--max-model-len": _read_max_model_len,
    "--hf-overrides": _read_overrides,
    "--rope-scaling": _read_rope_scaling,
    "--rope-theta": _read_rope_theta,
}


def vllm_flags(text: str) -> VllmFlags:
    """The position settings of a ``vllm serve`` command line, as text.

    Each flag is read through its entry of ``VLLM_OPTIONS``; ``allow_long`` is ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``
    (or ``true``) written before the command. Raises ``ValueError`` naming an unknown flag or variable, or a
    malformed value.
    """
    out: dict[str, Any] = {"max_model_len": None, "overrides": {}, "legacy": {}, "removed": (), "allow_long": False}
    tokens, out["allow_long"] = _env(_split(text, "vLLM"))
    tokens = _without_program(tokens)
    if tokens[:1] == ["serve"]:  # vllm serve MODEL ...
        tokens = tokens[2:] if len(tokens) > 1 and not tokens[1].startswith("-") else tokens[1:]
    for flag, value in _pairs(tokens, "vLLM"):
        if flag in _VLLM_SKIPPED:
            continue
        if flag not in VLLM_OPTIONS:
            raise ValueError(f"{flag} is not one of the vLLM flags read here: {', '.join(VLLM_OPTIONS)} "
                             "(and --model).")
        out.update(VLLM_OPTIONS[flag](flag, value, out))
    return VllmFlags(**out)
