"""The numpy / torch switch.

Tables (sinusoidal rows, ALiBi grids, T5 buckets, 2D sin-cos) are built once with numpy and
moved to the requested backend, so there is one source of truth for each formula; the work
that runs per token and per batch (``apply_rope``, attention, the lab's training) runs natively
in torch on the chosen device. torch is imported lazily; the numbers that must equal the models' bit for bit
(RoPE frequencies, the tensor2tensor table, T5 buckets) are formed with it on the CPU, whatever the backend.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

import numpy as np

from ._types import ArrayOrTensor

__all__ = ["BACKENDS", "BackendStatus", "MissingExtraError", "available_backends", "check_backend", "cuda_available",
           "default_device", "is_tensor", "keeps_kind", "kind_of", "one_torch_thread", "require_torch", "to_backend",
           "to_numpy", "torch_installed"]

BACKENDS = ("numpy", "torch")

F = TypeVar("F", bound=Callable[..., Any])


class MissingExtraError(ImportError, ValueError):
    """A function needs a package the installed extras do not provide.

    An ImportError for a library user and a ValueError for the pages, whose guard shows every refusal as a
    sentence.
    """


def torch_installed() -> bool:
    """Whether torch can be imported (the torch backend and the diffusion section need it).

    >>> isinstance(pc.torch_installed(), bool)
    True
    """
    return importlib.util.find_spec("torch") is not None


@functools.cache
def cuda_available() -> bool:
    if not torch_installed():
        return False
    import torch

    return bool(torch.cuda.is_available())


BackendStatus = Literal["usable", "no_torch", "no_cuda"]
BACKEND_LABELS = ("numpy", "torch", "torch-cuda")  # what available_backends reports on, in the order a page lists


def available_backends() -> dict[str, BackendStatus]:
    """Map each backend label ("numpy", "torch", "torch-cuda") to whether it is usable here: "usable", or why not
    as a code, "no_torch" (torch is not installed) or "no_cuda" (torch is, but it sees no CUDA device).

    >>> pc.available_backends()['numpy']
    'usable'
    """
    torch_status: BackendStatus = "usable" if torch_installed() else "no_torch"
    cuda_status: BackendStatus = "usable" if cuda_available() else "no_cuda" if torch_status == "usable" else "no_torch"
    return dict(zip(BACKEND_LABELS, ("usable", torch_status, cuda_status), strict=True))


def default_device() -> str:
    """The device the torch backend uses by default: "cuda" where a GPU is present, else "cpu".

    >>> pc.default_device() in ('cpu', 'cuda')
    True
    """
    return "cuda" if cuda_available() else "cpu"


def require_torch(what: str | None = None) -> Any:
    """Import torch, or say which extra brings it: ``what`` names what needs it, as a sentence's subject (by
    default the torch backend)."""
    if not torch_installed():
        raise MissingExtraError(f'{what or "The torch backend"} needs PyTorch; install it with '
                                '`pip install "posenc-core[torch]"` (or `pip install torch`).', name="torch")
    import torch

    return torch


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block, then give back the thread count it had.

    The core's small CPU models (a tiny Llama, SmolLM2 read block by block, a small network) are many small ops:
    on one thread they run several times faster on a shared, loaded machine than on two whose threads wait for
    each other, and they leave the other cores to the server.
    """
    torch = require_torch("Running a model on one thread")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def check_backend(backend: str, device: str | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'numpy' or 'torch', but got {backend!r}.")
    if backend == "numpy" and device not in (None, "cpu"):
        raise ValueError("device= only applies to the torch backend; numpy always runs on the CPU.")
    if backend == "torch":
        require_torch()
        if device is not None and str(device).startswith("cuda") and not cuda_available():
            raise ValueError("device='cuda' was requested but no CUDA device is available here.")


def to_backend(array: np.ndarray, backend: str = "numpy", device: str | None = None):
    """Return ``array`` unchanged for numpy, or as a torch tensor on ``device``."""
    check_backend(backend, device)
    if backend == "numpy":
        return array
    torch = require_torch()
    return torch.from_numpy(np.ascontiguousarray(array)).to(device or "cpu")


def is_tensor(x: object) -> bool:
    """Whether ``x`` is a torch tensor, told without importing torch."""
    return type(x).__module__.startswith("torch")


def kind_of(backend: str | None, device: str | None, *inputs: object) -> tuple[str, str | None]:
    """``(backend, device)`` of a result: the one named, else the inputs' own (torch, on the first tensor's
    device, when any input is a tensor; numpy otherwise)."""
    if backend is not None:
        return backend, device
    tensor = next((x for x in inputs if is_tensor(x)), None)
    return ("numpy", device) if tensor is None else ("torch", device or str(tensor.device))  # type: ignore[attr-defined]


def _as_tensors(value: Any, device: str) -> Any:
    if isinstance(value, np.ndarray):
        return require_torch().from_numpy(np.ascontiguousarray(value)).to(device)
    if isinstance(value, tuple):
        return tuple(_as_tensors(v, device) for v in value)
    if isinstance(value, list):
        return [_as_tensors(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _as_tensors(v, device) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a typed result: the same type, fields moved
        return dataclasses.replace(value, **{f.name: _as_tensors(getattr(value, f.name), device)
                                             for f in dataclasses.fields(value) if f.init})
    return value


def keeps_kind(fn: F) -> F:
    """A function that computes in numpy, given a torch tensor, returns torch tensors (on that tensor's device):
    its tensor arguments reach it as numpy arrays (``to_numpy``), so its own calls stay in numpy, and each array
    of its result, inside tuples, lists, dicts and dataclasses too, comes back as a tensor; numbers and strings stay."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        tensor = next((x for x in (*args, *kwargs.values()) if is_tensor(x)), None)
        if tensor is None:
            return fn(*args, **kwargs)
        out = fn(*(to_numpy(x) if is_tensor(x) else x for x in args),
                 **{k: to_numpy(v) if is_tensor(v) else v for k, v in kwargs.items()})
        return _as_tensors(out, str(tensor.device))  # type: ignore[attr-defined]

    return wrapper  # type: ignore[return-value]


def to_numpy(array: ArrayOrTensor) -> np.ndarray:
    """Bring a numpy array or a torch tensor (any device, any dtype) back to numpy.

    numpy has no bfloat16 (nor torch's float8 types), so such a tensor comes back as float32, which holds
    each of its values exactly (the upcast transformers and timm do before their own arithmetic).

    >>> pc.to_numpy([1.0, 2.0])
    array([1., 2.])
    """
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "detach"):
        tensor = array.detach().cpu()
        if tensor.is_floating_point() and tensor.dtype.itemsize < 4 and str(tensor.dtype) != "torch.float16":
            tensor = tensor.float()
        return tensor.numpy()
    return np.asarray(array)
