"""FLUX.1 and FLUX.2: one rotary over text and image tokens, driven by a few integer ids per token.

FLUX.1 (``FluxPipeline``): every text token has ids (0, 0, 0) and the image token at latent row r and
column c has (0, r, c); the head's 128 dimensions split as ``axes_dims_rope`` = (16, 56, 56), each block
turning with one id at θ = 10,000. FLUX.2 (``Flux2Pipeline``) uses four ids (t, h, w, l) and θ = 2,000:
text tokens (0, 0, 0, l) with l their index, image tokens (0, h, w, 0), and reference images a time id of
10, 20, 30, ... so they sit apart from the image being made. The image is packed 2 x 2 after the VAE's
8x downsampling, so one token covers 16 x 16 pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._checks import as_int, check_size
from .rotary import dit_rotary_1d

__all__ = ["FLUX_PIXELS_PER_TOKEN", "flux_token_grid", "flux_image_ids", "flux_text_ids", "flux_sequence_ids",
           "flux2_text_ids", "flux2_image_ids", "flux2_reference_ids", "flux_rope"]

FLUX_PIXELS_PER_TOKEN = 16  # VAE 8x, then the pipeline packs 2 x 2 latents into one token


def flux_token_grid(height_px: int, width_px: int) -> tuple[int, int]:
    """(rows, columns) of image tokens for an image of this many pixels, as FluxPipeline rounds them down."""
    h = as_int("the image height (pixels)", height_px, minimum=FLUX_PIXELS_PER_TOKEN, maximum=16384)
    w = as_int("the image width (pixels)", width_px, minimum=FLUX_PIXELS_PER_TOKEN, maximum=16384)
    # the pipeline keeps 2 * (height // 16) latent rows and packs them in twos: height // 16 token rows
    return h // FLUX_PIXELS_PER_TOKEN, w // FLUX_PIXELS_PER_TOKEN


def flux_image_ids(rows: int, cols: int) -> torch.Tensor:
    """(rows*cols, 3) float32 ids (0, row, col) in reading order, as ``_prepare_latent_image_ids``."""
    rows = as_int("rows of image tokens", rows, minimum=1, maximum=4096)
    cols = as_int("columns of image tokens", cols, minimum=1, maximum=4096)
    check_size(rows * cols * 3, "the image ids")
    ids = torch.zeros(rows, cols, 3)  # (rows, cols, 3)
    ids[..., 1] = ids[..., 1] + torch.arange(rows)[:, None]
    ids[..., 2] = ids[..., 2] + torch.arange(cols)[None, :]
    return ids.reshape(rows * cols, 3)


def flux_text_ids(n_text: int) -> torch.Tensor:
    """(n_text, 3) zeros: FLUX.1 gives every text token the same ids, so text carries no rotary position."""
    n_text = as_int("the number of text tokens", n_text, minimum=0, maximum=4096)
    return torch.zeros(n_text, 3)


def flux_sequence_ids(n_text: int, rows: int, cols: int) -> torch.Tensor:
    """(n_text + rows*cols, 3): text first, then the image, the order FluxTransformer2DModel concatenates."""
    return torch.cat((flux_text_ids(n_text), flux_image_ids(rows, cols)), dim=0)


def flux2_text_ids(n_text: int, t: int = 0) -> torch.Tensor:
    """(n_text, 4) int64 ids (t, 0, 0, l) with l = 0..n_text-1, as Flux2Pipeline's ``_prepare_text_ids``."""
    n_text = as_int("the number of text tokens", n_text, minimum=0, maximum=4096)  # 0: an empty prompt
    return torch.cartesian_prod(torch.tensor([as_int("t", t, minimum=0)]), torch.arange(1), torch.arange(1),
                                torch.arange(n_text))


def flux2_image_ids(rows: int, cols: int, t: int = 0) -> torch.Tensor:
    """(rows*cols, 4) int64 ids (t, h, w, 0), as ``_prepare_latent_ids`` (t = 0 for the image being made)."""
    rows = as_int("rows of image tokens", rows, minimum=1, maximum=4096)
    cols = as_int("columns of image tokens", cols, minimum=1, maximum=4096)
    check_size(rows * cols * 4, "the image ids")
    return torch.cartesian_prod(torch.tensor([as_int("t", t, minimum=0)]), torch.arange(rows), torch.arange(cols),
                                torch.arange(1))


def flux2_reference_ids(sizes: Sequence[tuple[int, int]], scale: int = 10) -> torch.Tensor:
    """(sum of rows*cols, 4) ids of reference images: image i gets time id scale + scale·i (``_prepare_image_ids``)."""
    blocks = [flux2_image_ids(r, c, t=scale + scale * i) for i, (r, c) in enumerate(sizes)]
    if not blocks:
        raise ValueError("sizes must list at least one reference image as (rows, columns).")
    return torch.cat(blocks, dim=0)


def flux_rope(ids: torch.Tensor, axes_dim: Sequence[int], theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (n_tokens, sum(axes_dim)) float32: axis i's ids turn its block of axes_dim[i] dims.

    The same steps as FluxPosEmbed / Flux2PosEmbed: ids cast to float32, pair frequencies in float64.
    """
    ids = torch.as_tensor(ids)
    axes = [as_int(f"axes_dims_rope[{i}]", d, minimum=2) for i, d in enumerate(axes_dim)]
    if ids.ndim != 2 or ids.shape[1] != len(axes):
        raise ValueError(f"ids must have one column per entry of axes_dims_rope ({len(axes)}), "
                         f"but have shape {tuple(ids.shape)}.")
    pos = ids.float()
    parts = [dit_rotary_1d(d, pos[:, i], theta, freqs_dtype="float64") for i, d in enumerate(axes)]
    return torch.cat([c for c, _ in parts], dim=-1), torch.cat([s for _, s in parts], dim=-1)
