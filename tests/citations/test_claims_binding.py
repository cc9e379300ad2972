"""Stop 52 (issue 43): a value the passage gives for another quantity does not support the claim (binding.py).
Each case is a real passage of the labelled set (benchmarks/data/claims_set.json, development material)."""

from __future__ import annotations

import json

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.support import check_support
from tests.paths import REPO_ROOT

SET = REPO_ROOT / "benchmarks" / "data" / "claims_set.json"


def passage(handle: str) -> str:
    return str(json.loads(SET.read_text())["passages"][handle])


def verdict(claim_text: str, handle: str) -> tuple[str, str]:
    [claim], _ = split_claims(claim_text)
    found = check_support(claim, passage(handle))
    return found.status, found.reason


@pytest.mark.parametrize(("claim", "expected"), [
    # Bouma, Masuda & Winn 2018: "only a tenth of the binaries ... Adopting the value n_b/n_s ≈ 0.05"
    ("If only a twentieth of binaries are near-twins, n_b/n_s ≈ 0.05 [1802.05277:s3.1:c13].", "unsupported"),
    ("If only a tenth of binaries are near-twins, n_b/n_s ≈ 0.05 [1802.05277:s3.1:c13].", "supported"),
    # Luger et al. 2016: "around 5×10^3 for third order PLD, and would increase to ∼5×10^4 for fourth order and
    # ∼3×10^5 for fifth order PLD"
    ("For a typical K2 star third-order PLD needs around 5e4 regressors [1607.00524:s2.2:c10].", "unsupported"),
    ("For a typical K2 star third-order PLD needs around 5 × 10^3 regressors [1607.00524:s2.2:c10].", "supported"),
    ("For a typical K2 star fourth-order PLD needs around 5 × 10^4 regressors [1607.00524:s2.2:c10].", "supported"),
    ("For a typical K2 star fifth-order PLD needs around 5 × 10^4 regressors [1607.00524:s2.2:c10].", "unsupported"),
    ("For a typical K2 star fifth-order PLD needs around 3 × 10^5 regressors [1607.00524:s2.2:c10].", "supported"),
    # Thiele et al. (stop 51's passage): "brighter than Kepler stars by a factor of 30–100, and closer to the Earth
    # by a factor of 5–10"
    ("TESS stars will be brighter than Kepler stars by a factor of 5–10 and closer to the Earth by a factor of "
     "30–100 [1802.05277:s5:c41].", "unsupported"),
    ("TESS stars will be brighter than Kepler stars by a factor of 30–100 and closer to the Earth by a factor of "
     "5–10 [1802.05277:s5:c41].", "supported"),
])
def test_a_value_of_another_quantity_of_the_passage_is_no_support(claim, expected):
    """The value is in the passage, but the passage ties the claim's words to another value of the same kind."""
    status, reason = verdict(claim, claim[claim.rindex("[") + 1:-2])
    assert status == expected, reason
    if expected == "unsupported":
        assert "is in the passage, but for another quantity" in reason


@pytest.mark.parametrize(("claim", "handle", "expected"), [
    # a parenthesis closes a clause: "found a higher rate (12 ± 2 per thousand stars) than the Kepler transit survey
    # (5.7^{+1.4}_{-1.2})" (Bouma, Masuda & Winn 2018)
    ("The California Planet Search found 5.7^{+1.4}_{-1.2} hot Jupiters per thousand stars [1802.05277:s5:c39].",
     "1802.05277:s5:c39", "unsupported"),
    ("The California Planet Search found 12 ± 2 hot Jupiters per thousand stars [1802.05277:s5:c39].",
     "1802.05277:s5:c39", "supported"),
    ("The Kepler transit survey found 5.7^{+1.4}_{-1.2} hot Jupiters per thousand stars [1802.05277:s5:c39].",
     "1802.05277:s5:c39", "supported"),
    # a Greek letter is its name: the claim's `α = 0` is the passage's `\alpha = 3.5` (Bouma et al., Section 4.1)
    ("With realistic inputs the model adopts α = 0 and β = 3.5 [1802.05277:s4.1:c24].", "1802.05277:s4.1:c24",
     "unsupported"),
    ("With realistic inputs (n_b/n_s = 0.79, α = 3.5, β = 0, γ = −2.92) the apparent-to-true rate density ratio "
     "comes out at 1.048 [1802.05277:s4.1:c24].", "1802.05277:s4.1:c24", "supported"),
    # "... M_Bb = 0.944 ± 0.017 M_⊙ for the tertiary and two close binary components, respectively" (Feiden 2016)
    ("Alonso et al. measured a tertiary mass of 1.44 ± 0.04 M_⊙ for HD 144548 [1604.08036:s3:c18].",
     "1604.08036:s3:c18", "supported"),
])
def test_parentheses_greek_symbols_and_respectively_lists(claim, handle, expected):
    status, reason = verdict(claim, handle)
    assert status == expected, reason


def test_the_reason_names_the_words_and_the_passages_value():
    status, reason = verdict("If only a twentieth of binaries are near-twins, n_b/n_s ≈ 0.05 [1802.05277:s3.1:c13].",
                             "1802.05277:s3.1:c13")
    assert reason == ("a twentieth is in the passage, but for another quantity: where it speaks of binaries it "
                      "gives a tenth")


@pytest.mark.parametrize(("claim", "handle"), [
    # a list of numbers is one clause: "errors of 16 K and 14 K, respectively"
    ("The Wien displacement and linear interpolation routines have errors of 16 K and 14 K [1001.0012:p5:c22].",
     "1001.0012:p5:c22"),
    # "factors of 2.9 (1st order), 4.7 (2nd order), and 5.2 (3rd order)": the items share the list's words
    ("Third-order PLD improves the 6-hr precision by a factor of 5.2 [1607.00524:s2.2:c12].",
     "1607.00524:s2.2:c12"),
    # a chunk cut mid-sentence: the words before its first number are in the chunk before
    ("Bryan et al. found a rate density of 0.125 ± 0.012 for giant planets of 1–20 M_J at 5–20 au in hot-Jupiter "
     "systems [1607.08237:c43].", "1607.08237:c43"),
    # a count is no rival of a measured value ("two components" beside 0.834 ± 0.006)
    ("UScoCTIO5's two components have radii of 0.834 ± 0.006 and 0.810 ± 0.006 R_⊙ [1604.08036:s3:c17].",
     "1604.08036:s3:c17"),
    # pointers are no values: "Equation (18)", "Section 7", "Figure 9"
    ("Kipping showed the transit probability is underestimated by about 10% [1406.3020:s5:c31].",
     "1406.3020:s5:c31"),
    ("The rate density of Earth analogs is Γ⊕ = 0.019^{+0.019}_{-0.010} per natural logarithmic bin in period and "
     "radius [1406.3020:s8:c42].", "1406.3020:s8:c42"),
    # the words of two sentences: "For many planets, the uncertainty is 100–200 K." after "50 K in brightness temperature"
    ("For many planets the uncertainty in brightness temperature is 100-200 K [1001.0012:p5:c22].",
     "1001.0012:p5:c22"),
])
def test_a_faithful_claim_keeps_its_value(claim, handle):
    status, reason = verdict(claim, handle)
    assert status == "supported", reason


def test_a_table_and_a_data_file_are_not_read_as_prose():
    from astro_cli.citations.binding import unbound

    [claim], _ = split_claims("HD 174020 has Δν = 0.56 ± 0.02 [1905.09831:p12:c23].")
    assert unbound(claim, passage("1905.09831:p12:c23")) is None
    assert unbound(claim, "the value is 0.56 ± 0.02 here, and the other " * 500 + "Δν of HD 174020 is 7") is None


@pytest.mark.parametrize(("claim", "expected"), [
    # Pope et al. 2019, Table 2 (PDF): "Object | ∆ν | ν_{max} | ε ... HD 174020 | 0.56 ± 0.02 | 2.48 ± 0.10 | 0.89 ± 0.08"
    ("HD 174020 has ν_max = 0.56 ± 0.02 [1905.09831:p12:c23].", "unsupported"),
    ("HD 174020 has ν_max = 2.48 ± 0.10 [1905.09831:p12:c23].", "supported"),
    ("HD 174020 has Δν = 0.56 ± 0.02 [1905.09831:p12:c23].", "supported"),
    ("HD 174020 has ε = 2.48 ± 0.10 [1905.09831:p12:c23].", "unsupported"),
    ("HD 174020 has Δν = 0.95 ± 0.03 [1905.09831:p12:c23].", "unsupported"),  # another row's
])
def test_a_table_value_must_stand_under_the_column_the_claim_names(claim, expected):
    status, reason = verdict(claim, "1905.09831:p12:c23")
    assert status == expected, reason


def test_the_column_reason_names_the_header_and_the_cell():
    assert verdict("HD 174020 has ν_max = 0.56 ± 0.02 [1905.09831:p12:c23].", "1905.09831:p12:c23")[1] == (
        "0.56 ± 0.02 is not under ν_{max} in this row (it gives 2.48 ± 0.10)")


def test_a_table_a_row_a_line_has_its_first_line_as_header():
    table = "[Caption: stars]\nstar | T_eff [K] | log g\nHD 1 | 5000 | 4.4\nHD 2 | 5200 | 4.1"
    for claim, expected in (("HD 2 has T_eff = 5200 K [x:c1].", "supported"),
                            ("HD 2 has log g = 5200 [x:c1].", "unsupported"),
                            ("HD 2 has log g = 4.1 [x:c1].", "supported")):
        [parsed], _ = split_claims(claim)
        assert check_support(parsed, table).status == expected, claim


def test_a_sentence_cut_where_the_chunk_ends_is_not_held_against_its_value():
    """The words after a value the chunk cut off (`... 0.05 for the twin binaries of`) may be the claim's: only a
    sentence the chunk holds whole speaks against it."""
    whole = "Only a tenth of the binaries are near twins. We adopt n_b/n_s = 0.05 for the rate."
    cut = "Only a tenth of the binaries are near twins. We adopt n_b/n_s = 0.05 for the"
    [claim], _ = split_claims("If a twentieth of binaries are near-twins, n_b/n_s ≈ 0.05 [x:c1].")
    assert "for another quantity" in check_support(claim, whole).reason
    assert "for another quantity" not in check_support(claim, cut).reason


def test_a_latex_command_is_markup_not_a_word():
    """Thiele et al.'s `\\begin{cases} - 0.0648 ... \\tag{\\theequation} \\\\ -0.1977 ...`: the second row took its
    words from `\\addtocounter`, `\\tag`, so the first row's `binary fraction` refuted it."""
    claim = "For [Fe/H] above −1.0 the fitted binary fraction is −0.1977 [Fe/H] + 0.2025 [2111.13700:s2.2:c12]."
    status, reason = verdict(claim, "2111.13700:s2.2:c12")
    assert status == "supported", reason
