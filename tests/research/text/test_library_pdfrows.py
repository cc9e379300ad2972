"""Issue 44: a table row whose first cell is one symbol with stacked scripts, on the authors' own PDF
of Bouma et al. 2020 (timmy, tests/fixtures/papertext/unseen/PROVENANCE.md): the symbol keeps its
scripts and its row keeps its cells."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

TIMMY = FIXTURES_DIR / "papertext" / "unseen" / "timmy2020_p9-17-20.pdf"


def test_a_symbol_with_stacked_scripts_heads_its_row():
    lines = read_pages(TIMMY, max_pages=3)[2].lines
    # `t` with `0` under `(1)` was read `t (1)`, a line `0`, and the row's cells on a line of their own:
    # the epoch 1574.272527 no longer belonged to t_0
    row = "t_0^{(1)} | d | N(1574.273800; 0.1000) | 1574.272527 | 1574.2725263 | 0.0005931 | 1574.2713991 | 1574.273626"
    assert row in lines
    assert "P | d | N(8.3249; 0.1000) | 8.3248762 | 8.3248762 | 0.0000157 | 8.3248466 | 8.3249057" in lines
    assert "0" not in lines and "t (1)" not in lines
