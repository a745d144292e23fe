import streamlit as st

from lessons.multimodal import words
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.navigation.registry import all_pages
from posenc_core.multimodal import (
    VISION_TOWERS,
    factorized_learned_table,
    vision_far_score,
    vision_layout_table,
    vision_rope_cos_sin,
    vision_tower_score_map,
    vision_wavelength_summary,
    vision_wavelength_table,
    vision_wavelengths,
)

QWEN_TOWERS = [k for k, t in VISION_TOWERS.items() if t.layout == "hwhw"]
LAYOUT_SCALE = [[0.0, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[2]],
                [1.0, figures.CATEGORICAL[2]]]  # row orange, column green: the height and width colours

header("Vision towers: 2D RoPE and learned tables",
       "A vision tower turns half of each head's rotary pairs with a patch's row and half with its column: the "
       "base θ decides how far across the image two patches still look alike.")
WHY = ("Before the language model sees an image, a vision transformer reads its patches, and it needs positions "
       "too. The towers of today's vision-language models use axial 2D RoPE: half of the rotary pairs turn with "
       "the patch's row, half with its column, at the same frequencies. They differ in the base θ, in where the "
       "two halves sit inside a head, and in whether a learned table is added as well. This page extends the "
       "axial 2D RoPE of the Images section with the settings these models run.")


@st.cache_data(max_entries=32, show_spinner=False)
def maps(tower: str, h: int, w: int, row: int, col: int):
    qwen = vision_tower_score_map(tower, h, w, row, col, relative=True)
    gemma = vision_tower_score_map("gemma4", h, w, row, col, relative=True)
    learned = factorized_learned_table(h, w, 64, query=(row, col))
    return qwen, gemma, learned


@st.cache_data(max_entries=32, show_spinner=False)
def far_scores(tower: str, h: int, w: int, row: int, col: int):
    """16 columns along the query's row: the chosen tower, Gemma 4, and the chosen tower at Gemma 4's θ (what-if)."""
    theta = VISION_TOWERS["gemma4"].theta
    return (vision_far_score(tower, h, w, row, col), vision_far_score("gemma4", h, w, row, col),
            vision_far_score(tower, h, w, row, col, theta=theta))


@st.fragment
def lesson():
    page = stage()
    with page.side:
        tower = controls.choice("Qwen-style tower", "tw", QWEN_TOWERS, QWEN_TOWERS[0],
                                format_func=lambda k: words.TOWER_NAMES[k])
    with page.more:
        h, w = controls.grid_size(48, (24, 32), labels=("Patch rows", "Patch columns"))
    with page.side:
        row, col = controls.grid_cell(h, w, (8, 12), labels=("Query row", "Query column"))
    with guard():
        page.walk(TABS, tower, (h, w), (row, col))


def maps_figure(r, c, gh, gw, tw) -> figures.Chart:
    """The three score maps of the query patch (r, c); the hero's frames are built here too."""
    row, col = min(r, gh - 1), min(c, gw - 1)  # a smaller grid moves the query slider to its last stop, as here
    qwen_tower, gemma = VISION_TOWERS[tw], VISION_TOWERS["gemma4"]
    titles = [f"Qwen,<br>θ {qwen_tower.theta:,.0f}", f"Gemma 4,<br>θ {gemma.theta:,.0f}", "Learned<br>x + y"]
    return figures.mark_panels(figures.square_panels(figures.padded(figures.small_multiples(
        list(maps(tw, gh, gw, row, col)), titles, cols=3, value_name="relative score / cosine",
        title=f"Query patch (row {row}, column {col}) against every patch of a {gh} × {gw} grid",
        x_title="column", y_title="row", cell_px=280, name="vision_tower_maps", margin=dict(t=110),
        alt=f"Three maps of a {gh} × {gw} grid with a cross through the query at row {row}, column {col}: the "
            f"Qwen tower (theta {qwen_tower.theta:,.0f}), Gemma 4 (theta {gemma.theta:,.0f}) and a learned x + y "
            "table, whose cross is soft and whose patches far off the query's row and column score below zero."
    ))), col, row, "query")


def maps_tab(tower: str, grid, cell):
    (h, w), (row, col) = grid, cell
    qwen_tower, gemma = VISION_TOWERS[tower], VISION_TOWERS["gemma4"]
    qwen_name = words.TOWER_NAMES[tower]
    far_q, far_g, swapped = far_scores(tower, h, w, row, col)
    show(hero(maps_figure, r=row, c=col, gh=h, gw=w, tw=tower))
    qwen_call, gemma_call = (classroom.call("vision_tower_score_map", key, h, w, row, col, relative=True)
                             for key in (tower, "gemma4"))
    classroom.snippet(f"# ({h}, {w}) each, divided by the query's score with itself",
                      f"qwen = {qwen_call}", f"gemma = {gemma_call}",
                      f"# ({h}, {w}) cosines of the stand-in table's rows with the query patch's row",
                      f"learned = pc.multimodal.factorized_learned_table({h}, {w}, 64, query=({row}, {col}))")
    distance = far_q.distance
    notice(f"Same content at every patch, so only position differs (each map ÷ the query's own score; "
           f"{qwen_name} heads have d = {qwen_tower.head_dim}, Gemma 4's d = {gemma.head_dim}; the "
           "learned table is a seeded stand-in for trained weights). "
           f"{distance} columns along the row the Qwen tower still scores {far_q.score:.3f} and "
           f"Gemma 4 {far_g.score:.3f}. The learned table adds a row of an x table and a row of a y table, so "
           "patches in the query's row or column share half of it: the cross. Gemma 4's patch embedder adds such "
           "a table (position_embedding_size 10,240 per axis) before its attention layers apply RoPE.")
    ask_theta(qwen_tower, gemma, far_q, swapped)


def ask_theta(qwen_tower, gemma, far_q, swapped) -> None:
    """What-if: the Qwen tower with Gemma 4's θ, scored at the same far patch (gated: its score)."""
    now, then, qwen_name = far_q.score, swapped.score, words.TOWER_NAMES[qwen_tower.key]

    def reveal() -> str:
        return (f"With θ = {gemma.theta:,.0f}, {qwen_name} scores the patch {far_q.distance} columns along "
                f"{then:.3f}, against {now:.3f} with θ = {qwen_tower.theta:,.0f}. With θ = 10,000 most pairs are too "
                "slow to change across an image; with θ = 100 all of them turn within a few hundred patches.")

    with classroom.predict("vision_theta", f"Give {qwen_name} Gemma 4's θ = {gemma.theta:,.0f} (its head "
                           f"stays d = {qwen_tower.head_dim}). The patch {far_q.distance} columns along the "
                           f"query's row scores {now:.3f} now; it would then score:",
                           ["higher", "about the same", "lower"],
                           1 if abs(then - now) < 5e-4 else 0 if then > now else 2, reveal):
        formula(r"\text{$dist columns along: } $now\ (\theta = $t)\ \to\ $then\ (\theta = $t2)",
                dist=far_q.distance, now=now, t=qwen_tower.theta, then=then, t2=gemma.theta, digits=3)


def waves_tab(tower: str, grid, cell):
    qwen_tower, gemma = VISION_TOWERS[tower], VISION_TOWERS["gemma4"]
    qwen_name = words.TOWER_NAMES[tower]
    table = vision_wavelength_table([tower, "gemma4"])  # (2, d/4 of the larger head)
    waves = {f"{qwen_name} (θ {qwen_tower.theta:,.0f})": table[0],
             f"Gemma 4 (θ {gemma.theta:,.0f})": table[1]}
    summary = vision_wavelength_summary([tower, "gemma4"], *grid)
    side, q, g = summary.side, summary.towers[tower], summary.towers["gemma4"]
    show(figures.padded(figures.lines(
        list(range(table.shape[1])), waves, markers=True, log_y=True, hover_format=",.1f",
        hlines=[(side, f"grid side {side}")], legend_right=True, margin=dict(r=230),
        title="Wavelength of each frequency an axis turns at (in patches)", x_title="frequency i",
        y_title="wavelength 2π/θ_i (patches)", name="vision_wavelengths", height=380,
        alt=f"Two rising curves on a log scale: {qwen_name} from {q.shortest:.1f} to {q.longest:,.0f} "
            f"patches, Gemma 4 from {g.shortest:.1f} to {g.longest:,.0f}; a line marks the grid side, {side} "
            "patches."), left=96))
    classroom.snippet("# (2, d/4): wavelength of each frequency in patches, NaN past a tower's d/4",
                      f"table = pc.multimodal.vision_wavelength_table({[tower, 'gemma4']!r})")
    notice(f"{qwen_name}: wavelengths from {q.shortest:.1f} to {q.longest:,.0f} patches; "
           f"{q.over_four_sides} of its {q.frequencies} frequencies per axis have a wavelength "
           f"over four times this grid's side and barely turn across it. Gemma 4: {g.shortest:.1f} to "
           f"{g.longest:,.0f} patches, {g.over_four_sides} of {g.frequencies} over four sides.")
    formula(r"\theta_i = \theta^{-4i/d},\ i < d/4:\quad \lambda_{\max} = 2\pi\cdot $t^{(d/4-1)/(d/4)}"
            r" = $lq\ \ (\theta = $t,\ d = $d)", t=qwen_tower.theta, d=qwen_tower.head_dim, lq=q.longest)


def layout_tab(tower: str, grid, cell):
    towers = [tower, "gemma4"]
    grid = vision_layout_table(towers)  # (2, the larger head_dim)
    names = [words.TOWER_NAMES[k] for k in towers]
    show(figures.padded(figures.heatmap(
        grid, title="Which coordinate turns each dimension of a head", x_title="dimension",
        y_title="", y=names, value_name="0 row, 1 column",
        colorscale=LAYOUT_SCALE, zrange=(0, 1), hover_format=".0f", height=260,
        name="vision_layouts", alt=f"Two rows of blocks over {grid.shape[1]} dimensions, coloured by the "
                                   f"coordinate that turns them: row, column, row, column for {names[0]}; column, "
                                   "column, row, row for Gemma 4."), left=200))
    classroom.snippet("# (2, head_dim): which coordinate turns each dimension, 0 row, 1 column",
                      f"grid = pc.multimodal.vision_layout_table({towers!r})")
    notice("Qwen's tower concatenates [row, column] frequencies and repeats them, then rotates dimension "
           "j with j + d/2 across the whole head. Gemma 4 builds [x, x, y, y] and rotates each half on "
           "its own (apply_multidimensional_rope); its code names the halves h and w, but the position "
           "ids it receives are (x, y), so the first half turns with the column. Both are the same "
           "rotation up to a fixed permutation of dimensions, so the scores of the maps do not depend "
           "on it; converted weights do.")
    formula(r"\text{Qwen: } [\,R(r\theta)\,\|\,R(c\theta)\,] \text{ on pairs } (j,\ j+d/2);\qquad "
            r"\text{Gemma 4: } [\,\text{RoPE}_{d/2}(x)\ \|\ \text{RoPE}_{d/2}(y)\,]")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [("Score maps", maps_tab), ("Why θ = 100", waves_tab), ("Where the halves sit", layout_tab)]

lesson()
why(WHY)
patches = next((p for p in all_pages() if p.url_path == "patches"), None)
if patches is not None:
    st.page_link(patches.path, label=f"First: {patches.title} (axial 2D RoPE against flattened 1D)",
                 icon=patches.icon)
source(vision_rope_cos_sin, vision_tower_score_map, factorized_learned_table, vision_wavelengths)
