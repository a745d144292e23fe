"""The optional packages some readings need (the ``gguf`` and ``transformers`` extras), imported on demand: a
function that needs one and lacks it raises ``MissingExtraError`` naming the extra, as torch's functions do."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .._backend import MissingExtraError


def require_gguf(what: str) -> ModuleType:
    """``gguf.constants``, or a MissingExtraError naming the ``gguf`` extra; ``what`` is the sentence's subject."""
    if importlib.util.find_spec("gguf") is None:
        raise MissingExtraError(f'{what} needs the gguf package; install it with `pip install "posenc-core[gguf]"` '
                                "(or `pip install gguf`).", name="gguf")
    return importlib.import_module("gguf.constants")


def require_transformers(what: str) -> ModuleType:
    """``transformers``, or a MissingExtraError naming the ``transformers`` extra."""
    if importlib.util.find_spec("transformers") is None:
        raise MissingExtraError(f"{what} needs transformers; install it with "
                                '`pip install "posenc-core[transformers]"` (or `pip install transformers`).',
                                name="transformers")
    return importlib.import_module("transformers")
