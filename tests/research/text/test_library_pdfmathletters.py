"""Issue 44, stop 52: letters of the Mathematical Alphanumeric Symbols block (U+1D400-U+1D7FF), which
newtx and unicode-math fonts map their math italic to, on the authors' own PDF of Tokiwa et al.'s
SSC paper (lensingssc2024, tests/fixtures/papertext/unseen3/PROVENANCE.md). PDFium gives each as a
surrogate pair; the reader dropped both halves, so `O_α` read `O` and `C_{SSC} = ...` lost every C."""

from __future__ import annotations

from astro_cli.research.text.pdfchars import plane_char
from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

LENSING = FIXTURES_DIR / "papertext" / "unseen3" / "lensingssc2024_p1-2.pdf"


def test_math_italic_letters_are_read_with_their_scripts():
    first, second = (page.lines for page in read_pages(LENSING, max_pages=2))
    assert "The covariance matrix between an observable O_α and another" in first
    assert "C_{SSC} = C_{sub} − C_{small} (2)" in first
    assert "where C_{sub} is the covariance computed using sub-boxes and C_{small}" in first
    # prose: the shear's components kept their letter, not only their subscript (`_1 and _2`)
    assert "where κ is the convergence, γ_1 and γ_2 are the two components of the" in second
    assert not any(line.startswith("_") or " _1" in line for line in first + second)
    # eq. (5)'s denominator 2c^2: a digit raised over a newtx math italic letter is a power, not a note
    assert "2c^2" in first and not any("c[2]" in line for line in first)


def test_only_the_mathematical_block_is_folded():
    assert plane_char(0x1D6FC) == "α" and plane_char(0x1D436) == "C" and plane_char(0x1D7D0) == "2"
    assert plane_char(0x1D716) == "ϵ" and plane_char(0x1D719) == "ϕ"  # variants stay variants
    assert plane_char(0x1F600) == "\U0001F600"  # outside the block a character is itself
    assert plane_char(0xD835) == "" and plane_char(0x110000) == ""



CELERITEGRAD = FIXTURES_DIR / "papertext" / "unseen3" / "celeritegrad2018_p1-2.pdf"


def test_a_digit_raised_over_a_math_symbol_is_its_power():
    # Latin Modern's math italic (LMMathItalic10-Regular, mapped by PDFium) and an operator of any
    # font took a raised number for a note mark: `O(N[3])`, a cost that is no longer cubic, `∇[2]`.
    assert any("scales as O(N^3) in" in line for line in read_pages(CELERITEGRAD, max_pages=1)[0].lines)
    first = read_pages(LENSING, max_pages=1)[0].lines
    assert any(line.startswith("∇_{β^k}^2ψ^k(β^k)") for line in first)  # stop 53: its script's script kept
    assert not any("∇[" in line or "c[2]" in line for line in first)
