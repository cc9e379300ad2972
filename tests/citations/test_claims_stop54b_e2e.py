"""Stop 54 follow-up (issue 43), through the real `astro run --output-format json` process: the scripted model,
through the real litellm, reads a paper parsed from its LaTeX with get_paper_content, then answers. The text is
claims_set_54.json's coronal-loop paper's own (Reep et al. 2024, jwreep/ebtel_abundances, MIT). Each faithful
claim was flagged and each uncited literature claim missed on s54-lead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

LOOPS = "2405.95402"
TEXT = (
    "We examine loops of lengths 40 and 80 Mm, with various heating rates. Figure 3 shows two cases for loops of 40 "
    "and 80 Mm, with 5 heating events of 0.01 erg s$^{-1}$ cm$^{-3}$, spaced 300 s apart. The loops oscillate around "
    "temperatures of around 2.5 and 3.5 MK, respectively, during the heating period, before rapidly cooling. In both "
    "cases, the evaporation is prolonged for more than 30 minutes. We assume a spatially constant background of "
    "1e-5cts/pixel but allow the normalization to vary.")
SOURCES = {LOOPS: ("Modeling Time-Variable Elemental Abundances in Coronal Loop Simulations", "Results", TEXT)}


@pytest.fixture
def handle(workspace: Path) -> str:
    return latex_passages(workspace, SOURCES, 2024)[LOOPS]


@pytest.mark.slow
def test_units_written_as_the_field_writes_them_are_compared_after_conversion(run_astro, fake, astro_env, handle):
    """`40,000 km` is the passage's `40 ... Mm`, `2.5 × 10^6 K` its `2.5 ... MK`, `0.01 erg/s/cm^3` its `erg s^-1
    cm^-3`, `10^-5 counts per pixel` its `1e-5cts/pixel`, `half an hour` its `30 minutes`: all were flagged.
    `40 km` stays unsupported."""
    sentences = [
        "The examined loops have lengths of 40,000 km and 80,000 km",
        "During the heating period the loops oscillate around 2.5 × 10^6 K and 3.5 × 10^6 K respectively",
        "The heating events of the trains are 0.01 erg/s/cm^3 each and evaporation lasts more than half an hour",
        "A background of 10^-5 counts per pixel is assumed",
        "The examined loops have lengths of 40 km and 80 km"]
    claims = claims_of(run_astro, fake, astro_env, LOOPS, " ".join(f"{s} [{handle}]." for s in sentences))
    assert [c["status"] for c in claims] == ["supported"] * 4 + ["unsupported"]


@pytest.mark.slow
def test_a_fields_consensus_without_a_cite_is_an_uncited_claim(run_astro, fake, astro_env, handle):
    """`Solar physicists broadly agree that ...`, `There is little doubt among ... that ...` were no claims at all."""
    answer = (f"The loops are 40 and 80 Mm long [{handle}]. Solar physicists broadly agree that coronal heating is "
              "dominated by small impulsive nanoflares. There is little doubt among modellers that 0D codes "
              "reproduce loop cooling well.")
    claims = claims_of(run_astro, fake, astro_env, LOOPS, answer)
    assert [c["status"] for c in claims] == ["supported", "uncited", "uncited"]


JOLIDECO = "2405.95403"
FILAMENT = ("Note that a significant narrowing of the cross-sectional profile is seen. The width of the filament "
            "however is definitively $>0''$, suggesting that it is resolved in the Jolideco reconstruction.")


@pytest.mark.slow
def test_a_negation_written_as_a_prefix_is_unsupported(run_astro, fake, astro_env, workspace):
    """`remains unresolved` where the passage says `it is resolved` was supported (Donath et al., Jolideco paper,
    jolideco/jolideco-paper, MIT)."""
    handle = latex_passages(workspace, {JOLIDECO: ("Joint Deconvolution of Astronomical Images", "Results",
                                                   FILAMENT)}, 2024)[JOLIDECO]
    answer = (f"The filament is resolved in the Jolideco reconstruction [{handle}]. The filament remains unresolved "
              f"in the Jolideco reconstruction [{handle}].")
    claims = claims_of(run_astro, fake, astro_env, JOLIDECO, answer)
    assert [(c["status"], c.get("reason") or "") for c in claims] == [
        ("supported", ""), ("unsupported", "the passage says resolved, not unresolved")]


GALAXIES = "2405.95401"
HALOES = ("The haloes in the zoom-in simulations were identified using the MPI+OpenMP hybrid halo finder AHF2 "
          "[Knollmann2009] and we use the accompanying merger tree tool to trace the particle IDs.")


@pytest.mark.slow
def test_an_acronym_the_passage_lacks_beside_a_rival_is_unsupported(run_astro, fake, astro_env, workspace):
    """`identified with the SUBFIND halo finder` where the passage names AHF2 was supported (Buck et al.,
    TobiBu/GSE_merger, MIT)."""
    handle = latex_passages(workspace, {GALAXIES: ("The impact of early massive mergers", "Simulations", HALOES)},
                            2024)[GALAXIES]
    answer = (f"The haloes were identified with the AHF2 halo finder [{handle}]. The haloes were identified with the "
              f"SUBFIND halo finder [{handle}].")
    claims = claims_of(run_astro, fake, astro_env, GALAXIES, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
    assert "not SUBFIND" in str(claims[1]["reason"])


@pytest.mark.slow
def test_a_version_the_passage_does_not_give_is_unsupported(run_astro, fake, astro_env, workspace):
    """`CIAO v4.13` where the passage writes `CIAO v4.15` was supported: a version is no quantity of the claim."""
    text = "We reduced the data using CIAO v4.15 and a custom Snakemake workflow."
    handle = latex_passages(workspace, {JOLIDECO: ("Joint Deconvolution of Astronomical Images", "Data", text)},
                            2024)[JOLIDECO]
    answer = (f"The data were reduced using CIAO v4.15 and a custom Snakemake workflow [{handle}]. The data were "
              f"reduced using CIAO v4.13 and a custom Snakemake workflow [{handle}].")
    claims = claims_of(run_astro, fake, astro_env, JOLIDECO, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
    assert claims[1]["reason"] == "v4.13 is not a version the passage gives (it gives v4.15)"
