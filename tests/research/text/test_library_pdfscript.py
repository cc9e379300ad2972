"""Issue 44, stop 53: a script's own script is kept (`∇_{β^k}`), and two scripts set from one x over
each other belong to their symbol, subscript first, whatever their widths (pdfscript.py). Real pages."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

LENSING = FIXTURES_DIR / "papertext" / "unseen3" / "lensingssc2024_p1-2.pdf"
COND = FIXTURES_DIR / "papers" / "arXiv_1111.2011v2_cond-mat.pdf"
CMB = FIXTURES_DIR / "papertext" / "unseen3" / "cmbdelens2017_p1-3-6.pdf"


def test_a_script_of_a_script_is_kept():
    # MNRAS in newtx: the `k` of ∇_{β^k} is set in scriptscript size just above the subscript's
    # baseline, below the line's: it read as a glyph of the line, `∇_βkψ^k`
    lines = read_pages(LENSING, max_pages=1)[0].lines
    assert "α^k(β^k) = ∇_{β^k} ψ^k(β^k) (3)" in lines
    assert "∇_{β^k}^2ψ^k(β^k) = 2σ^k(β^k), (4)" in lines  # was ∇^2_{βk}


def test_stacked_scripts_of_different_widths_are_their_symbols_not_a_fraction():
    # 1111.2011: `−∂_μ^2 + r_0` read `−∂ 2/μ + r_0`, a fraction and a value it is not; cmbdelens2017's
    # ρ_{|ℓ−ℓ′|}^2 read `ρ^2_{|ℓ−ℓ}′_|`, and its primes stay with their symbol (`f_{ℓ,ℓ′}`)
    page = read_pages(COND, max_pages=2)[1].lines
    assert any("(p) = −∂_μ^2 + r_0, with r_0 ≥ 0." in line for line in page)
    assert not any("∂ 2/μ" in line for line in page)
    cmb = read_pages(CMB, max_pages=2)[1].lines
    assert any(line.startswith("′ ρ_{|ℓ−ℓ′|}^2,") for line in cmb)
    assert any(line.startswith("f_{ℓ,ℓ′} = ") for line in cmb)
