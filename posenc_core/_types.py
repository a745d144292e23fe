"""The array types of the public signatures.

``ArrayLike`` (numpy's) is what ``np.asarray`` takes: an array, a list, a scalar. ``ArrayOrTensor`` is a numpy
array or a torch tensor, for a function that returns the kind it was given or the kind its ``backend`` names;
torch is an optional extra, so its name is imported for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import torch

__all__ = ["ArrayLike", "ArrayOrTensor", "NDArray"]

ArrayOrTensor = Union[NDArray[Any], "torch.Tensor"]  # noqa: UP007 (a string member: the | form would evaluate it)
