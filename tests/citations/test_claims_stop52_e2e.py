"""Stop 52 (issue 43): a value the passage gives for another quantity, through the real `astro run --output-format
json` process (the scripted model, through the real litellm, reads a passage of a paper parsed from its LaTeX with
get_paper_content, then answers). The passages are the papers' own text (MIT): Bouma, Masuda & Winn 2018
(lgbouma/binary_biases) and Luger et al. 2016 (rodluger/everest), both of the labelled set's development half.
Each test fails on the code before stop 52.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

BOUMA, EVEREST, SMEAR = "1802.05277", "1607.00524", "1905.09831"
SOURCES = {
    BOUMA: ("Biases in Planet Occurrence Caused by Unresolved Binaries in Transit Surveys", "Simple model",
            "Of course not all of these binaries are twin binaries as we have assumed in our simple calculation. For "
            "now, we might guess that only a tenth of the binaries have pairs of stars close enough in brightness to "
            "produce errors as significant as those we have been considering. Adopting the value "
            "$n_{\\rm b}/n_{\\rm s}\\approx0.05$, we find that the apparent rate is 0.88 of the true rate."),
    EVEREST: ("EVEREST: Pixel Level Decorrelation of K2 Light curves", "Higher order PLD",
              "One might wonder why not go to even higher order in the pixel coefficients. For a typical K2 star, "
              "this number is around $5\\times 10^3$ for third order PLD, and would increase to $\\sim5\\times 10^4$ "
              "for fourth order and $\\sim3\\times 10^5$ for fifth order PLD."),
    SMEAR: ("The Kepler Smear Campaign", "Red giants",
            "Global asteroseismic parameters of the red giant sample.\n\n\\begin{tabular}{lccc}\nObject & "
            "$\\Delta\\nu$ & $\\nu_{\\rm max}$ & $\\epsilon$ \\\\\n\\hline\nHD 174020 & $0.56 \\pm 0.02$ & "
            "$2.48 \\pm 0.10$ & $0.89 \\pm 0.08$ \\\\\nHD 174829 & $1.28 \\pm 0.01$ & $7.95 \\pm 0.16$ & "
            "$0.78 \\pm 0.06$ \\\\\n\\end{tabular}"),
}


MARKS = {SMEAR: "174020"}  # a table is a chunk of its own


@pytest.fixture
def handles(workspace: Path) -> dict[str, str]:
    """Each paper's LaTeX in the library, parsed; the handle of its passage (one chunk a paper)."""
    return latex_passages(workspace, SOURCES, 2018, MARKS)


@pytest.mark.slow
def test_a_fraction_of_another_quantity_is_no_support(run_astro, fake, astro_env, handles):
    """`a twentieth of binaries` passed: 0.05 is in the passage, as n_b/n_s, while the binaries are `a tenth`."""
    h = handles[BOUMA]
    answer = (f"If only a tenth of the binaries are near-twins, n_b/n_s ≈ 0.05 [{h}]. "
              f"If only a twentieth of the binaries are near-twins, n_b/n_s ≈ 0.05 [{h}].")
    claims = claims_of(run_astro, fake, astro_env, BOUMA, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
    assert claims[1]["reason"] == ("a twentieth is in the passage, but for another quantity: where it speaks of "
                                   "binaries it gives a tenth")


@pytest.mark.slow
def test_a_value_of_another_order_is_no_support(run_astro, fake, astro_env, handles):
    """`third-order PLD needs 5e4` passed: 5 × 10^4 is in the passage, as the fourth order's."""
    h = handles[EVEREST]
    answer = (f"For a typical K2 star, fourth-order PLD needs around 5 × 10^4 regressors [{h}]. "
              f"For a typical K2 star, third-order PLD needs around 5 × 10^4 regressors [{h}].")
    claims = claims_of(run_astro, fake, astro_env, EVEREST, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
    assert claims[1]["reason"].startswith("5 × 10^4 is in the passage, but for another quantity: where it speaks of")
    assert claims[1]["reason"].endswith("it gives 5× 10^3")


@pytest.mark.slow
def test_a_hedged_credit_to_the_literature_is_an_uncited_claim(run_astro, fake, astro_env, handles):
    """`X has been shown to`, `earlier work suggests`, `X is thought to` were no claims; the paper's own statement
    (`the authors show`) stays none."""
    h = handles[EVEREST]
    answer = (f"For a typical K2 star, third-order PLD needs around 5 × 10^3 regressors [{h}]. "
              "The authors show that PLD works well for K2 targets. "
              "Higher-order PLD has been shown to overfit faint stars. "
              "Earlier work suggests that K2 pointing jitter dominates the noise. "
              "Faint K2 targets are thought to gain little from fifth-order PLD.")
    claims = claims_of(run_astro, fake, astro_env, EVEREST, answer)
    assert [c["status"] for c in claims] == ["supported", "uncited", "uncited", "uncited"]
    assert [c["claim"].split()[0] for c in claims[1:]] == ["Higher-order", "Earlier", "Faint"]
    [nudge] = {m["content"] for body in fake.bodies() for m in body["messages"]
               if m["role"] == "user" and isinstance(m["content"], str) and "Claim check" in m["content"]}
    assert "Earlier work suggests" in nudge and "has no citation" in nudge


@pytest.mark.slow
def test_a_table_value_under_another_column_is_no_support(run_astro, fake, astro_env, handles):
    """`HD 174020 has ν_max = 0.56 ± 0.02` passed: 0.56 ± 0.02 is in HD 174020's row, but under Δν."""
    h = handles[SMEAR]
    answer = (f"HD 174020 has ν_max = 2.48 ± 0.10 [{h}]. "
              f"HD 174020 has ν_max = 0.56 ± 0.02 [{h}].")
    claims = claims_of(run_astro, fake, astro_env, SMEAR, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"], [(c["reason"], c["passage"]) for c in claims]
    assert claims[1]["reason"].startswith("0.56 ± 0.02 is not under ")
