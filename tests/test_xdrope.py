"""HunYuan-VL's XD-RoPE (posenc_core.multimodal.xdrope) against transformers' own code, bit for bit.

transformers 5.23, models/hunyuan_vl/modeling_hunyuan_vl.py: ``HunYuanVLModel.get_rope_index`` (and its
``get_vision_position_ids``) for the ids, ``HunYuanVLRotaryEmbedding.recomposition_frequencies`` for the axis of each
dimension; both are called directly, on a stand-in ``self`` holding only the attributes they read.
"""

from types import MethodType, SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_core.multimodal import (
    XD_LAYOUTS,
    mm_pair_axes,
    mm_rope_settings,
    xd_dim_axes,
    xd_position_ids,
)

torch = pytest.importorskip("torch")
hunyuan = pytest.importorskip("transformers.models.hunyuan_vl.modeling_hunyuan_vl")

MERGE = 2  # HunyuanOCR's vision_config.spatial_merge_size


def _model(n_axes: int) -> SimpleNamespace:
    """The attributes ``get_rope_index`` reads, with the real ``get_vision_position_ids`` bound to them."""
    config = SimpleNamespace(text_config=SimpleNamespace(rope_parameters={"mrope_section": [8] * n_axes}),
                             vision_config=SimpleNamespace(spatial_merge_size=MERGE))
    model = SimpleNamespace(config=config)
    model.get_vision_position_ids = MethodType(hunyuan.HunYuanVLModel.get_vision_position_ids, model)
    return model


def _transformers_ids(before: int, rows: int, cols: int, after: int, n_axes: int, boundary: bool) -> np.ndarray:
    span = rows * (cols + 1) + 2 * boundary
    n = before + span + after
    types = torch.zeros(1, n, dtype=torch.int32)
    types[0, before:before + span] = 1  # the image's placeholder span, begin and end tokens included
    grid = torch.tensor([[1, rows * MERGE, cols * MERGE]])
    ids, deltas = hunyuan.HunYuanVLModel.get_rope_index(_model(n_axes), torch.zeros(1, n, dtype=torch.long),
                                                        mm_token_type_ids=types, image_grid_thw=grid)
    assert deltas.item() == 0  # the sequence axis counts every token: nothing to add when decoding
    return ids[:, 0].numpy()


@pytest.mark.parametrize(("before", "rows", "cols", "after", "n_axes", "boundary"),
                         [(3, 2, 3, 2, 4, True), (0, 5, 1, 0, 4, False), (7, 1, 6, 4, 3, True), (2, 3, 2, 1, 5, True)])
def test_ids_equal_get_rope_index(before, rows, cols, after, n_axes, boundary):
    ours = xd_position_ids(before, rows, cols, after, n_axes=n_axes, boundary=boundary)
    np.testing.assert_array_equal(ours.ids, _transformers_ids(before, rows, cols, after, n_axes, boundary))
    assert ours.next_id == ours.ids.shape[1]


def test_known_ids_of_a_small_image():
    r = xd_position_ids(3, 2, 3, 2)
    assert (r.grid_start, r.grid_end, r.span_start, r.span_end, r.next_id) == (4, 12, 3, 13, 15)
    np.testing.assert_array_equal(r.ids[0], np.arange(15))
    np.testing.assert_array_equal(r.ids[1, 4:12], [0, 1, 2, 3, 0, 1, 2, 3])  # width, the row-end column is 3
    np.testing.assert_array_equal(r.ids[2, 4:12], [0, 0, 0, 0, 1, 1, 1, 1])  # height
    np.testing.assert_array_equal(r.ids[3, 3:13], [3] + [0] * 8 + [12])  # image ordinal; begin/end keep theirs


def _transformers_dim_axes(section: list[int]) -> np.ndarray:
    """Run recomposition_frequencies on angles whose value is their axis: the output names each dimension's axis."""
    n = len(section)
    freq = torch.arange(n, dtype=torch.float32)[:, None, None, None].expand(n, 1, 1, sum(section))
    stand_in = SimpleNamespace(mrope_section=section)
    out = hunyuan.HunYuanVLRotaryEmbedding.recomposition_frequencies(stand_in, freq.clone())
    return out[0, 0].numpy().astype(np.int8)


@pytest.mark.parametrize("section", [[16, 16, 16, 16], [8, 12, 12, 0], [4, 6, 6], [1, 2, 3, 4, 5]])
def test_dim_axes_equal_recomposition_frequencies(section):
    np.testing.assert_array_equal(xd_dim_axes(section), _transformers_dim_axes(section))


def _release_dim_axes(section: list[int]) -> np.ndarray:
    """Tencent's release code: cos (d,) split by ``xdrope_section * 2``, block i from axis i % n."""
    n = len(section)
    table = torch.arange(n, dtype=torch.float32)[:, None].expand(n, 2 * sum(section))
    blocks = table.split(section * 2, dim=-1)
    return torch.cat([m[i % n] for i, m in enumerate(blocks)], dim=-1).numpy().astype(np.int8)


def test_release_layout_and_hunyuan_ocr_numbers():
    section = [16, 16, 16, 16]
    np.testing.assert_array_equal(xd_dim_axes(section, "release"), _release_dim_axes(section))
    tf = xd_dim_axes(section)
    assert tf[:32].tolist() == [0] * 32 and tf[64:96].tolist() == [2] * 32  # pair j < 32: sequence, then height
    assert not (tf[:64] == tf[64:]).any()  # no pair keeps one axis in both halves


def test_three_axis_release_layout_is_the_apps_chunked_mrope():
    settings = mm_rope_settings("qwen2_vl", mrope_section=(16, 24, 24), head_dim=128)
    chunked = np.tile(mm_pair_axes(settings), 2)  # the pair's axis in both halves
    np.testing.assert_array_equal(xd_dim_axes([16, 24, 24], "release"), chunked)
    assert not np.array_equal(xd_dim_axes([16, 24, 24]), chunked)  # transformers' split is not


@given(st.lists(st.integers(0, 12), min_size=3, max_size=6), st.sampled_from(XD_LAYOUTS))
def test_every_axis_turns_twice_its_section(section, layout):
    axes = xd_dim_axes(section, layout)
    assert axes.size == 2 * sum(section)
    assert np.bincount(axes, minlength=len(section)).tolist() == [2 * s for s in section]
    if layout == "release":
        np.testing.assert_array_equal(axes[:sum(section)], axes[sum(section):])


@given(st.integers(0, 20), st.integers(1, 12), st.integers(1, 12), st.integers(0, 20), st.integers(3, 6))
def test_text_keeps_the_sequence_index_on_every_axis(before, rows, cols, after, n_axes):
    r = xd_position_ids(before, rows, cols, after, n_axes=n_axes)
    outside = np.ones(r.ids.shape[1], dtype=bool)
    outside[r.grid_start:r.grid_end] = False
    assert (r.ids[:, outside] == np.arange(r.ids.shape[1])[outside]).all()
    assert (r.ids[:n_axes - 3] == np.arange(r.ids.shape[1])).all()  # leading axes: the sequence throughout
    assert r.ids[-1, r.grid_start:r.grid_end].max() == 0
    assert r.ids[-3, r.grid_start:r.grid_end].max() == cols and r.ids[-2, r.grid_start:r.grid_end].max() == rows - 1


@pytest.mark.parametrize(("call", "match"), [
    (lambda: xd_dim_axes([16, 16]), "at least 3 parts"),
    (lambda: xd_dim_axes([16, -1, 16]), "mrope_section entry"),
    (lambda: xd_dim_axes([16, 16, 16], "vllm"), "layout"),
    (lambda: xd_position_ids(-1, 2, 2, 0), "text_before"),
    (lambda: xd_position_ids(0, 2, 2, 1.5), "text_after"),
    (lambda: xd_position_ids(0, 0, 2, 0), "rows"),
    (lambda: xd_position_ids(0, 2, 2000, 0), "cols"),
    (lambda: xd_position_ids(0, 2, 2, 0, n_axes=2), "n_axes"),
    (lambda: xd_position_ids(0, 1000, 1000, 0), "tokens"),
])
def test_refusals_name_the_field(call, match):
    with pytest.raises(ValueError, match=match):
        call()
