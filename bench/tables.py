"""Every lesson's numeric tables at their largest slider settings, against the machine's sin/cos limit. Not a test.

    python bench/tables.py [--only LESSON] [--json PATH]

Each table a lesson builds through a posenc_core call (in its @st.cache_data functions) is built here by the same
call, written as the lesson writes it, with every slider at the largest value it allows: read from the lesson's
source (slider ranges, numeric choice lists, text boxes' max_chars, module constants, page_kit.controls' lists),
since lesson pages draw when imported. Where a choice (a model, a method, a layout) sets the size, every choice is
timed once and the worst, named in brackets, timed in full (choices a page refuses with a message are counted).
Each call: one warm-up call, then best of 5 (of 2, marked *, past 1 s a call), torch on one thread. Its time is
divided by the machine's sin/cos limit for as many values:

- limit_float32: best-of-7 time of bare numpy np.sin + np.cos over float32 arrays with as many elements in total
  as the table has values (half sin, half cos), one thread;
- limit_float64: the same with torch.sin / torch.cos on float64 tensors, torch on one thread: the fastest float64
  sin and cos on this machine (numpy's float64 sin is about 4x slower).

Tables whose bits must match a model's float64 arithmetic (the paper's sinusoidal table, MAE's and SD3's sin-cos
grids) are judged by limit_float64, all others by limit_float32; both ratios are printed. Values are all the
numbers in the result (arrays, tensors, scalars, in dicts, lists and objects), so a large ratio on a small result
is call overhead or work the result does not show (a curve sampled from a million positions): the last line also
gives the worst ratio among tables of at least 100,000 values. Calls that train or run downloaded models are
listed as skipped.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.runtime.caching import cache_data_api  # noqa: E402

import posenc_core as pc  # noqa: E402
from page_kit.lesson.config_words import layer_table  # noqa: E402
from posenc_core.configs import layer_groups, layer_pairs, model_contexts, query_scale, rope_layer_types  # noqa: E402
from posenc_core.long_context import (  # noqa: E402
    PHI35_LONG_FACTOR,
    PHI35_SHORT_FACTOR,
    extension_analysis,
    extension_scaling,
    resample_factors,
    score_vs_distance,
    yarn_paper_ratio,
)
from posenc_core.multimodal import MM_FAMILIES, MULTIMODAL_PRESETS, read_multimodal_config  # noqa: E402

cache_data_api._LOGGER.setLevel("ERROR")  # the views modules' caches warn, harmlessly, that no app is running

# The names below the core are used by the rows' expressions (LESSONS), which run in this module's namespace.
from lessons.long_context import extension_knob_views  # noqa: E402, F401
from lessons.multimodal import multimodal_views, scores_views  # noqa: E402, F401
from lessons.todays_models import sentence_views  # noqa: E402, F401
from page_kit import controls, figures  # noqa: E402, F401
from posenc_core._tokens import MAX_TOKENS  # noqa: E402, F401 (the sentence lessons' word limit)

BIG = 100_000  # values: below this a table's time is mostly call overhead
F32 = (False, "no model's float64 bits to match")
PAPER = (True, "pc.sinusoidal: the models' float64 angles")
MAE, SD3 = (True, "MAE's float64 sin-cos grid"), (True, "SD3's float64 sin-cos grid")
SKIPPED = [("lab", "run_lab", "trains every model (minutes)"), ("fourier", "fit_coordinates", "trains 3 networks"),
           ("drope", "drope_experiment", "trains a model (the page shows a shipped run)"),
           ("real_*", "real_models.*", "runs downloaded models (MiniLM, SmolLM2) or reads their shipped results")]


def _value(node, names: dict):
    """A literal, a module constant, controls.X or pc.X, list(...) of one, or CONTEXTS[:5]."""
    if isinstance(node, ast.Name) and node.id in names:
        return _value(names[node.id], names)
    if isinstance(node, ast.Attribute) and getattr(node.value, "id", "") in ("controls", "pc"):
        return getattr(controls if node.value.id == "controls" else pc, node.attr)
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "list":
        return list(_value(node.args[0], names))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return _value(node.value, names)[:_value(node.slice.upper, names)]
    return ast.literal_eval(node)


def sliders(*files: str) -> dict:
    """A lesson's literal module constants and, by URL key, the largest value of each slider and numeric choice
    list, and each text box's longest text. A range set by another control (n - 1) is skipped: a cell picker, or
    one that follows another slider, whose largest value the row writes itself."""
    found = {}
    for rel in files:
        tree = ast.parse((ROOT / "lessons" / rel).read_text())
        names = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name)}
        for name, node in names.items():
            try:
                found[name] = ast.literal_eval(node)
            except ValueError:
                pass
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(getattr(call.func, "value", None), "id", "") == "controls"):
                continue
            kind, kw = call.func.attr, {k.arg: k.value for k in call.keywords}
            arg = lambda i, call=call, names=names: _value(call.args[i], names)
            try:
                if kind == "slider":
                    found[arg(1)] = max(found.get(arg(1), arg(3)), arg(3))
                elif kind in ("select_slider", "select", "choice") and all(isinstance(v, (int, float)) for v in arg(2)):
                    found[arg(1)] = max(arg(2))
                elif kind in ("base_slider", "head_dim_slider"):
                    default = controls.ROPE_BASES if kind == "base_slider" else controls.HEAD_DIMS
                    found["base" if kind == "base_slider" else "d"] = max(arg(0) if call.args else default)
                elif kind == "grid_size":
                    found.update(dict.fromkeys(_value(kw["keys"], names) if "keys" in kw else ("gh", "gw"), arg(0)))
                elif kind == "text":
                    found[arg(1)] = fill(arg(2), _value(kw["max_chars"], names))
            except (ValueError, KeyError, TypeError, IndexError, AttributeError):
                pass
    return found


def fill(text: str, chars: int, words: int = 10**9) -> str:
    """The longest text a box takes: ``text`` repeated, cut to ``chars`` characters and ``words`` whole words."""
    return " ".join((" ".join([text] * (chars // len(text) + 1))[:chars].split()[:-1])[:words])


def values(obj, seen=None) -> tuple[int, tuple]:
    """(numbers in a result, shape of its largest array)."""
    seen = set() if seen is None else seen
    if isinstance(obj, (torch.Tensor, np.ndarray)):
        return (int(np.prod(obj.shape)), tuple(obj.shape)) if obj.dtype != object else values(list(obj.flat), seen)
    if isinstance(obj, (bool, int, float, np.number)):
        return 1, ()
    if id(obj) in seen or isinstance(obj, (str, bytes, type)):
        return 0, ()
    seen.add(id(obj))
    items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple, set)) else \
        vars(obj).values() if hasattr(obj, "__dict__") else []
    parts = [values(v, seen) for v in items]
    return sum(p[0] for p in parts), max((p[1] for p in parts), key=lambda s: int(np.prod(s)), default=())


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


@functools.cache
def limits(n: int) -> tuple[float, float]:
    """(float32, float64) sin + cos time for ``n`` values, best of 7 (main sets torch to one thread)."""
    half = np.random.default_rng(0).random(max(n // 2, 1), dtype=np.float32) * 100  # angles as in a table
    wide = torch.from_numpy(half.astype(np.float64))
    return tuple(best_of(lambda s=s, c=c, x=x: (s(x), c(x)), 7)
                 for s, c, x in ((np.sin, np.cos, half), (torch.sin, torch.cos, wide)))


# Cached functions that are more than one core call, written as the lessons write them.
def extension(method, head_dim, base, original, factor, k):
    """extension.py's analyse(), line for line."""
    n_pairs = head_dim // 2
    scaling, max_pos = extension_scaling(
        method, factor, original, beta_fast=k["beta_fast"], beta_slow=k["beta_slow"], mscale=k["mscale"],
        mscale_all_dim=k["mscale_all_dim"], truncate=k["truncate"], low_freq_factor=k["low_ff"],
        high_freq_factor=k["high_ff"], short_factor=resample_factors(PHI35_SHORT_FACTOR, n_pairs),
        long_factor=resample_factors(PHI35_LONG_FACTOR, n_pairs), alpha=k["alpha"])
    target = int(round(factor * original))
    result = extension_analysis(head_dim, base, scaling, original=original, target=target,
                                   seq_len=int(round(k["current"] * original)), max_position_embeddings=max_pos)
    paper = yarn_paper_ratio(head_dim, base, original, factor, k["beta_fast"], k["beta_slow"]) \
        if method == "yarn" else None
    distances, before = score_vs_distance(result.inv_freq_before, 1.0, 4 * target)
    _, after = score_vs_distance(result.inv_freq_after, result.attention_factor, 4 * target)
    return scaling, result, paper, distances, before, after


def layer_strip(config):
    """layer_strip.py's read() and layer_view() at the page's default layer (its first full-attention one)."""
    reading, rows = pc.read_layers(config)
    try:
        original, target, _ = model_contexts(rows)
    except ValueError:
        original, target = reading.get("max_position_embeddings") or 4096, None
    context = target or original
    row = next((r for r in rows if r.is_attention and r.mixer == "full_attention"), rows[0])
    out = [layer_groups(rows), layer_table(rows)]
    if row.rotates:
        pairs = layer_pairs(row, context)
        out += [pairs, score_vs_distance(pairs.inv_freq, pairs.attention_factor,
                                            min(2 * context, pc.MAX_POSITIONS * 64))]
    if row.query_scale:
        positions = np.unique(np.round(np.geomspace(1, 8 * context, 600))).astype(np.int64)
        out.append(query_scale(row.query_scale, positions))
    return out


def config_view(key):
    """model_configs.py's analyse() for a preset, at its default layer type (full attention where it has one)."""
    config = pc.PRESETS[key].config
    layers = rope_layer_types(config)
    return pc.configs.config_view(config, ("full_attention" if "full_attention" in layers else layers[0]) if layers else None)


def mm_model(key):
    """multimodal_views.model_picker() for a preset."""
    return multimodal_views._from_reading(read_multimodal_config(MULTIMODAL_PRESETS[key].config), key)


def mm_spec(model, e):
    """(spec, frame_text) as multimodal_views.sequence_controls() writes them, sound on."""
    family = MM_FAMILIES[model.family]
    sound, audio = (" +audio", f", audio {e['au']:g}s, text 2") if family.audio else ("", "")
    return (f"text {e['t0']}, image {e['ih']}x{e['iw']}, text {e['t1']}, video {e['vf']}f {e['vh']}x{e['vw']} "
            f"@{e['fps']:g}{sound}, text {e['t2']}{audio}",
            e["ft"] if family.time_rule == "text_timestamps" else family.frame_text or 1)


MODELS_MM = "[mm_model(k) for k in pc.multimodal.MULTIMODAL_PRESETS]"  # the multimodal pages' model picker
TOWERS = "[k for k, t in pc.multimodal.VISION_TOWERS.items() if t.layout == 'hwhw']"  # vision_rope.py's QWEN_TOWERS
M = "c.family, c.head_dim, c.rotary_dim, c.theta, c.section, sh, sw, sh - 1, sw - 1"  # scores_views' arguments
SENTENCE = {"text": "fill(sentence_views.SENTENCE, 300, MAX_TOKENS)"}  # the box: 300 characters, 64 words
# lesson: (its files; names computed first, as the app caches them apart; [(the call as the lesson writes it, with
# its sliders' URL keys and constants as names; the limit that applies; where a choice sets the size, the
# choices, each bound to c in turn)]). A cell picker (row, column, query i) is set to its last cell.
LESSONS = {
    "naive": (["why_position/naive.py"], {}, [
        ("{k: pc.why_position.naive_norm_ratio(n, k, d) for k in KINDS}", F32), ("pc.why_position.naive_inputs(n, d, 'integer')", F32),
        ("pc.why_position.fraction_codes([short, long])", F32)]),
    "binary": (["why_position/binary.py"], {}, [
        ("pc.why_position.binary_codes(n, bits), pc.why_position.binary_waves(range(n), bits)", F32),
        ("pc.why_position.binary_column_curve(bits - 1, 2)", F32),
        ("pc.why_position.binary_codes(n, bits), pc.sinusoidal(n, 2 * bits, layout='concat')[:, :bits]", PAPER)]),
    "order": (["why_position/order.py", "why_position/why_views.py"], {"s": "fill(s, len(s), MAX_TOKENS)"}, [
        ("pc.why_position.order_experiment(s, d, c, seed=seed, i=0, j=1, order=None, positions=True, pooling='mean')", F32,
         "['reverse', 'swap', 'shuffle']"),
        ("pc.why_position.patch_experiment(48, 4, iseed, 32, True, 'mean')", F32)]),  # the smallest patch: the most patches
    "sinusoidal": (["absolute/sinusoidal.py", "absolute/sinusoidal_views.py"], {}, [
        ("pc.to_numpy(pc.sinusoidal(n, d, base, c[0], backend=c[1], device='cpu'))", PAPER,
         "[(y, 'numpy') for y in pc.absolute.LAYOUTS]"),  # the backend is a setting of the app: numpy unless torch is picked
        ("pc.to_numpy(pc.sinusoidal(n, d, base, c[0], backend=c[1], device='cpu'))", PAPER,
         "[(y, 'torch') for y in pc.absolute.LAYOUTS]"),
        ("pc.sinusoidal(n, d, base, 'concat', variant='tensor2tensor'), pc.absolute.sinusoidal_variant_gap(n, d, base)", F32),
        ("(s := pc.measures.similarity_matrix(pc.sinusoidal(n, d, base, c))), pc.measures.toeplitz_deviation(s)", F32, "pc.absolute.LAYOUTS")]),
    "learned": (["absolute/learned.py"], {"P": "pc.absolute.minilm_position_table()"}, [  # all 512 rows analysed
        ("{'similarity': pc.absolute.sampled_similarity(P), 'ends': pc.measures.similarity_matrix(P[[0, 1, -1]], 'cosine'), "
         "'pca': pc.absolute.principal_components(P, min(6, *P.shape)), 'summary': pc.absolute.table_summary(P)}", F32),
        ("pc.absolute.learned_lookup(P, 2 * len(P), strict=False), pc.absolute.missing_rows(len(P), 2 * len(P))", F32)]),
    "token_position": (["absolute/token_position.py"], {"s": "fill(s, len(s), MAX_TOKENS)"}, [
        ("pc.absolute.token_plus_position(pc.why_position.tokenize(s), d, c, True)", F32, "pc.absolute.EMBEDDING_INITS"),
        ("pc.absolute.embedding_norm_balance(sorted(set(WIDTHS) | {d}), c, True)", F32, "pc.absolute.EMBEDDING_INITS")]),
    "rope": (["rope/rope.py", "rope/pair_views.py"], {}, [
        ("pc.rope_angle_table(pos, d, base, c)", F32, "['angle', 'cos', 'sin']"), ("pc.rope.rope_turns(d, base, ctx)", F32),
        ("pc.rope.rope_pair_shift_scores((qx, qy), (kx, ky), m, n, pc.rope.rope_pair_theta(d // 2 - 1, d, base))", F32)]),
    "rope_relative": (["rope/rope_relative.py"], {}, [
        ("(s := pc.rope_score_matrix(n, d, base, c, 0)), pc.measures.toeplitz_deviation(s)", F32, "pc.rope.ROPE_LAYOUTS"),
        ("pc.rope.rope_decay_curves(d, dist, base, log_distance=True, samples=2048)", F32)]),
    "rope_variants": (["rope/rope_variants.py", "rope/rope_views.py"], {}, [
        ("pc.rope.rope_layout_check(8, d, base), [pc.rope.rope_cos_table(1, d, base, layout=y).pair "
         "for y in pc.rope.ROPE_LAYOUTS]", F32), ("pc.rope.rope_conversion_scores(n, d, base, seed=0)", F32),
        ("pc.rope.rope_cos_table(pos, d, base, partial_rotary_factor=pct, layout=c)", F32, "pc.rope.ROPE_LAYOUTS"),
        ("[pc.rope.rope_angle_error_curve(len, d, base, t) for t in pc.rope.ANGLE_DTYPES], "
         "[pc.rope.rope_first_bad_position(d, base, t, max_position=len) for t in pc.rope.ANGLE_DTYPES]", F32),
        ("pc.rope.rope_angles_in_dtype(at, 48, d, base, pair=0, dtype=c)", F32, "pc.rope.ANGLE_DTYPES"),
        ("pc.rope.rope_float32_pow_difference(d, base, 1500), pc.rope.rope_float32_pow_difference(d, base, len)", F32)]),
    "rope_model": (["rope/rope_model.py"], {}, [
        ("pc.rope.rope_model_costs((p := pc.rope.ROPE_MODEL_PRESETS[c])['n_layers'], p['n_heads'], p['n_kv_heads'], "
         "p['head_dim'], seq, partial_rotary_factor=p['partial_rotary_factor'], d_model=p['d_model'])", F32,
         "pc.rope.ROPE_MODEL_PRESETS")]),
    "alibi": (["attention_bias/alibi.py", "attention_bias/alibi_views.py"], {}, [
        ("pc.attention_bias.alibi_slope_table(h)", F32), ("pc.attention_bias.alibi_shown_heads(h, MAX_PANELS), pc.alibi_bias(h, n, n, True)", F32),
        ("pc.attention_bias.alibi_shown_heads(h, MAX_PANELS), pc.attention_bias.alibi_attention(h, n, True)", F32),
        ("pc.attention_bias.alibi_receptive_field(h, ctx, mass)", F32),
        ("pc.attention_bias.alibi_mass_beyond(h, train, train * factor), pc.attention_bias.alibi_bias_by_distance(h, train * factor)", F32)]),
    "compare": (["attention_bias/compare.py"], {}, [
        ("pc.attention_bias.parameter_counts(dm, h, L, lmax, nb, k)", F32),
        ("pc.attention_bias.score_curves(r, d, 10000.0, 8, ah, 32, 128, 0, c)", F32, "['relative', 'raw']")]),
    "nope": (["attention_bias/nope.py"], {}, [
        ("pc.attention_bias.nope_outputs(n, d, c, 0)", F32, "['start token', 'random']"),
        ("[pc.attention_bias.uniform_attention_weights(n, causal=True), pc.attention_bias.uniform_attention_weights(n, causal=False)]", F32)]),
    "shaw": (["attention_bias/shaw.py"], {"e": "pc.attention_bias.shaw_example(n, d, k, 0)"}, [
        ("pc.attention_bias.shaw_clipped_distance(n, None, k)", F32), ("pc.attention_bias.shaw_example(n, d, k, 0)", F32),
        ("pc.attention_bias.shaw_scores(e.q, e.k, e.a_k, k)", F32),
        ("pc.attention_bias.shaw_attention(e.q, e.k, e.v, e.a_k, e.a_v, k, True)", F32),
        ("pc.attention_bias.shaw_effective_keys(n, d, k, n - 1, 0)", F32)]),
    "t5": (["attention_bias/t5.py"], {"v": "pc.attention_bias.t5_bucket_values(nb, True, 0, edit_bucket=nb - 1, edit_value=10.0)"}, [
        ("pc.t5_relative_position_bucket(list(range(-span, span + 1)), c == 'bidirectional', nb, md)", F32,
         "['bidirectional', 'causal']"),
        ("pc.attention_bias.t5_bucket_layout(True, nb, md), pc.attention_bias.t5_bucket_spans(True, nb, md, span)", F32),
        ("pc.attention_bias.t5_bucket_grid(n, None, True, nb, md)", F32),
        ("pc.attention_bias.t5_bucket_values(nb, True, 0, edit_bucket=nb - 1, edit_value=10.0)", F32),
        ("figures.blank_masked(pc.t5_bias_grid(v, bn, True, md))", F32)]),
    "extension": (["long_context/extension.py", "long_context/extension_views.py",
                   "long_context/extension_knob_views.py"], {"knobs": "extension_knob_views.default_knobs(s) | dict("
                   "current=cur, beta_fast=bf, mscale=ms, mscale_all_dim=msa, low_ff=lo, high_ff=hi, alpha=al)"}, [
        ("extension(c, d, float(base), L, s, knobs)", F32, "pc.long_context.EXTENSION_METHODS"),
        ("pc.rope.rope_dynamic_calls(d, base, s, L, pc.rope.dynamic_call_lengths(c, L, s))", F32, "pc.rope.DYNAMIC_CALL_PATTERNS"),
        ("pc.long_context.attention_factor_curve([128.0 ** (k / 199) for k in range(200)], L)", F32)]),
    "extension_compare": (["long_context/extension_compare.py", "long_context/extension_views.py"], {}, [
        ("pc.long_context.extension_at_defaults(c, d, base, L, s)", F32, "[None, *pc.long_context.EXTENSION_METHODS]"),
        ("pc.long_context.fastest_pair_when_doubled(FAST_PAIR_METHODS, d, base, L, s)", F32)]),
    "model_configs": (["long_context/model_configs.py"], {}, [("config_view(c)", F32, "pc.PRESETS")]),
    "dit_image_ids": (["diffusion/dit_image_ids.py"], {"grid": "pc.diffusion.flux_token_grid(h, w)"}, [
        ("pc.diffusion.dit_image_id_grids(c, *grid, True)", F32, "MODELS.values()"),
        ("pc.diffusion.dit_sequence_ids(c, *grid, n_text=4)", F32, "MODELS.values()"),
        ("pc.diffusion.dit_axis_series(p := pc.diffusion.dit_preset(c), pc.diffusion.dit_axis_extents(p, w, h))", F32, "MODELS")]),
    "dit_resolution": (["diffusion/dit_resolution.py"], {}, [
        ("pc.diffusion.dit_resolution_view(c[0], tw, w, c[1])", F32, "[(m, r) for m in MODELS for r in pc.diffusion.RESOLUTION_METHODS]")]),
    "dit_sd3_grid": (["diffusion/dit_sd3_grid.py"], {}, [
        ("pc.diffusion.sd3_similarity_grid((p := pc.diffusion.dit_preset(c)).head_dim * p.heads, (z := p.extra['pos_embed_max_size']), "
         "p.extra['base_size'], z // 2, z // 2)", SD3, "MODELS")]),
    "dit_video_rope": (["diffusion/dit_video_rope.py"], {}, [
        ("[pc.diffusion.dit_axis_series(p := pc.diffusion.dit_preset(c), pc.diffusion.dit_axis_extents(p, w, h, f)) for f in (fa, fb)]", F32,
         "MODELS")]),
    "patches": (["images/patches.py", "images/image_views.py"], {}, [
        ("pc.sincos_2d(gh, gw, d, base)", MAE), ("pc.images.sincos_neighbours(gh, gw, d, base, gh - 1, gw - 1)", F32),
        ("pc.images.patch_similarity_maps(pc.images.flattened_sincos(gh, gw, d, base) if c == 'flattened' else "
         "pc.sincos_2d(gh, gw, d, base), gh, gw, 'cosine')", F32, "['2D', 'flattened']"),
        ("pc.images.rope_2d_score_maps(gh, gw, d, gh - 1, gw - 1, base, vectors=c), "
         "pc.images.rope_2d_relative_check(gh, gw, d, base, vectors=c)", F32, "pc.images.AXIAL_QK")]),
    "resize": (["images/resize.py"], {"T": "{s: pc.images.vit_position_table(s, old, d, cls, seed=0) for s in SOURCES}",
                                      "R": "{(s, m): pc.resample_pos_embed(T[s], (old, old), (new, new), cls, m, True) "
                                           "for s in SOURCES for m in pc.images.RESIZE_MODES}"}, [
        ("pc.images.vit_position_table(c, old, d, cls, seed=0)", MAE, "['sincos']"),
        ("pc.images.vit_position_table(c, old, d, cls, seed=0)", F32, "['learned']"),
        ("pc.resample_pos_embed(T[c[0]], (old, old), (new, new), cls, c[1], True)", F32, "R"),
        ("pc.images.patch_similarity_maps(T[c[0]], old, old, 'cosine', cls), "
         "pc.images.patch_similarity_maps(R[c], new, new, 'cosine', cls)", F32, "R"),
        ("pc.images.sincos_resize_errors(old, new, d, 10000.0, True)", F32),
        ("pc.images.resize_neighbour(c[0], old, new, d, cls, c[1], True, old - 1, old - 1)", F32, "R"),
        ("pc.images.resize_profile(c, old, new, d, cls, True, new - 1, d - 1)", F32, "SOURCES")]),
    "fourier": (["images/fourier.py"], {}, [  # the encodings tab; the fits train (skipped)
        ("pc.images.encoding_tables(L, float(s), m, 0), pc.images.encoding_ranges(L, float(s), m, 0)", F32)]),
    "mm_pair_axes": (["multimodal/mm_pair_axes.py"], {}, [
        ("pc.multimodal.mm_family_axis_table()", F32),
        ("pc.multimodal.mm_pair_wavelengths(t := multimodal_views.settings_of(c)), pc.multimodal.mm_wavelength_ranges(t), "
         "pc.multimodal.mm_allocation_summary(t), pc.multimodal.mm_slow_pairs(t, 'width', IMAGE_WIDTH)", F32, MODELS_MM)]),
    "mm_position_ids": (["multimodal/mm_position_ids.py", "multimodal/multimodal_views.py"], {}, [
        ("multimodal_views.position_ids.__wrapped__(c.family, *mm_spec(c, ui), c.tokens_per_second, "
         "c.position_id_per_seconds, c.n_window)", F32, MODELS_MM)]),
    "mm_scores": (["multimodal/mm_scores.py", "multimodal/scores_views.py"], {}, [
        (f"scores_views.image_maps.__wrapped__({M}), scores_views.row_end.__wrapped__({M})", F32, MODELS_MM),
        ("{k: pc.multimodal.mm_video_scores(k, pc.multimodal.mm_rope_settings(k), vf, vs, vs, vfps, vs // 2, vs // 2, vf // 2 - 1) "
         "for k in pc.multimodal.MM_FAMILIES}", F32),
        ("pc.multimodal.mm_time_id_table(ff, (fa, fb), scores_views.TIME_FAMILIES)", F32)]),
    "vision_rope": (["multimodal/vision_rope.py"], {}, [
        ("pc.multimodal.vision_tower_score_map(c, gh, gw, gh - 1, gw - 1, relative=True), pc.multimodal.vision_tower_score_map('gemma4', "
         "gh, gw, gh - 1, gw - 1, relative=True), pc.multimodal.factorized_learned_table(gh, gw, 64, query=(gh - 1, gw - 1))",
         F32, TOWERS),
        ("pc.multimodal.vision_far_score(c, gh, gw, gh - 1, 0), pc.multimodal.vision_far_score('gemma4', gh, gw, gh - 1, 0), "
         "pc.multimodal.vision_far_score(c, gh, gw, gh - 1, 0, theta=pc.multimodal.VISION_TOWERS['gemma4'].theta)", F32, TOWERS)]),
    "deberta": (["encoders/deberta.py"], {}, [  # at pb = 256 the max-distance list keeps every top: max(TOPS)
        ("pc.encoders.deberta_terms(pc.encoders.deberta_example(n, hidden, heads, pb, max(TOPS), 0))", F32),
        ("pc.encoders.deberta_bucket_curve(2 * max(TOPS), pb, max(TOPS))", F32)]),
    "modernbert": (["encoders/modernbert.py"], {}, [
        ("pc.encoders.modernbert_pairs(c), pc.encoders.modernbert_masks(n, c), pc.encoders.modernbert_cost_curve(c, len)", F32,
         "pc.encoders.MODERNBERT_PRESETS")]),
    "xl_relative": (["encoders/xl_relative.py"], {}, [
        ("pc.encoders.xl_terms(pc.encoders.xl_example(n, dm, dh, 0))", F32),
        ("pc.attention_bias.shaw_scores((e := pc.attention_bias.shaw_example(n, dh, k, 0)).q, e.k, e.a_k, k).relative", F32)]),
    "attention_sinks": (["todays_models/attention_sinks.py"], {"OFFSETS": "np.linspace(-6.0, 6.0, 121)"}, [
        ("pc.todays_models.sink_attention_map(32, 32, sink)", F32),  # the map's n is 32, and its window slider ends there
        ("{s: pc.todays_models.sink_mass_by_score(s, OFFSETS, w) for s in (sink - 2, sink, sink + 2)}", F32),
        ("pc.todays_models.sink_mass_by_position(sink, 4 * w, w)", F32), ("pc.todays_models.streaming_eviction(w, sink, first)", F32)]),
    "cope": (["todays_models/cope.py"], {}, [
        ("pc.todays_models.cope_counting_example(text, c, target, float(s))", F32, "pc.todays_models.COPE_UNITS")]),
    "fewer_frequencies": (["todays_models/fewer_frequencies.py"], {}, [
        ("pc.todays_models.fewer_frequency_summaries(d, base, p, ctx)", F32),
        ("pc.todays_models.frequency_score_curves(d, base, p, ctx, 800)", F32), ("pc.todays_models.dimension_frequency_table(d, base, p)", F32)]),
    "fox": (["todays_models/fox.py"], SENTENCE, [("pc.todays_models.fox_sentence(text, heads, heads, dep, seed)", F32)]),
    "stick_breaking": (["todays_models/stick_breaking.py"], SENTENCE, [
        ("pc.todays_models.stick_breaking_sentence(text, level, heads, heads, seed, attend_current=True)", F32),
        ("pc.todays_models.stick_breaking_constant(z, 24)", F32)]),
    "path_attention": (["todays_models/path_attention.py"], SENTENCE, [
        ("pc.todays_models.path_sentence(text, dim, seed, base, sharp)", F32)]),
    "hybrids": (["todays_models/hybrids.py"], {}, [
        ("pc.todays_models.order_test(n, 16, c, i=n - 3, j=n - 1, seed=0)", F32, "KINDS")]),
    "latent_attention": (["todays_models/latent_attention.py"], {}, [
        ("[pc.todays_models.mla_demo_scores(c, h, n, pc.todays_models.MLA_PRESETS[c].max_position_embeddings - n, 0, i) for i in "
         "(pc.todays_models.MLA_PRESETS[c].rope_interleave, not pc.todays_models.MLA_PRESETS[c].rope_interleave)]", F32, "pc.todays_models.MLA_PRESETS")]),
    "layer_strip": (["todays_models/layer_strip.py"], {}, [("layer_strip(pc.PRESETS[c].config)", F32, "pc.PRESETS")]),
    "local_global": (["todays_models/local_global.py"], {}, [
        ("pc.todays_models.local_global_view(c), pc.todays_models.local_global_scores(c), pc.todays_models.local_global_window_edge(c)", F32,
         "pc.todays_models.LOCAL_GLOBAL_MODELS")]),
    "nope_layers": (["todays_models/nope_layers.py"], {}, [
        ("pc.todays_models.nope_layer_map(layers)", F32),
        ("(g := pc.todays_models.query_scale_positions(ctx, (8192, orig))), pc.todays_models.llama4_attn_temperature(g, beta, 8192), "
         "pc.todays_models.llama_4_scaling_beta(g, beta, orig)", F32),
        ("pc.todays_models.temperature_entropy(c, pc.todays_models.temperature_positions(ectx), scale=0.1, period=pc.todays_models.QUERY_SCALE_RULES[c].period, "
         "spread=spread, margin=margin)", F32, "pc.todays_models.QUERY_SCALE_RULES")]),
}


def short(expr: str) -> str:
    """The core (and lesson) functions an expression calls, in order: the table's "call" column."""
    calls = re.findall(r"([A-Za-z_][\w.]*?)(?:\.__wrapped__)?\(", expr)
    return ", ".join(dict.fromkeys(c.split(".")[-1] for c in calls if c.startswith("pc.") or "_views." in c
                                   or c in ("extension", "layer_strip", "config_view")))


def run(lesson: str, files: list, extras: dict, rows: list, skipped: list) -> list[dict]:
    """Each row of a lesson, timed. Where a choice sets the size, every choice is timed once after its warm-up
    and the one with the worst ratio gets the full timing (best of 5, or 2 past 1 s a call)."""
    env = globals() | (ui := sliders(*files)) | {"ui": ui}  # the rows use this module's names and the lesson's
    for name, expr in extras.items():
        env[name] = eval(expr, env)  # cached apart in the app, so not part of the timed call
    out = []
    for expr, (wide, why), *choices in rows:
        code, tried, refused = compile(expr, lesson, "eval"), [], []
        thunk = lambda code=code: eval(code, env)  # the rows above, not input
        for c in list(eval(choices[0], env)) if choices else [None]:
            env["c"] = c
            try:
                n, shape = values(thunk())  # the warm-up call: first-call costs are paid once per server
            except ValueError as error:  # a choice the page refuses with a message (a model with no rotating layer)
                refused.append(f"{type(error).__name__}: {error}")
                continue
            once = best_of(thunk, 1)
            tried.append((once / limits(n)[wide], once, c, n, shape))
        if not tried:
            skipped.append((lesson, short(expr), refused[0]))
            continue
        _, once, env["c"], n, shape = max(tried, key=lambda t: t[0])
        repeat = 2 if once > 1.0 else 5
        seconds, (f32, f64) = best_of(thunk, repeat), limits(n)
        c = env["c"]
        c = ", ".join(map(str, c)) if isinstance(c, tuple) else getattr(c, "label", c)  # a model by its name
        label = short(expr) + ("" if c is None else f" [{c}]")
        label += f" ({len(refused)} of {len(refused) + len(tried)} choices refused)" if refused else ""
        out.append({"lesson": lesson, "call": label, "values": n, "shape": list(shape), "ms": seconds * 1e3,
                    "best_of": repeat, "x_float32": seconds / f32, "x_float64": seconds / f64,
                    "applies": "float64" if wide else "float32", "why": why})
    return out


def ratio(row: dict) -> float:
    return row["x_" + row["applies"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one lesson, by its file's name (e.g. sinusoidal)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    load_start, threads = os.getloadavg(), torch.get_num_threads()
    torch.set_num_threads(1)  # the core's torch calls and the float64 limit, like for like on one thread
    rows, skipped = [], [s for s in SKIPPED if args.only in (None, s[0])]
    try:
        for lesson, spec in LESSONS.items():
            if args.only in (None, lesson):
                try:
                    rows += run(lesson, *spec, skipped)
                except (ImportError, OSError, ValueError) as error:  # e.g. MiniLM's package not installed
                    skipped.append((lesson, "every table", f"{type(error).__name__}: {error}"))
    finally:
        torch.set_num_threads(threads)
    load_end = os.getloadavg()
    print("| lesson | call | shape / values | time ms | x float32 limit | x float64 limit | applies |\n"
          "|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['lesson']} | {r['call']} | {tuple(r['shape'])} / {r['values']:,} | {r['ms']:.3g}"
              f"{'*' if r['best_of'] == 2 else ''} | {r['x_float32']:.3g} | {r['x_float64']:.3g} | "
              f"{r['applies']}: {r['why']} |")
    for lesson, call, why in skipped:
        print(f"| {lesson} | {call} | skipped: {why} | | | | |")
    worst = [max(pool, key=ratio) for pool in (rows, [r for r in rows if r["values"] >= BIG]) if pool]
    print("\n" + "; ".join(f"{label}: {ratio(r):.3g}x ({r['lesson']}, {r['call']}, {r['applies']} limit)"
                           for label, r in zip(("worst ratio", f"worst of >= {BIG:,} values"), worst, strict=False)) +
          f". Load average (1, 5, 15 min): start {', '.join(f'{v:.2f}' for v in load_start)}; "
          f"end {', '.join(f'{v:.2f}' for v in load_end)}.")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "skipped": skipped, "load_start": load_start,
                                         "load_end": load_end}, indent=1))


if __name__ == "__main__":
    main()
