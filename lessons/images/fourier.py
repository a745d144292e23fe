import streamlit as st

from lessons.images import fourier_views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.images import (
    ENCODINGS,
    fit_coordinates,
    fourier_features,
    gaussian_frequencies,
    nerf_as_sinusoidal,
    nerf_encoding,
)

SIGMAS_1D = [1, 2, 5, 10, 20, 50, 100]
SIGMAS_2D = [0.5, 1, 2, 4, 8, 16, 32]
SHOWN_OCTAVES = 6  # the NeRF chart draws at most this many sine columns, so the waves stay readable


header("Fourier features and NeRF",
       "Feed a network sines and cosines of a coordinate at many frequencies, the Transformer's trick for token "
       "positions, and it can fit fine detail that bare coordinates blur.")
WHY = (
    "An implicit network maps a coordinate to a value: x to a signal, (x, y) to a pixel, (x, y, z) to colour "
    "and density in NeRF. Fed the bare coordinates, a ReLU network learns smooth, blurry functions first and "
    "fine detail painfully slowly (its *spectral bias*). Feed it sines and cosines of the coordinate at many "
    "frequencies instead, the same trick the Transformer plays on token positions, and it can fit detail in "
    "a few hundred steps. Here three small networks train live on this machine's CPU."
)


def fit_controls(page, suffix: str, sigmas, sigma_default, octave_default, steps_options, steps_default):
    """The settings of one fit, whose key names end in ``suffix`` (each fit tab keeps its own)."""
    with page.side:
        sigma = controls.select_slider("Fourier σ", f"s{suffix}", sigmas, sigma_default,
                                       help="Standard deviation of the random frequencies, in cycles per unit.")
        octaves = controls.slider("NeRF octaves L", f"L{suffix}", 1, 10, octave_default,
                                  help="Frequencies 2^0 π ... 2^(L-1) π.")
        steps = controls.select_slider("Training steps", f"n{suffix}", steps_options, steps_default)
    with page.more:
        features = controls.slider("Fourier features m", f"m{suffix}", 16, 256, 64, step=16,
                                   help="Rows of B; the network sees 2m inputs.")
        seed = controls.slider("Seed", f"seed{suffix}", 0, 9, 0, help="Seeds B and the initial weights.")
    return octaves, float(sigma), features, steps, seed


@st.fragment
def lesson():
    page = stage()
    with guard():
        page.walk(TABS, page)


def nerf_columns(L, s, m) -> figures.Chart:
    """NeRF's sine columns for ``L`` octaves (the hero's frames are built here too)."""
    p, nerf, _, _ = fourier_views.encodings(L, float(s), m, 0)
    waves = {f"sin(2^{k} π p)": nerf[:, 2 * k] for k in range(min(L, SHOWN_OCTAVES))}  # sine columns
    return figures.padded(figures.lines(
        p, waves, title="NeRF's encoding: sines of the coordinate at doubling frequencies", x_title="coordinate p",
        y_title="γ(p)", name="fourier_nerf_columns", height=380,
        alt=f"{len(waves)} sine waves of p with 1, 2, 4 ... half-cycles over [0, 1), the last "
            f"{list(waves)[-1]}."), top=90)


def encodings_tab(page):
    with page.side:
        octaves = controls.slider("NeRF octaves L", "L", 1, 8, 4)
        sigma = controls.select_slider("Fourier σ", "s", SIGMAS_1D, 5)
        features = controls.slider("Fourier features m", "m", 16, 128, 32, step=16)
    p, nerf, ff, ranges = fourier_views.encodings(octaves, float(sigma), features, 0)
    show(hero(nerf_columns, L=octaves, s=sigma, m=features))
    classroom.snippet(f"tables = {classroom.call('encoding_tables', octaves, float(sigma), features, 0)}",
                      f"tables.nerf  # ({p.shape[0]}, {nerf.shape[1]}): γ(p), sin and cos per octave",
                      f"tables.fourier, tables.frequency  # ({p.shape[0]}, {ff.shape[1]}) and "
                      f"({features},) cycles per unit, sorted")
    with fourier_views.ask_what_sets_detail(float(sigma), features):
        show(figures.padded(figures.heatmap(
            ff, x=list(range(ff.shape[1])), y=p, title=f"Gaussian Fourier features of p (m = {features}, "
            f"σ = {sigma}), columns sorted by |frequency|", x_title="feature (cosines, then sines)",
            y_title="coordinate p", value_name="feature", name="fourier_gaussian_table", height=360,
            alt=f"Heatmap of {features} random Fourier features (cosine and sine columns) over p: left columns "
                f"vary slowly, right ones quickly, from {ranges.gaussian_slowest:.2f} to "
                f"{ranges.gaussian_fastest:.1f} cycles per unit.")))
        notice(f"NeRF uses a fixed ladder: octave k completes 2^k / 2 cycles over [0, 1), up to "
               f"{ranges.nerf_fastest:g} cycles at L = {octaves}. Gaussian features draw their frequencies "
               f"at random instead; here they range from {ranges.gaussian_slowest:.2f} to "
               f"{ranges.gaussian_fastest:.1f} "
               "cycles. σ sets how fast the fastest ones swing, and that, not the count, decides how fine "
               "the detail a network can fit.")
    formula(r"\gamma_{\text{NeRF}}(p) = \big(\sin 2^k\pi p,\ \cos 2^k\pi p\big)_{k=0}^{$L1},\quad "
            r"\gamma_{\text{FF}}(v) = \big[\cos 2\pi Bv,\ \sin 2\pi Bv\big],\ B\in\mathbb{R}^{$m\times 1},"
            r"\ B_{ij}\sim\mathcal{N}(0, $s^2)", L1=octaves - 1, m=features, s=float(sigma))
    st.caption("The NeRF paper writes π; its official code leaves π out and also feeds p itself "
               "(`include_input`); `pc.images.nerf_encoding` offers both. Tancik et al.'s paper writes cos "
               "first, their demo code sin first: only the order of the inputs differs.")


def fit_1d_tab(page):
    result, settings = fourier_views.shown_fit("1d", fit_controls(page, "1", SIGMAS_1D, 10, 6, [150, 300, 600], 300))
    with fourier_views.ask_worst_fit(result, settings):
        fit_1d_view(result, settings)


def fit_1d_view(result, settings):
    """The fits that answer the question, their scores, curves and spectra."""
    show(figures.padded(figures.lines(
        result.x, {"target": result.target, **{fourier_views.LABELS[e]: result.fits[e].prediction
                                                     for e in ENCODINGS}},
        title="Fits of the 1D signal (trained on every other sample)", x_title="coordinate x",
        y_title="value", dashed=["target", *fourier_views.DASHED], colours=fourier_views.COLOURS,
        name="fourier_1d_fit", height=400,
        alt="The target signal and three fits: raw coordinates give a smooth blur, both encodings "
            "follow the fast wiggles and the step. Held-out PSNR: " + fourier_views.psnr_text(result) + "."), top=90))
    fourier_views.fit_snippet("1d", settings, "result.x, result.target  # (256,) each: the signal",
                            "result.fits['raw'].prediction, result.fits['raw'].final_test_psnr  # a fit, its "
                            "score")
    fourier_views.fit_scores(result)
    fourier_views.fit_curves(result, "1d")
    notice("With raw x the network bends a few straight pieces through the slow swell: it misses the "
           "20-cycle wave entirely (no peak at 20 in its spectrum) and blunts the step. Both encodings "
           "follow the detail. Push σ to 50 "
           "or 100: the train score stays perfect but the held-out score collapses, because "
           "frequencies far above what 128 samples can pin down let the network wiggle freely "
           "between them.")
    formula(r"\text{held-out PSNR} = 10\log_{10}\frac{1}{\mathrm{MSE}}:\ \text{raw } $a,\ "
            r"\text{NeRF } $b,\ \text{Fourier } $c\ \text{dB}", a=result.fits["raw"].final_test_psnr,
            b=result.fits["nerf"].final_test_psnr, c=result.fits["gaussian"].final_test_psnr, digits=3)


def fit_2d_tab(page):
    result, settings = fourier_views.shown_fit("2d", fit_controls(page, "2", SIGMAS_2D, 2, 4, [100, 200, 300], 200))
    show(figures.square_panels(figures.padded(figures.small_multiples(
        [result.target] + [result.fits[e].prediction for e in ENCODINGS],
        ["target (64 x 64)"] + [f"{fourier_views.LABELS[e]}: {result.fits[e].final_test_psnr:.1f} dB"
                                for e in ENCODINGS],
        title="Fits of the image (trained on every other row and column)", cols=2,  # 2 x 2: readable on a phone
        value_name="grey level", x_title="x (pixel)", y_title="y (pixel)", cell_px=300,
        signed=False, zrange=(0, 1), name="fourier_2d_fit",  # grey levels past [0, 1] show as black or white
        alt="Four images: the target, a blurry fit from raw coordinates, and two sharper fits from "
            "the NeRF encoding and Fourier features. Held-out PSNR: " + fourier_views.psnr_text(result) + "."))))
    fourier_views.fit_snippet("2d", settings, "result.target  # (64, 64) grey levels",
                            "result.fits['gaussian'].prediction  # (64, 64), before clipping to [0, 1]")
    fourier_views.fit_scores(result)
    fourier_views.fit_curves(result, "2d")
    notice("Raw (x, y) gives a blur of the layout. The encodings recover the disc's edge, the "
           "checkerboard and the inner rings. Turn σ up to 16 or 32: the training pixels are still "
           "matched, but the unseen pixels in between fill with speckle, which is the σ trade-off of "
           "Tancik et al. NeRF's axis-aligned ladder tends to leave streaks along x and y.")
    formula(r"\text{held-out PSNR}:\ \text{raw } $a,\ \text{NeRF}_{L=$L}\ $b,\ "
            r"\text{Fourier}_{\sigma=$s}\ $c\ \text{dB}", a=result.fits["raw"].final_test_psnr,
            L=settings[0], b=result.fits["nerf"].final_test_psnr, s=settings[1],
            c=result.fits["gaussian"].final_test_psnr, digits=3)


def duality_tab(page):
    with page.side:
        octaves = controls.slider("Octaves L", "dL", 2, 10, 6)
        p = controls.slider("Coordinate p", "dp", 0.0, 1.0, 0.3, step=0.01)
    dual = nerf_as_sinusoidal(p, octaves)
    show(figures.padded(figures.lines(
        list(range(dual.dim)), {"NeRF γ(p)": dual.nerf,
                                 "Transformer PE row, pairs reversed": dual.transformer},
        markers=True, dashed=["Transformer PE row, pairs reversed"],
        title="Two encodings, one family: NeRF's γ(p) and a row of the sinusoidal table",
        x_title="encoding column (sin, cos per frequency)", y_title="value", name="fourier_duality",
        alt=f"Two identical zig-zag curves over {dual.dim} encoding columns: NeRF's encoding of p = {p:.2f} "
            f"and the matching Transformer position row (largest difference {dual.max_difference:.1e})."),
        top=90))
    classroom.snippet(f"dual = {classroom.call('nerf_as_sinusoidal', float(p), octaves)}",
                      f"dual.nerf, dual.transformer  # ({dual.dim},) each: the two curves")
    notice("The curves coincide: NeRF's encoding is a row of the Transformer's sinusoidal table with "
           f"d = 2L = {dual.dim} and base 2^L = {dual.base:g}, read at a position that grows with "
           "the coordinate. The only differences are the order of the pairs (the Transformer lists the "
           "fastest wave first, NeRF the slowest) and the ratio between neighbouring frequencies "
           "(2 for NeRF, base^(2/d) for a Transformer: 1.33 at d = 64, base 10,000). Positions of tokens "
           "and coordinates of points are the same problem.")
    formula(r"\gamma(p)_k = \sin(2^k\pi p) = \sin\!\big(t\,\omega_{L-1-k}\big),\ "
            r"\omega_i = (2^L)^{-2i/2L} = 2^{-i},\ t = 2^{L-1}\pi p = $t;\quad "
            r"\max|\gamma - PE| = $err", t=dual.position, err=dual.max_difference, digits=4)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [("The encodings", encodings_tab), ("Fit a 1D signal", fit_1d_tab), ("Fit a 2D image", fit_2d_tab),
        ("The duality", duality_tab)]

lesson()
why(WHY)
source(nerf_encoding, gaussian_frequencies, fourier_features, fit_coordinates)
