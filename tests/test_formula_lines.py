"""page_kit.lesson.formula_lines: a projector's long formula set on lines at its own joints."""

from page_kit.lesson.formula_lines import PROJECTOR_CHARS, broken, width

CELL = (r"PE_{(p,\,\mathrm{col})} = \sin\!\left(\frac{p}{b^{2i/d}}\right)\quad\Rightarrow\quad "
        r"PE_{(5,\,3)} = \sin\!\left(\frac{5}{10{,}000^{2\cdot 1/64}}\right) = \sin(3.7) = 0.5")


def test_a_short_formula_is_left_alone():
    assert broken(r"a = b + c", PROJECTOR_CHARS) == r"a = b + c"


def test_definition_then_values():
    out = broken(CELL, PROJECTOR_CHARS)
    assert out.startswith(r"\begin{gathered}") and out.count(r"\\") == 1
    assert r"\Rightarrow" not in out  # the arrow between statements becomes the line break


def test_a_long_statement_breaks_before_a_relation_aligned():
    tex = r"x = " + " + ".join(f"a_{{{i}}}" for i in range(20)) + r" = " + " + ".join(f"b_{{{i}}}" for i in range(20))
    out = broken(tex, 40)
    assert r"\begin{aligned}" in out and r"\\ & =" in out


def test_nothing_inside_braces_or_environments_is_broken():
    matrix = r"\begin{pmatrix}a = 1\\ b = 2\end{pmatrix} = " + "c + " * 30 + "d"
    # one relation at the top level: the left side, then the rest under it; the matrix's own = signs stay
    assert broken(matrix, 20) == (r"\begin{aligned}&\begin{pmatrix}a = 1\\ b = 2\end{pmatrix}\\ &\quad = "
                                  + "c + " * 30 + r"d\end{aligned}")
    assert width(r"\text{new cell } i") > width(r"\mathrm{newcell}i")


def test_a_tuple_or_an_interval_is_one_piece():
    tex = (r"\text{first image token: } (t, h, w) = (5, 5, 5) = \text{start} + (0,\ \text{row},\ \text{column}),"
           r"\quad \text{start} = 5")
    out = broken(tex, PROJECTOR_CHARS)
    assert r"(0,\ \text{row},\ \text{column})" in out  # not set one member a line
    assert out.count(r"\\") == 2  # the second statement, and the first's values under its definition
    assert broken(r"x \in [0, 1),\ y = 2", 8) == r"\begin{gathered}x \in [0, 1)\\ y = 2\end{gathered}"
