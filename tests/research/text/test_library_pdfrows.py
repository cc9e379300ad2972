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


PSIDRA = FIXTURES_DIR / "papertext" / "unseen2" / "psidra2015_p3-4.pdf"


def test_a_label_and_its_measured_value_are_two_cells():
    # emulateapj's fit table (Gullikson et al. 2015, Table 2): one gap between a parameter and its value.
    # A row with one gap had no ` | `, and a row in math fonts was marked as a formula it is not.
    lines = read_pages(PSIDRA, max_pages=2)[1].lines
    for row in ("Periastron passage time (JD) | 2450388_{−273}^{+169}", "reduced χ^2 | 0.41",
                "∆v_2 (km s^{−1}) | −5.4_{−0.2}^{+0.3}", "M_1 (M_⊙) | 1.38_{−0.08}^{+0.15}",
                "[Fe/H] | −0.10 ± 0.05", "i (degrees) | 31 ± 1"):
        assert row in lines
    assert not any("⟦" in line for line in lines if "|" in line)
    # a running head's page number after a wide gap is not a value (no decimal point, ± or error)
    assert not any(line.endswith("| 4") or line.startswith("4 |") for line in lines)
