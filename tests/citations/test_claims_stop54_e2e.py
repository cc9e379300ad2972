"""Stop 54 (issue 43, numbers) through the real `astro run --output-format json` process: the scripted model,
through the real litellm, reads a paper parsed from its LaTeX with get_paper_content, then answers. The text is
the development sets' papers' own (Crenshaw et al. 2024's training appendix, jfcrenshaw/pzflow-paper, MIT;
Feinstein et al. 2024's FFD slopes, afeinstein20/young-stellar-flares, MIT). Fails on main (8560797).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

FLOWS, FLARES = "2405.90002", "2405.90001"
SOURCES = {
    FLOWS: ("Probabilistic Forward Modeling of Galaxy Catalogs with Normalizing Flows", "Training details",
            "For the main flow in Section 4, we trained for 200 epochs.\n"
            "We used the Adam optimizer, starting with a learning rate of $10^{-5}$.\n"
            "We decreased the learning rate by a factor of 10 after the 100th and 150th epochs.\n\n"
            "For the conditional flow in 4, we trained for 600 epochs.\n"
            "Again, we used Adam with an initial learning rate of $10^{-5}$.\n\n"
            "For each of the flows that make up the flow ensemble in Section 5, we trained for 200 epochs using the "
            "Adam optimizer.\nWe started each with a learning rate of $10^{-4}$, which we decreased by a factor of 10 "
            "after the 100th and 150th epochs."),
    FLARES: ("Evolution of Flare Activity in GKM Stars Younger than 300 Myr", "Flare frequency distributions",
             "The measured FFD slopes are shallower than those measured using smaller samples of young stars. "
             "Jackman et al. fit the three FFDs for M3-M5, M0-M2, and K5-K8 stars younger than 40 Myr that had been "
             "observed with Next Generation Transit Survey. They measured slopes of $0.94 \\pm 0.04$, "
             "$0.69 \\pm 0.05$, $0.82 \\pm 0.14$ per bin, which each contained $\\leq 120$ flares."),
}
MARKS = {FLOWS: "main flow", FLARES: "M3-M5"}


@pytest.fixture
def handles(workspace: Path) -> dict[str, str]:
    return latex_passages(workspace, SOURCES, 2024, MARKS)


@pytest.mark.slow
def test_the_sentence_that_fits_best_and_lists_in_order(run_astro, fake, astro_env, handles):
    """The conditional flow told the main flow's 200 epochs, the main flow told the ensemble's learning rate, and
    K5-K8 told M0-M2's slope were all supported: each number stands somewhere in the passage, among its words."""
    f, s = handles[FLOWS], handles[FLARES]
    answer = (f"The conditional flow trained for 600 epochs [{f}]. "
              f"The conditional flow trained for 200 epochs [{f}]. "
              f"The main flow trained for 200 epochs from a learning rate of 10^-5 [{f}]. "
              f"The main flow trained for 200 epochs from a learning rate of 10^-4 [{f}]. "
              f"Jackman et al. measured a slope of 0.69 ± 0.05 for M0-M2 stars younger than 40 Myr [{s}]. "
              f"Jackman et al. measured a slope of 0.69 ± 0.05 for K5-K8 stars younger than 40 Myr [{s}].")
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": FLARES}}]})
    claims = claims_of(run_astro, fake, astro_env, FLOWS, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported", "supported", "unsupported", "supported",
                                             "unsupported"]
    assert claims[1]["reason"] == "200 is in the passage, but the sentence that fits the claim best gives 600"
    assert str(claims[3]["reason"]).startswith("10^-4 is in the passage, but the sentence that fits the claim best")
    assert str(claims[5]["reason"]).startswith("0.69 ± 0.05 is the passage's value for M0-M2")


TDSS = "2405.90003"
MORE = {
    TDSS: ("The Time-Domain Spectroscopic Survey: Stellar Variability", "Sample",
           "The KDE was used to determine the probability that each object is variable. This was used to select a "
           "uniform 10 objects $\\deg^{-2}$ to match the TDSS fiber allocation in the SDSS-IV.\n\n"
           "Our spectroscopic sample, therefore, covers spectra from SDSS-I to SDSS-IV, and span MJDs from 51779 "
           "(2000 August 23) to 58543 (2019 March 1), near the end of SDSS-IV.\n\n"
           "We also cross-matched our sample to the Zwicky Transient Facility DR5 [ZTF; ZTF_1, ZTF_2, ZTF_3]. We used "
           "the same matching criteria as for the CSS light curves, requiring a match to be within 2″ of our target "
           "coordinates.\n\n"
           "In this sample, there are 18,651 ($\\sim$74\\%) stars that have light curves in both the ZTF $g$ and $r$ "
           "filters. A summary of light curve statistics are reported in Table 2.2 for all ZTF filters."),
    FLARES: ("Evolution of Flare Activity in GKM Stars Younger than 300 Myr", "Saturation",
             "Additionally, \\citet{medina20} found a broken power-law relationship between $R_0$ and the flare "
             "rate. They analyzed light curves of 419 low-mass main-sequence stars in the Solar neighborhood "
             "observed by TESS, and found that the flare rate saturates for $R_0 < 0.1$ at 0.5 flares per day."),
}


@pytest.fixture
def more(workspace: Path) -> dict[str, str]:
    return latex_passages(workspace, MORE, 2024, {TDSS: "KDE", FLARES: "419"})


@pytest.mark.slow
def test_rates_pointers_dates_and_cite_keys(run_astro, fake, astro_env, more):
    """A density per square arcminute told for one per square degree, 2 arcmin standing on `Table 2.2`, a date's
    year changed, and Medina 2018 for `[medina20]` were all supported."""
    t, f = more[TDSS], more[FLARES]
    answer = (f"Targets were selected at a uniform density of 10 per square degree [{t}]. "
              f"Targets were selected at a uniform density of 10 per square arcminute [{t}]. "
              f"ZTF matches had to lie within 2 arcmin of the target [{t}]. "
              f"The spectra span MJD 51779 (23 August 2000) to MJD 58543 (1 March 2018) [{t}]. "
              f"Medina et al. (2020) found that the flare rate saturates for R_0 < 0.1 at 0.5 flares per day [{f}]. "
              f"Medina et al. (2018) found that the flare rate saturates for R_0 < 0.1 at 0.5 flares per day [{f}]. "
              f"Medina et al. (2020) found that the flare rate saturates for R_0 < 0.1 at 0.5 flares per hour [{f}].")
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": FLARES}}]})
    claims = claims_of(run_astro, fake, astro_env, TDSS, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported", "unsupported", "unsupported", "supported",
                                             "unsupported", "unsupported"]
    assert claims[1]["reason"] == "10 is per deg^2 in the passage, not per arcmin^2"
    assert str(claims[2]["reason"]).startswith("2 arcmin is not in the passage")
    assert claims[3]["reason"] == "1 March 2018 is not a date of the passage (it gives 2019 March 1)"
    assert str(claims[5]["reason"]).startswith("Medina (2018) is not what the passage cites")
    assert claims[6]["reason"] == "0.5 is per d in the passage, not per h"


POWERS = {
    TDSS: ("The Time-Domain Spectroscopic Survey: Stellar Variability", "Variability selection",
           "We require a TDSS star to have any of $\\chi^2$, Stetson J, or VarStat greater than the 90\\% level of the "
           "same statistic in the control sample in any filter. Additionally, we count a TDSS star as variable if it "
           "has $\\log{( FAP )} \\leq -5$ in any filter, or has a Xsigma statistic from 3.2 that exceeds the 99\\% "
           "level of the control sample in any given bin."),
    FLARES: ("Evolution of Flare Activity in GKM Stars Younger than 300 Myr", "Comparison",
             "\\citet{ilin21} used the K2 30-minute light curves for their analysis, compared with our TESS 2-minute "
             "light curves. Additionally, our sample has $\\sim 2 \\times$ the number of stars as in \\citet{ilin21}."),
}


@pytest.fixture
def powers(workspace: Path) -> dict[str, str]:
    return latex_passages(workspace, POWERS, 2024, {TDSS: "VarStat", FLARES: "K2"})


@pytest.mark.slow
def test_a_power_and_a_names_digits_are_no_values(run_astro, fake, astro_env, powers):
    """`χ²`'s 2 cut the claim into clauses (so the 90% sentence's `Stetson J or VarStat` never counted) and `K2`'s 2
    hid the word `K2`: the 99% level told of χ² and Ilin's 2-minute K2 cadence were supported."""
    t, f = powers[TDSS], powers[FLARES]
    answer = (f"A TDSS star must exceed the 90% level of the control sample in χ², Stetson J or VarStat [{t}]. "
              f"A TDSS star must exceed the 99% level of the control sample in χ², Stetson J or VarStat [{t}]. "
              f"Ilin et al. (2021) used 30-minute K2 light curves [{f}]. "
              f"Ilin et al. (2021) used 2-minute K2 light curves [{f}].")
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": FLARES}}]})
    claims = claims_of(run_astro, fake, astro_env, TDSS, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported", "supported", "unsupported"]
    assert claims[1]["reason"] == "99% is in the passage, but the sentence that fits the claim best gives 90%"
