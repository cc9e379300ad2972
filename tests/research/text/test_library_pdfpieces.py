"""Issue 44, stop 53: a numbered display formula that the line stage left in pieces is marked whole
(pdfpieces.py), never written as a row of terms that is not the formula; a formula read on one line
and prose are left alone. Real pages of tests/fixtures/papertext (development material)."""

from __future__ import annotations

import re

from astro_cli.research.library.parse import pdf_chunks
from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

PAPERTEXT = FIXTURES_DIR / "papertext"


def _text(path: str) -> str:
    chunks, _ = pdf_chunks(read_pages(PAPERTEXT / path), 1200)
    return " ".join("\n".join(chunk.text for chunk in chunks).split())


def _marked(text: str) -> list[str]:
    return re.findall(r"⟦([^⟦⟧]*)⟧", text)


def test_a_display_formula_in_pieces_is_marked_whole():
    # MNRAS in newtx (lensingssc2024): eq. (5) is σ^k(β^k) = (3H_0^2Ω_m)/(2c^2) χ^k/a^k ∫ δ dχ; the
    # reader gave its parts as lines of their own and wrote `3H_0^2Ω_m 2c^2 χ^k a^k`, a product.
    text = _text("unseen3/lensingssc2024_p1-2.pdf")
    assert "⟦σ^k(β^k) = 3H_0^2Ω_m 2c^2 χ^k a^k" in text
    assert "δ(β^k, χ) dχ, (5)⟧" in text
    assert "lens plane: ⟦" in text  # the prose before it is not marked


def test_a_fraction_left_in_pieces_inside_a_formula_changes_no_value_unmarked():
    # solar2026 (AASTeX): eq. (1) opens with (1/a da/dt)_{tide}, eq. (2) is f = min[1, (P_orb/(2τ))^2];
    # the reader wrote `( _1 a da dt )` and `min[1, (Porb 2 τ_{conv} )^2 ]`, values they are not.
    text = _text("unseen3/solar2026_p2-3.pdf")
    spans = _marked(text)
    assert any(s.startswith("(_1 a da dt )_{tide}") and s.endswith("(R_⋆/a)^8, (1)") for s in spans)
    # (stop 54: `min` is no word, so eq. (2)'s pieces join its line and its fraction is read, unmarked)
    # (follow-up: the big `]` that closes the line's big `[` joins it, no longer a marked line `⟦]⟧`)
    assert "f = min[1,(P_{orb}/(2 τ_{conv}) )^2] (2)" in text


def test_a_formula_read_on_one_line_and_prose_stay_unmarked():
    # aviary2021: k_{ij} = A exp [(−(x_i − x_j)^2)/(2l^2)] is read right; its big `]` alone on a line
    # is no doubt about the rest. keplerkin2022 and atlas2025 are prose: nothing new is marked.
    aviary = _text("unseen2/aviary2021_p11.pdf")
    assert "k_{ij} = A exp [(−(x_i − x_j )^2)/(2l^2)" in aviary
    assert "⟦k_{ij}" not in aviary
    assert _marked(_text("unseen3/atlas2025_p2-4-5.pdf")) == []


def test_the_unnumbered_rest_of_a_numbered_formula_is_marked_and_a_figure_label_is_no_formula():
    # stardate2019 (AASTeX): eq. (9) is numbered on its first line; the second, `= 1/√((2π)^n det(Σ))
    # exp(...)`, came as `√[1]` (its numerator read as a note mark), a smaller `(2π)^n det(Σ)`, `exp
    # (...)`, `)`, `,`: the rest of the formula is marked up to the prose.
    text = _text("unseen/stardate2019_p8-14.pdf")
    # (stop 54: the fraction over a root is read, `1/√(...)`; the rest stays marked with it)
    assert "L_{iso} = p(m_x, π̄|t, E, [M/H], D, A_V ) (9) ⟦= 1/√((2π)^n det(Σ)) exp" in text
    assert "(O_I − I)),⟧ where O_I is the vector" in text
    # a figure's axis label `S(ω)/S(0)` (celerite, 15.9 pt) ends in no equation number
    celerite, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf"), 1200)
    assert any("S(ω)/S(0)" in chunk.text for chunk in celerite)
    # `as,` and `Let` are prose: 1111.2011's `Let` is not taken into eq. (5)
    cond, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papers" / "arXiv_1111.2011v2_cond-mat.pdf"), 1200)
    assert "⟦Let" not in " ".join(chunk.text for chunk in cond)


def test_an_unnumbered_display_in_pieces_is_marked_from_its_relation():
    # 1111.2011 (RevTeX): G_0 = 2/(p^2 + r + √(...)) came as `G_0 =` / `2` / `p` and a marked rest: the
    # `2` and `p` read as a product before it. A line of math ending in `=` or `≈` opens the run.
    cond, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papers" / "arXiv_1111.2011v2_cond-mat.pdf"), 1200)
    text = " ".join(" ".join(chunk.text for chunk in cond).split())
    assert "⟦G_0 = 2 p 2 + r +√(p^2 + r)^2" in text
    assert "⟦G(p) ≈ 2 p 2 + r + Σ(p)" in text


def test_a_stub_of_symbols_right_above_a_numbered_line_is_read_as_its_fraction():
    # dsd2015's eq. (6) (Barnes 2010): PDFium gave `k_C t` apart from `τ = ln (P/P_0) ...`; stop 54
    # marked the stub's line (`⟦k_Ct τ = ...⟧`); since the follow-up, a numerator of mathematics with
    # a denominator centred under it opens the formula as its fraction (pdflines._numerator_over)
    text = _text("unseen/dsd2015_p4-5-17.pdf")
    assert "(k_Ct)/τ= ln (P/P_0) (k_Ik_C)/(2τ^2)(P^2 − P_0^2) (6)" in text and "k_Ct τ" not in text
