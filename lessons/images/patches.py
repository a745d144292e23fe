import streamlit as st

import posenc_core as pc
from lessons.images import image_views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.images import flattened_sincos, patch_similarity_maps, sincos_layout, sincos_neighbours

BASES = [100, 1000, 10000, 100000]


@st.cache_data(max_entries=32, show_spinner=False)
def table(h: int, w: int, dim: int, base: float):
    return pc.sincos_2d(h, w, dim, base)


@st.cache_data(max_entries=32, show_spinner=False)
def maps(h: int, w: int, dim: int, base: float, flattened: bool = False):
    codes = flattened_sincos(h, w, dim, base) if flattened else table(h, w, dim, base)
    return patch_similarity_maps(codes, h, w, "cosine")


@st.cache_data(max_entries=32, show_spinner=False)
def similarity_scale(h: int, w: int, dim: int, base: float):
    """One colour scale for cosine similarity in every tab: from every map of both codes, 2D and flattened."""
    return figures.similarity_range(maps(h, w, dim, base), maps(h, w, dim, base, True))


header("2D positions for image patches",
       "Half of each patch's code is a sine/cosine code of its column, half of its row, so 'near in the image' "
       "becomes 'similar vectors'. Pick a patch and see which patches look like it.")
WHY = ("A Vision Transformer cuts an image into a grid of patches and reads them as a sequence. If the "
       "positions are numbered 0, 1, 2, ... row by row, the last patch of one row and the first patch of the "
       "next get neighbouring numbers although they sit on opposite edges of the image. MAE and many later "
       "ViTs fix this with a 2D code: half of each vector is a sine/cosine code of the patch's column, the "
       "other half a code of its row, so 'near in the image' becomes 'similar vectors'.")


@st.cache_data(max_entries=32, show_spinner=False)
def neighbours(h: int, w: int, dim: int, base: float, row: int, col: int):
    return sincos_neighbours(h, w, dim, base, row, col)


@st.fragment
def lesson():
    page = stage()
    with page.more:
        h, w = controls.grid_size(16, (14, 14), help="Patches per column of the image (ViT-B/16 at 224 px has "
                                                     "14 x 14).")
    with page.side:
        row, col = controls.grid_cell(h, w, (4, 9), help="The patch whose similarities are shown (row from the top).")
        dim = controls.slider("Dimension d", "d", 8, 256, 64, step=8,
                              help="Sin-cos: d/2 channels for the column, d/2 for the row, each half sines then "
                                   "cosines. 2D RoPE: the head size, d/2 dimensions turned by the row, d/2 by the "
                                   "column.")
        base = controls.base_slider(BASES, label="Base")
    grid, cell = (h, w, dim, float(base)), (row, col)
    with guard():
        page.walk(TABS, grid, cell)


def one_patch_figure(r, c, gh, gw, d, base) -> figures.Chart:
    """The similarity map of patch (r, c); the hero's frames are built here too."""
    r, c = min(r, gh - 1), min(c, gw - 1)  # a smaller grid moves the patch slider to its last stop, as here
    grid = (gh, gw, d, float(base))
    zrange, signed = similarity_scale(*grid)
    return figures.marked_heatmap(
        maps(*grid)[neighbours(*grid, r, c).index], [(c, r, f"patch ({r}, {c})")],
        title=f"Cosine similarity of patch (row {r}, col {c}) to every patch", x_title="column",
        y_title="row", value_name="cosine similarity", name="vit2d_one_patch", zrange=zrange,
        signed=signed, height=460,
        alt=f"Heatmap over the {gh} x {gw} grid (d = {d}, base {float(base):,.0f}): similarity to patch ({r}, {c}) "
            "is 1 there and falls off with distance in a plus-shaped pattern along its row and column.")


def one_patch_tab(grid, cell):
    h, w, dim, base = grid
    row, col = cell
    near = neighbours(*grid, row, col)
    show(hero(one_patch_figure, r=row, c=col, gh=h, gw=w, d=dim, base=base))
    image_views.similarity_snippet(h, w, dim, base, f"sim[{row} * {w} + {col}]  # ({h}, {w}): the map above, "
                                                    f"patch ({row}, {col})")
    notice("The bright cross: patches in the same row share the whole row half of the code, and patches "
           "in the same column share the column half, so each starts from 0.5 before the other half "
           "is counted. A diagonal neighbour differs in both halves and is less similar than a "
           "neighbour straight across. "
           "Move the patch: the pattern moves with it and keeps its shape, because the similarity "
           "depends only on the offset (Δrow, Δcol).")
    image_views.neighbour_formula(near.grid)
    larger = 10 * base  # the what-if: ten times the base
    then = neighbours(h, w, dim, larger, row, col).grid
    with image_views.ask_larger_base(near.grid.side, then, larger, cell):
        image_views.neighbour_formula(then, base=larger)
    formula(r"\cos\angle\big(PE(r,c),PE(r',c')\big) = \frac{2}{d}\Big[\sum_{i<d/4}\cos(\Delta c\,"
            r"\omega_i) + \sum_{i<d/4}\cos(\Delta r\,\omega_i)\Big],\ \omega_i = $base^{-i/(d/4)}",
            base=base)


def every_patch_tab(grid, cell):
    h, w, dim, base = grid
    zrange, signed = similarity_scale(*grid)
    patches = sincos_layout(h, w, dim).patches
    show(figures.mosaic(
        maps(*grid), title=f"Every patch's similarity map, placed at that patch ({h} x {w} grid, d = {dim})",
        value_name="cosine similarity", zrange=zrange, signed=signed, highlight=neighbours(*grid, *cell).index,
        outer="patch", inner="compared with", name="vit2d_every_patch", height=700,
        alt=f"A {h} x {w} mosaic of small similarity maps; the map in grid cell (r, c) has its bright "
            f"spot at (r, c), so the spots sweep across the image. Patch {cell} is framed."))
    image_views.similarity_snippet(h, w, dim, base, f"sim  # ({patches}, {h}, {w}): one map per patch")
    notice("This is the view of the ViT paper's figure 7, here for a fixed 2D code instead of learned "
           "embeddings: the bright spot in each small map sits where that small map sits in the "
           "mosaic. Learned ViT embeddings come out looking much the same, which is why a fixed 2D "
           "code works about as well. The framed map is the patch chosen beside the figure.")


def flattened_tab(grid, cell):
    h, w, dim, base = grid
    row, col = cell
    near = neighbours(*grid, row, col)
    patch = near.index
    zrange, signed = similarity_scale(*grid)
    with image_views.ask_flattened(near, cell):
        show(figures.square_panels(figures.padded(figures.mark_panels(figures.small_multiples(
            [maps(*grid)[patch], maps(*grid, True)[patch]],
            # two-line panel titles (plotly's <br>): one line each would run into each other on a phone
            ["2D sin-cos<br>(column half + row half)", f"1D sin-cos of the<br>raster index r·{w} + c"],
            title=f"Similarity to patch ({row}, {col}) with the same d = {dim}", cols=2, signed=signed,
            zrange=zrange, value_name="cosine similarity", x_title="column", y_title="row", cell_px=360,
            name="vit2d_flat_vs_2d",
            alt=f"Two maps of the {h} x {w} grid for patch ({row}, {col}). Left: a cross centred on the patch. "
                "Right: a horizontal band along the patch's own row that wraps into the ends of the rows above "
                "and below."), col, row, f"patch ({row}, {col})"))))
        classroom.snippet(
            f"sim2d = pc.images.patch_similarity_maps({classroom.call('sincos_2d', h, w, dim, base)}, "
            f"{h}, {w}, 'cosine')",
            f"sim1d = pc.images.patch_similarity_maps({classroom.call('flattened_sincos', h, w, dim, base)}, "
            f"{h}, {w}, 'cosine')",
            f"sim2d[{patch}], sim1d[{patch}]  # ({h}, {w}) each: the two maps, patch ({row}, {col})")
        notice(f"Flattened, patch ({row}, {col}) gets the number {patch}: its neighbours in the code are the "
               f"patches left and right of it, and the one directly below is {near.raster_step} numbers away, "
               "as far as a patch that is many columns off in the same row. The 1D code sees a long line, not a "
               "grid, so the vertical neighbours fade and the end of one row looks close to the start of the "
               "next. (Standard ViT uses a learned 1D table and has to learn the grid from data.)")
    formula(r"\text{1D: } PE(p),\ p = r\cdot w + c = $r\cdot $w + $c = $p \qquad "
            r"\text{2D: } \big[PE_{d/2}(c)\ \|\ PE_{d/2}(r)\big] = "
            r"\big[PE_{d/2}($c)\ \|\ PE_{d/2}($r)\big]",
            r=row, w=w, c=col, p=patch)


def table_tab(grid, cell):
    h, w, dim, base = grid
    layout = sincos_layout(h, w, dim)
    (c0, c1), (r0, r1) = layout.column_channels, layout.row_channels
    show(figures.padded(figures.heatmap(
        table(*grid), title=f"The 2D sin-cos table: {layout.patches} patches (raster order) x {dim} channels",
        x_title="channel", y_title="patch index (r·w + c)", value_name="PE", name="vit2d_table",
        alt=f"Heatmap of the {layout.patches} x {dim} table. The left half repeats the same pattern every {w} "
            f"rows (it only depends on the column); the right half changes in blocks of {w} rows.")))
    notice(f"MAE's layout: channels {c0} to {c1} encode the column (sines, then cosines), "
           f"channels {r0} to {r1} the row. In raster order the column half repeats every {w} "
           f"rows of the table and the row half is constant over each block of {w} rows. Papers often "
           "write the code as [PE(x) ‖ PE(y)]; that matches, with x the column.")
    formula(r"PE(r,c) = \big[\sin(c\,\omega),\ \cos(c\,\omega),\ \sin(r\,\omega),\ \cos(r\,\omega)\big],"
            r"\quad \omega_i = $base^{-i/$q},\ i < $q", base=base, q=layout.frequencies)


def rope_tab(grid, cell):
    image_views.rope_section(*grid, *cell)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [("One patch", one_patch_tab), ("Every patch", every_patch_tab), ("2D versus flattened 1D", flattened_tab),
        ("The table", table_tab), ("2D RoPE (axial)", rope_tab)]


lesson()
why(WHY)
source(pc.sincos_2d, flattened_sincos, patch_similarity_maps)
