"""Issue 44: a display operator's limits, stacked over and under it on baselines of their own, are
its limits (`∑_{n=1}^{N_s}`), on the authors' own PDFs of Bouma et al. 2020 (billy,
tests/fixtures/papertext/unseen2) and Angus et al. 2019 (stardate, unseen), and on celerite."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

BILLY = FIXTURES_DIR / "papertext" / "unseen2" / "billy2020_p6-7-16.pdf"
STARDATE = FIXTURES_DIR / "papertext" / "unseen" / "stardate2019_p8-14.pdf"
CELERITE = FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf"


def test_a_sum_keeps_its_limits_and_its_line():
    lines = read_pages(BILLY, max_pages=1)[0].lines
    # the sums read `∑`, `N_s`, `n=1` on lines of their own (joined: `∑ N_s n = 1`, a product of values)
    assert "f = f_{transit,s} + ∑_{n=1}^{N_s} A_n sin(nω_st) + ∑_{n=1}^{N_s} B_n cos(nω_st) (3)" in lines
    # (stop 54: `sin`, `cos` no longer make it prose, so it is display mathematics from pieces; its
    # limits' own scripts, `N_ℓ`, are a third level of script, which keeps it marked)
    assert "⟦+ ∑_{m=1}^{N_ℓ} A_m sin(m[ω_ℓt +φ_ℓ]) + ∑_{m=1}^{N_ℓ} B_m cos(m[ω_ℓt +φ_ℓ]),⟧" in lines
    assert "N_s" not in lines and "n=1" not in lines


def test_limits_of_one_character_read_as_limits_too():
    stardate = read_pages(STARDATE, max_pages=1)[0].lines
    assert "log_{10}(P_{rot}) = c_A log_{10}(t) + ∑_{n=0}^4 c_n[log_{10}(G_{BP} − G_{RP} )]^n" in stardate
    assert "4" not in stardate and "n=0" not in stardate
    carma = read_pages(CELERITE, max_pages=25)[24].lines
    assert "k_{CARMA}(τ ) = ∑_{j=1}^J A_j exp (r_j τ ) (64)" in carma
