"""Each extension method's own knobs, its attention-factor sentence and its ratio note (Extension lesson); its
formula is ``extension_formula_views``.

One registry a concern, keyed by the method (``pc.long_context.EXTENSION_METHODS``), each entry with one
signature, so a new method is one function a registry.
"""

from __future__ import annotations

from page_kit import classroom, controls

MSCALES = [0.0, 0.707, 1.0]
ALPHAS = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1000.0]


def default_knobs(factor: float) -> dict:
    """Every method's knobs at their defaults (the ones a method does not show keep these)."""
    return dict(current=float(factor), beta_fast=32.0, beta_slow=1.0, mscale=0.0, mscale_all_dim=0.0, truncate=True,
                low_ff=1.0, high_ff=4.0, alpha=float(factor))


def _current_length(knobs: dict, factor: float) -> None:
    knobs["current"] = controls.slider(
        "Current length / L", "cur", 0.25, 64.0, float(factor), step=0.25,
        help="Dynamic NTK recomputes the base from the current sequence length; LongRoPE switches from "
             "its short to its long factors once the sequence is longer than L.")


def _yarn(knobs: dict, factor: float) -> None:
    knobs["beta_fast"] = controls.slider("beta_fast", "bf", 2.0, 64.0, 32.0, step=1.0,
                                         help="Pairs turning more than beta_fast times in L are kept.")
    # YaRN needs beta_slow < beta_fast, so this range ends below the beta_fast chosen above it
    knobs["beta_slow"] = controls.slider("beta_slow", "bs", 0.25, min(4.0, knobs["beta_fast"] - 0.25), 1.0,
                                         step=0.25, help="Pairs turning fewer than beta_slow times in L are divided "
                                                         "by s.")
    knobs["mscale"] = controls.select_slider("mscale", "ms", MSCALES, 0.0, format_func=lambda v: f"{v:g}",
                                             help="0 = not in the config.")
    knobs["mscale_all_dim"] = controls.select_slider("mscale_all_dim", "msa", MSCALES, 0.0,
                                                     format_func=lambda v: f"{v:g}",
                                                     help="DeepSeek's key; counts only with mscale.")
    knobs["truncate"] = controls.toggle("truncate", "tr", True,
                                        help="Round the ramp's ends to whole pairs (transformers' default).")


def _llama3(knobs: dict, factor: float) -> None:
    knobs["low_ff"] = controls.slider("low_freq_factor", "lo", 0.5, 4.0, 1.0, step=0.5,
                                      help="Wavelengths above L / low_freq_factor are divided by s.")
    knobs["high_ff"] = controls.slider("high_freq_factor", "hi", 1.0, 16.0, 4.0, step=0.5,
                                       help="Wavelengths below L / high_freq_factor are kept.")


def _ntk_alpha(knobs: dict, factor: float) -> None:
    knobs["alpha"] = controls.select_slider(
        "alpha", "al", ALPHAS, 4.0, format_func=lambda v: f"{v:g}",
        help="Hunyuan's configs keep a fixed alpha in rope_scaling (labelled 'dynamic'); alpha = s gives "
             "exactly the static NTK-aware frequencies.")


# The knobs each method adds under "More settings" (methods not listed have none beyond L, s, base, head_dim).
METHOD_KNOBS = {"dynamic": _current_length, "longrope": _current_length, "yarn": _yarn, "llama3": _llama3,
                "ntk_alpha": _ntk_alpha}


def method_knobs(page, method: str, factor: float) -> dict:
    """The knobs the method shows, folded under the stage's "More settings"; ``default_knobs`` gives the rest.

    Only these are fixed by controls: the others follow s, so a figure built for another s takes them afresh."""
    own: dict = {}
    if method in METHOD_KNOBS:
        with page.more:
            METHOD_KNOBS[method](own, factor)
    return own


def short_scaling(scaling: dict) -> str:
    """A rope_scaling dict on one line, factor lists shortened to their length."""
    shown = {k: (f"[{len(v)} values]" if isinstance(v, list) else v) for k, v in scaling.items()}
    return ", ".join(f"{k}: {v}" for k, v in shown.items())


def _yarn_attention(knobs: dict) -> str:
    if knobs["mscale"] and knobs["mscale_all_dim"]:
        return ("With both mscale and mscale_all_dim (DeepSeek's form), transformers uses "
                "(0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1); equal values give exactly 1, and "
                "DeepSeek's attention then puts (0.1·mscale_all_dim·ln s + 1)² on the softmax scale instead.")
    if knobs["mscale"] or knobs["mscale_all_dim"]:
        return ("Only one of mscale / mscale_all_dim is set, and transformers ignores a lone one: "
                "a = 0.1 ln s + 1, as without them.")
    return "YaRN multiplies cos and sin by a = 0.1 ln s + 1, so every logit grows by a²."


ATTENTION_TEXT = {
    "yarn": _yarn_attention,
    "longrope": lambda knobs: "LongRoPE multiplies cos and sin by a = √(1 + ln s / ln L) unless the config gives "
                              "attention_factor.",
}


def attention_text(method: str, knobs: dict) -> str:
    """What the method does to the attention temperature, in one or two sentences."""
    if method in ATTENTION_TEXT:
        return ATTENTION_TEXT[method](knobs)
    return "This method leaves the attention temperature alone: a = 1."


def wave_snippet(view) -> None:
    """The code behind the wavelength figure, with every knob as set."""
    knobs, half = view["knobs"], view["head_dim"] // 2
    classroom.snippet(
        f"scaling, max_pos = pc.long_context.extension_scaling({view['method']!r}, {float(view['factor'])!r}, "
        f"{view['original']}, "
        f"beta_fast={float(knobs['beta_fast'])!r}, beta_slow={float(knobs['beta_slow'])!r}, "
        f"mscale={float(knobs['mscale'])!r}, mscale_all_dim={float(knobs['mscale_all_dim'])!r}, "
        f"truncate={bool(knobs['truncate'])!r}, low_freq_factor={float(knobs['low_ff'])!r}, "
        f"high_freq_factor={float(knobs['high_ff'])!r}, alpha={float(knobs['alpha'])!r},",
        f"    short_factor=pc.long_context.resample_factors(pc.long_context.PHI35_SHORT_FACTOR, {half}),",
        f"    long_factor=pc.long_context.resample_factors(pc.long_context.PHI35_LONG_FACTOR, {half}))",
        f"result = pc.long_context.extension_analysis({view['head_dim']}, {float(view['base'])!r}, scaling, "
        f"original={view['original']}, target={view['target']}, seq_len={view['seq_len']}, "
        "max_position_embeddings=max_pos)",
        "print(result.wavelength_before, result.wavelength_after, result.band)")


RATIO_NOTES = {
    "yarn": lambda result: (
        "The solid line is what transformers (and every YaRN checkpoint) computes: the ramp is linear in the pair "
        "index between two correction pairs. The paper defines the same ramp linearly in the number of rotations "
        "r = L/λ, the dashed line; because r falls geometrically with i, the paper's blend is bunched toward the "
        "slow end. The app follows the code."),
    "ntk_alpha": lambda result: (
        f"NTK-alpha is static NTK with the stretch chosen directly: the slowest pair is divided by α (θ′/θ = "
        f"{float(result.ratio[-1]):.4g} here) and the fastest keeps its frequency. Nothing ties α to L′/L, and "
        "unlike dynamic NTK it does not change with the sequence length, although Hunyuan's checkpoints label it "
        "'dynamic'; transformers' Hunyuan rotary module treats an 'alpha' key as this fixed rule."),
    "llama3": lambda result: (
        "Llama 3 keeps pairs whose wavelength is below L/high_freq_factor, divides those above L/low_freq_factor by "
        "s, and in between blends the two with a weight linear in L/λ: a smooth step in the ratio."),
}
OTHER_RATIO_NOTE = ("Position interpolation divides every pair by s (a flat line at 1/s); static and dynamic NTK "
                    "change the base instead, so the ratio slides from 1 at the fastest pair to exactly 1/s at the "
                    "slowest; LongRoPE sets each pair's divisor separately.")


def ratio_note(method: str, result) -> str:
    """What to notice under the ratio figure, for this method."""
    note = RATIO_NOTES.get(method)
    return note(result) if note else OTHER_RATIO_NOTE
