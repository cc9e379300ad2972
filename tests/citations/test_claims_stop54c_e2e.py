"""Stop 54, second follow-up (issue 43), through the real `astro run --output-format json` process: the scripted
model, through the real litellm, reads a paper parsed from its LaTeX with get_paper_content, then answers. The table
is claims_set_55.json's binaries paper's own (Britavskiy et al. 2024, NikolayBritavskiyAstro/fast_rotating_binaries,
MIT): one column per object. Each faithful claim was flagged and the wrong one supported on s54-lead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.claims_support import claims_of, latex_passages

BINARIES = "2405.95502"
TABLE = (
    "\\begin{table}\n\\caption{Basic physical and orbital parameters of three fast-rotating SB1 systems.}\n"
    "\\begin{tabular}{lccc}\n"
    "Target & HD 25631 & HD 191495 & HD 46485 \\\\\n\\hline\n"
    "$T_{\\rm eff,1}$ [kK] & 19.9 $\\pm$ 0.5 & 28.2 $\\pm$ 1.3 & 36.1 $\\pm$ 0.7 \\\\\n"
    "$v\\sin i$ [km s$^{-1}$] & 221 $\\pm$ 10 & 201 $\\pm$ 10 & 334 $\\pm$ 16 \\\\\n"
    "age [Myr] & 9.6 $\\pm$ 9.4 & 7.6 $\\pm$ 1.8 & 2.5 $\\pm$ 1.1 \\\\\n"
    "$P$ [d] & 5.2 & 3.6 & 6.9 \\\\\n\\end{tabular}\n\\end{table}")
SOURCES = {BINARIES: ("Tracing the evolution of short-period binaries with super-synchronous fast rotators",
                      "Sample", TABLE)}


@pytest.fixture
def handle(workspace: Path) -> str:
    return latex_passages(workspace, SOURCES, 2024, {BINARIES: "HD 191495"})[BINARIES]


@pytest.mark.slow
def test_a_table_of_one_column_per_object_is_read_by_column(run_astro, fake, astro_env, handle):
    """HD 191495's v sin i and period, and HD 46485's 36.1 kK as 36,100 K, were flagged (`... is not in the row
    of ...`: the row ran along the header); HD 191495's 7.6 Myr told of HD 46485 was supported."""
    sentences = [
        "HD 191495 rotates with v sin i = 201 ± 10 km s^-1",
        "HD 191495 has an orbital period of 3.6 days",
        "The primary of HD 46485 has an effective temperature of 36.1 ± 0.7 kK, about 36,100 K",
        "HD 46485 is about 7.6 ± 1.8 Myr old"]
    claims = claims_of(run_astro, fake, astro_env, BINARIES, " ".join(f"{s} [{handle}]." for s in sentences))
    assert [c["status"] for c in claims] == ["supported"] * 3 + ["unsupported"]


CORONA = "2405.95501"
STAR = (  # Ilin et al. 2023 (ekaterinailin/xmm_for_tic277, MIT), Table 1
    "\\begin{table}\n\\caption{Stellar properties of TIC 277539431}\n\\begin{tabular}{ll}\n"
    "Parameter & Value \\\\\n\\hline\n"
    "Alternative ID & WISEA J105515.71-735611.3 \\\\\n"
    "Distance $d$ & $13.70 \\pm 0.11$ pc \\\\\n"
    "Projected rot. velocity $v\\sin i$ & $38.6 \\pm 1.0$ km/s \\\\\n"
    "Radius $R$ & $0.145 \\pm 0.004$ R$_\\odot$ \\\\\n\\end{tabular}\n\\end{table}")


@pytest.fixture
def star(workspace: Path) -> str:
    sources = {CORONA: ("The corona of a fully convective star with a near-polar flare", "Introduction", STAR)}
    return latex_passages(workspace, sources, 2023, {CORONA: "13.70"})[CORONA]


@pytest.mark.slow
def test_a_table_of_one_object_named_in_its_caption_is_all_its_row(run_astro, fake, astro_env, star):
    """TIC 277539431's distance, and its v sin i and radius under the paper's short form `TIC 277`, were flagged
    (`the passage is about something else`, `277 is not in the passage`); a changed unit stays unsupported."""
    sentences = [
        "TIC 277539431 lies 13.70 ± 0.11 pc from the Sun",
        "TIC 277's projected rotational velocity is 38.6 ± 1 km s^-1",
        "TIC 277's radius is 0.145 ± 0.004 R_sun",
        "TIC 277's projected rotational velocity is 38.6 ± 1.0 m/s"]
    claims = claims_of(run_astro, fake, astro_env, CORONA, " ".join(f"{s} [{star}]." for s in sentences))
    assert [c["status"] for c in claims] == ["supported"] * 3 + ["unsupported"]


@pytest.mark.slow
def test_a_body_of_work_and_a_view_taken_as_given_are_uncited_claims(run_astro, fake, astro_env, star):
    """`A growing body of work suggests that ...` and `Most authors now take it as given that ...` were no claims."""
    answer = (f"TIC 277539431 lies 13.70 ± 0.11 pc from the Sun [{star}]. A growing body of work suggests that rapid "
              "rotators preferentially host flares close to their poles. Most authors now take it as given that "
              "rapidly rotating O stars are products of binary mass transfer.")
    claims = claims_of(run_astro, fake, astro_env, CORONA, answer)
    assert [c["status"] for c in claims] == ["supported", "uncited", "uncited"]


FILTERS = ("We used AltaiPony to de-trend the light curves. The procedure begins with a 3rd order spline fitting of "
           "coarse trends, followed by iterative sine fitting to remove rotational modulation, and two Savitzky-Golay "
           "filters with a $6\\,$h and $3\\,$h window, respectively to remove aperiodic short term trends.")


@pytest.mark.slow
def test_a_respectively_list_with_a_count_for_an_item_pairs_nothing(run_astro, fake, astro_env, workspace):
    """The faithful claim was flagged (`6 h is the passage's value for modul, not for two`); 9 h stays unsupported."""
    sources = {CORONA: ("The corona of a fully convective star with a near-polar flare", "Flare search", FILTERS)}
    handle = latex_passages(workspace, sources, 2023)[CORONA]
    answer = (f"The two Savitzky-Golay filters used windows of 6 h and 3 h [{handle}]. "
              f"The two Savitzky-Golay filters used windows of 6 h and 9 h [{handle}].")
    claims = claims_of(run_astro, fake, astro_env, CORONA, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]


OBLIQUITY = "2405.95503"
HYPERPRIORS = ("Notably, when applying the framework to a small sample size with $N \\lesssim 50$, the choice of "
               "hyperpriors for the Beta distribution could impact the inferred distribution.")


@pytest.mark.slow
def test_a_bound_written_after_the_counted_noun(run_astro, fake, astro_env, workspace):
    """`about 50 systems or fewer` was flagged as a measured 50; `or more` stays unsupported."""
    sources = {OBLIQUITY: ("The stellar obliquity distribution", "Method", HYPERPRIORS)}
    handle = latex_passages(workspace, sources, 2024)[OBLIQUITY]
    claim = "For samples of about 50 systems or {}, the choice of hyperpriors can change the inferred distribution"
    answer = f"{claim.format('fewer')} [{handle}]. {claim.format('more')} [{handle}]."
    claims = claims_of(run_astro, fake, astro_env, OBLIQUITY, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]


SYSTEMS = (
    "\\begin{table}\n\\caption{Basic physical and orbital parameters for systems with a known fast-rotating OB star.}\n"
    "\\begin{tabular}{llccl}\nTarget & SpC & $v\\sin i$ & $P$ & Reference \\\\\n"
    " & & [km s$^{-1}$] & [d] & \\\\\n\\hline\n"
    "HD 163892 & O9.5 IV(n) & 201 & 7.8 & Mahy 2022 \\\\\n"
    "HD 165246 & O8 V(n) & 254 & 4.6 & Johnston 2021 \\\\\n\\end{tabular}\n\\end{table}")


@pytest.mark.slow
def test_a_tables_unit_line_gives_each_column_its_unit(run_astro, fake, astro_env, workspace):
    """`254 m/s` was supported (the unit stood in a line of brackets under the header); `254 km/s` stays supported."""
    sources = {BINARIES: ("Tracing the evolution of short-period binaries with super-synchronous fast rotators",
                          "Known systems", SYSTEMS)}
    handle = latex_passages(workspace, sources, 2024, {BINARIES: "HD 165246"})[BINARIES]
    answer = f"HD 165246 has v sin i = 254 km/s [{handle}]. HD 165246 has v sin i = 254 m/s [{handle}]."
    claims = claims_of(run_astro, fake, astro_env, BINARIES, answer)
    assert [c["status"] for c in claims] == ["supported", "unsupported"]
