import json

import numpy as np
import pytest

from posenc_core.lab import build_model, lab_settings, retrieval_batch
from posenc_core.todays_models import (
    DROPE_VARIANTS,
    SHIPPED_DROPE,
    drop_positions,
    drope_experiment,
    load_drope_result,
    recalibrate,
    shipped_drope_result,
)

torch = pytest.importorskip("torch")


def _tiny_settings():
    return lab_settings("quick", train_len=8, steps=10, seed=0)


def test_dropping_positions_keeps_every_weight_and_equals_rope_with_zero_angles():
    settings = _tiny_settings()
    model = build_model("rope", settings)
    dropped = drop_positions(model)
    assert model.method == "rope" and dropped.method == "none"
    for (name, a), (_, b) in zip(model.state_dict().items(), dropped.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    tokens = torch.from_numpy(retrieval_batch(2, 16, 2, 16, 0)[0])
    with torch.no_grad():
        # frequencies divided by 1e12 leave every angle ~0: RoPE becomes the identity rotation
        frozen = model(tokens, rope_scaling={"rope_type": "linear", "factor": 1e12})
        np.testing.assert_allclose(dropped(tokens).numpy(), frozen.numpy(), atol=1e-5)
        assert not torch.allclose(model(tokens), dropped(tokens), atol=1e-3)  # the rotations did matter


def test_recalibration_trains_only_the_copy():
    settings = _tiny_settings()
    model = build_model("rope", settings)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    copy = drop_positions(model)
    curve = recalibrate(copy, settings, 5)
    assert curve.step[-1] == 5 and len(curve.loss) == len(curve.step)
    assert curve.global_step == [settings.steps + s for s in curve.step]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert any(not torch.equal(before[k], v) for k, v in copy.state_dict().items())


def test_experiment_is_deterministic_and_complete():
    a = drope_experiment(train_len=8, steps=10, recalibration=5, seed=1)
    b = drope_experiment(train_len=8, steps=10, recalibration=5, seed=1)
    assert set(a.variants) == set(DROPE_VARIANTS)
    assert a.eval_lengths == [8, 16, 32, 64]
    for name in DROPE_VARIANTS:
        assert a.variants[name].accuracy == b.variants[name].accuracy
        assert np.asarray(a.attention[name]).shape == (8, 8)
    assert a.curves.recalibration.global_step[-1] == 15


def test_a_run_saved_and_loaded_is_the_same_run(tmp_path):
    a = drope_experiment(train_len=8, steps=10, recalibration=5, seed=1)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(a.to_json()))
    b = load_drope_result(path)
    assert b.to_json() == a.to_json() and b.settings == a.settings and b.curves == a.curves
    for name in DROPE_VARIANTS:
        assert b.attention[name].tobytes() == a.attention[name].tobytes()


def test_the_shipped_result_matches_its_settings():
    result = shipped_drope_result()
    settings = result.settings
    assert result.eval_lengths == [settings.train_len * f for f in (1, 2, 4, 8)]
    assert result.chance_accuracy == pytest.approx(1 / settings.vocab)
    for name in DROPE_VARIANTS:
        accuracy = result.variants[name].accuracy
        assert len(accuracy) == 4 and all(0 <= v <= 1 for v in accuracy)
        grid = result.attention[name]
        assert grid.shape == (settings.train_len,) * 2
        np.testing.assert_allclose(grid.sum(-1), 1.0, atol=5e-3)  # rows of a softmax, rounded to 4 decimals
    assert result.curves.recalibration.step[-1] == result.recalibration


def test_the_shipped_file_reads_back_as_it_was_written():
    """The file keeps its format: to_json gives back every key it holds (the variants' old labels aside)."""
    saved = json.loads(SHIPPED_DROPE.read_text())
    for variant in saved["variants"].values():
        variant.pop("label", None)
    assert shipped_drope_result().to_json() == saved


def test_a_file_that_is_not_a_run_is_refused(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"variants": {}}))
    with pytest.raises(ValueError, match="not a saved DroPE run"):
        load_drope_result(path)


def test_errors_are_sentences():
    with pytest.raises(ValueError, match="recalibration steps"):
        drope_experiment(train_len=8, steps=10, recalibration=0)
    with pytest.raises(ValueError, match="T"):
        drope_experiment(train_len=4, steps=10, recalibration=5)
