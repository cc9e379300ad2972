"""Issue 44: the reader says when it is unsure. A glyph of the line's own size set above or below
its baseline is no script: a part of a display fraction, a matrix row, a limit not resolved. When
the reader would write such glyphs as scripts, the line is marked ⟦ ⟧ instead of written wrong;
prose, table notes and resolved fractions are not marked. On the authors' own PDF of Angus et al.
2021 (aviary, tests/fixtures/papertext/unseen2) and on 1001.0012 and V1298 Tau."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

AVIARY = FIXTURES_DIR / "papertext" / "unseen2" / "aviary2021_p11.pdf"
TIMMY = FIXTURES_DIR / "papertext" / "unseen" / "timmy2020_p9-17-20.pdf"
COWAN = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def test_a_display_fraction_the_reader_cannot_place_is_marked():
    lines = read_pages(AVIARY)[0].lines
    # k_{ij} = A exp[(−(x_i − x_j)^2)/(2l^2)]: the numerator on a baseline of its own made `k` a
    # script and the fraction read as a product (`kij = A exp [−(x_i − x_j )^2` then `2l^2 ]`)
    assert "⟦kij = A exp [−(x_i − x_j )^2⟧" in lines


def test_prose_table_notes_and_resolved_fractions_are_not_marked():
    timmy = read_pages(TIMMY, max_pages=1)[0].lines
    assert "δ_{obs} = δ_{true} F_{comp}/F_{total}, (1)" in timmy  # a fraction the reader placed
    notes = read_pages(COWAN, max_pages=12)[11].lines
    assert any(line.startswith("a The planet’s expected day-side effective temperature") for line in notes)
    assert not any("⟦" in line for line in notes)
