"""Stop 53 (issue 43, round five) through the real `astro run --output-format json` process: the scripted model,
through the real litellm, reads a passage of a paper parsed from its LaTeX with get_paper_content, then answers.
The passages are Agol et al. 2021's own text (TRAPPIST-1, ericagol/TRAPPIST1_Spitzer, MIT) and Cowan & Agol 2011's,
both development papers. Each test fails on the code before stop 53.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

TRAPPIST, COWAN, TABLE = "2010.01074", "1001.0012", "2010.01075"
SOURCES = {
    TRAPPIST: ("Refining the transit timing and photometric analysis of TRAPPIST-1", "Stellar parameters",
               "The stellar density we derive using the photodynamic model, $\\rho_* = 53.17_{- 1.18}^{+0.72} "
               "\\rho_\\odot$, is in $1\\sigma$ agreement with prior analyses. Most recently, \\citet{Delrez2018a} "
               "found a density of $\\rho_* = (52.3{\\pm}2.2)\\rho_\\odot$, twice as uncertain as our analysis.\n\n"
               "The stellar mass we take from the analysis by \\citet{Mann2019}, $M_* = 0.0898{\\pm}0.0023 M_\\odot$. "
               "This mass has a precision of 2.6\\%, which limits the mass precision for several of the planets.\n\n"
               "We used the luminosity estimate from \\citet{Ducrot2020}, which is slightly lower than that "
               "estimated by \\citet{Gonzales2019}. Using a range of values of tidal damping (from 1/10 to 100 times "
               "Earth's), we find in all cases that the system remained stable. The planets have molar Fe/Mg ratios "
               "of 0.47 $\\pm$ 0.07 on average."),
    COWAN: ("Statistics of Albedo and Heat Recirculation on Hot Exoplanets", "Results",
            "The cumulative distribution function (not shown) yields a 1$\\sigma$ upper limit of $A_B < 0.35$. "
            "Lithium depletion is not expected to occur in warmer planets with effective temperatures exceeding "
            "about 4 500 K."),
    TABLE: ("Parameters derived from the photodynamic model", "Tables",
            "\\begin{table}\n\\caption{Stellar density in cgs units and limb-darkening parameters.}\n"
            "\\begin{tabular}{lccc}\nParameter & $\\rho_*$ [g/cm$^3$] & $u_1$ & $u_2$ \\\\\n\\hline\n"
            "Value & $75.05_{-1.66}^{+1.02}$ & $0.161\\pm 0.093$ & $0.20\\pm 0.15$ \\\\\n\\end{tabular}\n"
            "\\end{table}"),
}
MARKS = {TABLE: "75.05"}


@pytest.fixture
def handles(workspace: Path) -> dict[str, str]:
    return latex_passages(workspace, SOURCES, 2021, MARKS)


def statuses(claims: list[dict[str, object]]) -> list[object]:
    return [c["status"] for c in claims]


@pytest.mark.slow
def test_a_study_named_with_the_wrong_year_or_for_anothers_value_is_unsupported(run_astro, fake, astro_env, handles):
    """`Delrez et al. (2016)` against `[Delrez2018a]`, and Mann's stellar mass credited to Ducrot, were supported."""
    h = handles[TRAPPIST]
    answer = (f"Delrez et al. (2018) found ρ_* = (52.3 ± 2.2) ρ_⊙ [{h}]. "
              f"Delrez et al. (2016) found ρ_* = (52.3 ± 2.2) ρ_⊙ [{h}]. "
              f"The stellar mass of 0.0898 ± 0.0023 M_⊙ is taken from Ducrot et al. (2020) [{h}].")
    claims = claims_of(run_astro, fake, astro_env, TRAPPIST, answer)
    assert statuses(claims) == ["supported", "unsupported", "unsupported"]
    assert claims[1]["reason"] == "Delrez (2016) is not what the passage cites: it names Delrez 2018"
    assert "does not credit 0.0898 ± 0.0023 M_⊙ to Ducrot (2020)" in str(claims[2]["reason"])


@pytest.mark.slow
def test_a_bound_turned_around_a_limit_told_as_a_value_and_a_dropped_negation(run_astro, fake, astro_env, handles):
    """`A_B < 0.35` told as `> 0.35` or as a measured 0.35, and `is not expected` told as `is expected`, were
    supported: the number stands in the passage. A claim the check cannot decide is `unverified`."""
    h = handles[COWAN]
    answer = (f"The 1σ upper limit on the Bond albedo is A_B < 0.35 [{h}]. "
              f"The 1σ lower limit on the Bond albedo is A_B > 0.35 [{h}]. "
              f"The cumulative distribution function yields a Bond albedo of 0.35 at 1σ [{h}]. "
              f"Lithium depletion is expected in planets hotter than about 4500 K [{h}]. "
              f"Lithium depletion differs in magnetic stellar atmospheres [{h}].")
    claims = claims_of(run_astro, fake, astro_env, COWAN, answer)
    # the last shares some words and no number: the check cannot tell, so it says so (it said `unsupported`)
    assert statuses(claims) == ["supported", "unsupported", "unsupported", "unsupported", "unverified"]
    assert str(claims[4]["reason"]).startswith("could not be confirmed")
    assert claims[1]["reason"] == "0.35 is an upper bound in the passage, not an lower one"
    assert claims[2]["reason"] == "0.35 is an upper limit in the passage, not a measured value"
    assert claims[3]["reason"] == "the passage says the opposite: it negates what the claim states"


@pytest.mark.slow
def test_a_tables_header_unit_and_numbers_in_words(run_astro, fake, astro_env, handles):
    """`[g/cm^3]` in the header: 75.05 g/cm^3 is stated, 75.05 mg/cm^3 is not (it was supported); `the seven
    planets` and `a tenth` (the passage's 1/10) were flagged; a shared view of the field was no claim."""
    t, h = handles[TABLE], handles[TRAPPIST]
    answer = (f"In cgs units the star's density is 75.05^{{+1.02}}_{{-1.66}} g/cm^3 [{t}]. "
              f"In cgs units the star's density is 75.05 mg/cm^3 [{t}]. "
              f"Averaged over the seven planets, the molar Fe/Mg ratio is 0.47 ± 0.07 [{h}]. "
              f"With tidal damping from a tenth to 100 times Earth's, the system remained stable [{h}]. "
              "There is broad consensus in the literature that most stars form in clusters.")
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": TRAPPIST}}]})
    claims = claims_of(run_astro, fake, astro_env, TABLE, answer)
    assert statuses(claims) == ["supported", "unsupported", "supported", "supported", "uncited"]
    assert claims[1]["reason"] == "75.05 mg/cm^3 is not in the passage (its table gives g/cm3)"
