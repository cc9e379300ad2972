"""Stop 53 follow-up (issue 43) through the real `astro run --output-format json` process: the scripted model,
through the real litellm, reads a paper parsed from its LaTeX with get_paper_content, then answers. The text is
claims_set_53.json's papers' own (Feinstein et al. 2024's table of young populations, afeinstein20/young-stellar-
flares, MIT; Roulston et al.'s ZTF paragraphs, broulston/tdss-varstar-paper, MIT). Fails on s53-lead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

FLARES, TDSS = "2405.90001", "2405.90003"
SOURCES = {
    FLARES: ("Evolution of Flare Activity in GKM Stars Younger than 300 Myr", "Sample",
             "\\begin{table}\n\\caption{Adopted Ages of each Young Stellar Population}\n\\begin{tabular}{lccc}\n"
             "Population & Age [Myr] & $N_{stars}$ & Ref. \\\\\n\\hline\n"
             "Pleiades & $127.4^{+6.3}_{-10}$ & 1421 & 2 \\\\\n$\\alpha$ Persei & $79_{-2.3}^{+1.5}$ & 625 & 2 \\\\\n"
             "TW Hydrae & 10 & 24 & 3 \\\\\nUpper Scorpius & 10 & 106 & 6 \\\\\n\\end{tabular}\n\\end{table}"),
    TDSS: ("The Time-Domain Spectroscopic Survey: Stellar Variability", "ZTF light curves",
           "In the ZTF $g$ filter there are $18,718$ stars ($\\sim$75\\%) from our sample that meet these criteria. "
           "These star's light curves have the following statistics: the median number of epochs is $149$.\n\n"
           "In the ZTF $r$ filter there are $24,313$ stars ($\\sim$97\\%) from our sample that meet these criteria. "
           "These star's light curves have the following statistics: the median number of epochs is $279$."),
}
MARKS = {FLARES: "Pleiades", TDSS: "18,718"}


@pytest.fixture
def handles(workspace: Path) -> dict[str, str]:
    return latex_passages(workspace, SOURCES, 2024, MARKS)


@pytest.mark.slow
def test_a_table_rows_values_and_values_written_together(run_astro, fake, astro_env, handles):
    """α Persei's 79 Myr told of the Pleiades, Upper Scorpius's 106 stars told of TW Hydrae, and ZTF r's 97% told
    with ZTF g's 18,718 stars were all supported: each number stands somewhere in the passage."""
    f, t = handles[FLARES], handles[TDSS]
    answer = (f"The Pleiades contribute 1421 stars, at an adopted age of 127.4 Myr [{f}]. "
              f"The Pleiades contribute 1421 stars, at an adopted age of 79 Myr [{f}]. "
              f"TW Hydrae, at 10 Myr, contributes 106 stars [{f}]. "
              f"18,718 stars, about 75% of the sample, have ZTF g light curves [{t}]. "
              f"18,718 stars, about 97% of the sample, have ZTF g light curves [{t}].")
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": TDSS}}]})
    claims = claims_of(run_astro, fake, astro_env, FLARES, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported", "unsupported", "supported", "unsupported"]
    assert claims[1]["reason"] == "79 Myr is in the row of α Persei, not of Pleiades"
    assert claims[2]["reason"] == "106 is in the row of Upper Scorpius, not of TW Hydrae"
    assert str(claims[4]["reason"]).startswith("18,718 and 97% are not stated together")
