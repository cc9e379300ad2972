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
