"""Stop 54 (issue 43): claims without a changed number — direction words, negation and detection, named things.
Passages are claims_set_53.json's papers' own text (development material). Each `unsupported` case was reported
supported on main; each `supported` case is a faithful paraphrase the rules must leave alone.
"""

from __future__ import annotations

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.directions import marks
from astro_cli.citations.named import names_of
from astro_cli.citations.negated import scopes
from astro_cli.citations.support import check_support
from astro_cli.citations.told_of import told_of_reason

SELIGMAN = ("[seligman22] found that stars with $R_0 < 0.13$ exhibited shallower FFD slopes than stars with "
            "$R_0 \\geq 0.13$ to several sigma significance. The differences in the FFDs were indicative of relatively "
            "more high-energy flares to low-energy flares.")
RECOVERY = ("We considered a flare recovered if the $t_ peak $ is within 15 minutes of the injected $t_ peak $. We are "
            "able to recover 93% of flares with $A \\geq 3$% and 80% of flares with $A < 3$%. This is consistent with "
            "previous results using this flare identification method [feinstein20].")
GALAXY = ("The first example galaxy in Figure 8 is at $z < 1$, and all flows in the ensemble return essentially the "
          "same narrow redshift posterior. This is typical for low-redshift galaxies.")
BRIGHT = ("As a final check, we performed an exhaustive by-eye verification of flares. These stars generally tend to "
          "have $T_ eff > 5000$ K and TESS magnitudes $< 8$. Therefore, their light curves are dominated by noise.")
GALEX = ("We searched for evidence of far- and near-Ultraviolet (FUV/NUV) flux saturation as a function of $R_0$, by "
         "cross matching our sample with the GALEX catalogs. We find no correlation between the FUV and NUV flux with "
         "flare rate (Figure 7). The NUV flux traces the photosphere for many of the stars in our sample.")
PLANETS = ("Flare rates are slightly diminished for the majority of planet hosting stars compared to the control "
           "sample. However, for all cases where the flare rates are diminished in the presence of a short-period "
           "planet, the difference between the flare rates are within 1$-\\sigma$ and not statistically significant.")
HUNTERS = ("The Planet Hunters citizen science project [Fischer:2012] reported five long-period candidates in our "
           "target list [Wang:2015]. Of these, we also find two (KIC 8410697 and KIC 10842718). We do not recover the "
           "three other candidates reported by [Wang:2015].")
JACKMAN = ("[jackman21] fit the three FFDs for M3-M5, M0-M2, and K5-K8 stars younger than 40 Myr that had been "
           "observed with Next Generation Transit Survey. TESS flare statistics for main sequence stars have "
           "indicated steeper FFDs [feinstein22_criticality].")
MONDRIK = ("[mondrik19] identified flares across 2,226 stars observed with MEarth and found an increase in flare rate "
           "between stars with low $R_0 < 0.04$ and stars with intermediate $R_0$.")
SPECTROGRAPH = ("SDSS-I/SDSS-II spectra were taken with the legacy SDSS spectrograph. These data have a wavelength "
                "range of 3900–9100Å with a resolution of $R \\sim 2000$. In SDSS-IV, the new eBOSS spectrograph "
                "[SDSS_spectrograph] has improved qualities compared to the legacy spectrograph. The eBOSS spectrograph "
                "covers the 3,600–10,400Å range, has a resolution of $R \\sim 2500$, and has a 1.7Å per pixel size.")
LLAMARADAS = ("We used the analytic flare model, Llamaradas Estelares which was presented in [tovar22], to fit and "
              "extract parameters of flares in all of the light curves of our sample. This model builds upon the model "
              "presented in [davenport14].")


def verdict(claim: str, passage: str) -> tuple[str, str]:
    [one], _ = split_claims(claim[:-1] + " [2405.90001:s2.1:c10].")
    found = check_support(one, passage)
    return found.status, found.reason


@pytest.mark.parametrize(("claim", "passage", "status", "reason"), [
    # direction words
    ("Seligman et al. (2022) found that stars with R_0 < 0.13 have steeper FFD slopes than stars with R_0 ≥ 0.13.",
     SELIGMAN, "unsupported", "the passage says shallower, not steeper"),
    ("Seligman et al. (2022) found that stars with R_0 < 0.13 have shallower FFD slopes than stars with R_0 ≥ 0.13.",
     SELIGMAN, "supported", ""),
    # two axes turned together say the same thing
    ("Seligman et al. (2022) found that stars with R_0 ≥ 0.13 have steeper FFD slopes than stars with R_0 < 0.13.",
     SELIGMAN, "supported", ""),
    ("93% of injected flares with A < 3% were recovered.", RECOVERY, "unsupported", "the passage says ≥, not <"),
    ("93% of injected flares with A ≥ 3% were recovered.", RECOVERY, "supported", ""),
    ("The first example galaxy lies above redshift 1.", GALAXY, "unsupported", "the passage says <, not above"),
    ("The first example galaxy lies below redshift 1.", GALAXY, "supported", ""),
    # on magnitudes, fainter is the larger number
    ("These stars tend to have T_eff > 5000 K and TESS magnitudes fainter than 8.", BRIGHT, "unsupported",
     "the passage says <, not fainter"),
    ("These stars tend to have T_eff > 5000 K and TESS magnitudes brighter than 8.", BRIGHT, "supported", ""),
    # negation and detection
    ("The GALEX NUV flux of the sample correlates with the flare rate.", GALEX, "unsupported",
     "the passage negates it: “no correlation between the FUV and NUV flux”"),
    ("The GALEX NUV flux of the sample shows no correlation with the flare rate.", GALEX, "supported", ""),
    ("Flare rates of planet-hosting stars are significantly lower than those of their control samples.", PLANETS,
     "unsupported", "the passage negates it: “not statistically significant”"),
    ("Flare rates of planet-hosting stars are slightly lower than those of their control samples.", PLANETS,
     "supported", ""),
    # a negation about other things is no negation of the claim's
    ("Planet Hunters candidates KIC 8410697 and KIC 10842718 were recovered by the search.", HUNTERS, "supported", ""),
    # named things
    ("Jackman et al. (2021) fitted the FFDs of young stars observed with Kepler.", JACKMAN, "unsupported",
     "the passage names Next Generation Transit Survey, not Kepler"),
    ("Jackman et al. (2021) fitted the FFDs of young stars observed with NGTS.", JACKMAN, "supported", ""),
    ("Mondrik et al. (2019) identified flares on 2,226 stars observed with TESS.", MONDRIK, "unsupported",
     "the passage names MEarth, not TESS"),
    ("The legacy SDSS spectrograph reaches a resolution of R ~ 2500.", SPECTROGRAPH, "unsupported",
     "the passage gives 2500 for eBOSS, not SDSS"),
    ("The eBOSS spectrograph reaches a resolution of R ~ 2500.", SPECTROGRAPH, "supported", ""),
    ("The Llamaradas Estelares flare model was presented by Davenport et al. (2014).", LLAMARADAS, "unsupported",
     "the passage credits Llamaradas Estelares to tovar, not Davenport"),
    ("The Llamaradas Estelares flare model was presented by Tovar et al. (2022).", LLAMARADAS, "supported", ""),
])
def test_claims_without_a_changed_number(claim: str, passage: str, status: str, reason: str) -> None:
    assert verdict(claim, passage) == (status, reason)


def test_direction_words_have_an_axis_and_a_sign() -> None:
    found = [(m.axis, m.sign) for m in marks("no more than 5, at least 3, steeper, before MJD 56715, later")]
    assert found == [("amount", -1), ("amount", 1), ("slope", 1), ("amount", -1), ("time", 1)]
    assert [(m.axis, m.sign) for m in marks("V magnitudes fainter than 20")] == [("amount", 1)]
    assert [(m.word, m.sign) for m in marks("not less than 2, fell short, anti-correlated")] == [
        ("not less than", 1), ("fell short", -1), ("anti-correlated", -1)]


def test_a_negation_covers_its_clause_but_not_a_bound() -> None:
    said = scopes("We find no correlation between the FUV and NUV flux, and the rate is high.")
    assert "correl" in said.negated and "rate" in said.plain
    assert not scopes("Three-transit searches cannot detect periods beyond about two years.").negated


def test_proper_names_are_capitals_acronyms_and_mixed_case() -> None:
    found = [n for n, _ in names_of("The eBOSS spectrograph of SDSS, unlike MEarth, sees 0.1 mHz in Figure 3")]
    assert found == ["eBOSS", "SDSS", "MEarth"]


LIMIT = ("No transit of the outer companion is seen in the TESS data. We place an upper limit of 0.3% on the transit "
         "depth of the outer companion.")


@pytest.mark.parametrize(("claim", "status"), [
    ("A transit of the outer companion was detected with a depth of 0.3%.", "unsupported"),
    ("The transit depth of the outer companion has an upper limit of 0.3%.", "supported"),
])
def test_an_upper_limit_is_no_detection(claim: str, status: str) -> None:
    assert verdict(claim, LIMIT)[0] == status


REQUIREMENTS = ("You can see that PZFlow meets the bias and scatter requirements up to redshift $\\sim$ 1.5. PZFlow "
                "meets the outlier requirements for all redshifts.")
KEPLER = ("For Kepler, with a baseline of about four years, this sets an absolute upper limit of about two years on "
          "the range of detectable periods.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    # a negated comparison is a bound where the passage states one, a negation where it states none
    ("PZFlow fails the outlier-fraction requirement above redshift 1.5.", REQUIREMENTS, "unsupported"),
    ("PZFlow meets the outlier-fraction requirement above redshift 1.5.", REQUIREMENTS, "supported"),
    ("With a four-year baseline, Kepler cannot detect periods beyond about two years.", KEPLER, "supported"),
])
def test_a_negated_comparison(claim: str, passage: str, status: str) -> None:
    assert verdict(claim, passage)[0] == status


MEMBERS = ("TIC 272349442 is a candidate member of TW Hydrae ($t_ age = 10 \\pm 3$ Myr), TIC 235056185 and 260351540 "
           "are candidate members of IC 2602 ($t_ age = 52.5 \\pm 2.95$ Myr), and TIC 391745863 and 393490554 are "
           "candidate members of the AB Doradus Moving Group ($t_ age = 133 \\pm 12.5$ Myr).")


@pytest.mark.parametrize(("claim", "status", "reason"), [
    ("TIC 235056185 and TIC 260351540 are candidate members of the AB Doradus Moving Group.", "unsupported",
     "the passage tells TIC 260351540 of IC 2602, not AB Doradus Moving Group"),
    ("TIC 235056185 and TIC 260351540 are candidate members of IC 2602.", "supported", ""),
    ("TIC 391745863 is a candidate member of the AB Doradus Moving Group.", "supported", ""),
])
def test_an_object_told_of_another_group(claim: str, status: str, reason: str) -> None:
    assert verdict(claim, MEMBERS)[0] == status
    [one], _ = split_claims(claim[:-1] + " [2405.90001:s4.2:c47].")
    assert (told_of_reason(one, MEMBERS) or "") == reason


LOYD = ("Additionally, [loyd21] evaluated the relationship between FUV emission lines and $R_0$ for 12 Tucana-Horologium "
        "($t_ age = 40$ Myr), 9 Hyades ($t_ age = 650$ Myr), and 7 field-aged ($t_ age = 2-10$ Gyr) M stars.")


@pytest.mark.parametrize(("claim", "status"), [
    ("Loyd et al. (2021) evaluated 9 Hyades M stars aged 40 Myr.", "unsupported"),
    ("Loyd et al. (2021) evaluated 9 Hyades M stars aged 650 Myr.", "supported"),
    ("Loyd et al. (2021) evaluated 12 Tucana-Horologium M stars aged 40 Myr.", "supported"),
])
def test_a_value_in_a_parenthesis_belongs_to_the_name_before_it(claim: str, status: str) -> None:
    assert verdict(claim, LOYD)[0] == status


def test_more_antonym_pairs() -> None:
    """Pairs no development claim used, on a passage of the first set's paper (Moe & Kratter's binaries)."""
    passage = ("If secondaries host planets at the same rate as primaries, the occurrence rate of small planets is "
               "underestimated by about 10% when binaries are ignored.")
    assert verdict("If secondaries host planets at the same rate as primaries, the occurrence rate of small planets "
                   "is overestimated by about 10% when binaries are ignored.", passage)[0] == "unsupported"
    assert verdict("If secondaries host planets at the same rate as primaries, the occurrence rate of small planets "
                   "is underestimated by about 10% when binaries are ignored.", passage)[0] == "supported"
    assert [(m.axis, m.sign) for m in marks("a more massive star")] == [("mass", 1)]


DROP = ("We note that there is a steep drop-off in flare recovery rate at $T_ mag > 13$, with average recovery rates "
        "dropping from 90% to 70%.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    # the sides of `than` tell a comparison told the other way round from one turned around
    ("Seligman et al. (2022) reported that FFD slopes are steeper for stars with R_0 < 0.13 than for stars with "
     "R_0 ≥ 0.13.", SELIGMAN, "unsupported"),
    ("Stars with R_0 ≥ 0.13 show steeper FFD slopes than stars with R_0 < 0.13.", SELIGMAN, "supported"),
    # a verb has no sides
    ("Flare recovery rises steeply for T_mag > 13, from about 90% to 70%.", DROP, "unsupported"),
    ("Flare recovery drops steeply for T_mag > 13, from about 90% to 70%.", DROP, "supported"),
    # the clause sharing the claim's figure is the one it rests on
    ("Only 80% of injected flares with A < 3% were recovered.", RECOVERY, "supported"),
    ("80% of injected flares with A ≥ 3% were recovered.", RECOVERY, "unsupported"),
])
def test_the_sides_of_a_comparison_and_the_clause_it_rests_on(claim: str, passage: str, status: str) -> None:
    assert verdict(claim, passage)[0] == status


CENTERED = ("It is therefore more convenient to use a modified Beta distribution, which we name the Centered Beta "
            "distribution. We give this generalization the name latent-adaptive flows (LAFs; inspired by the Tail "
            "Adaptive Flows of [jaini2020]).")


@pytest.mark.parametrize(("claim", "status"), [
    ("The Centered Beta latent distribution was introduced by Jaini et al. (2020).", "unsupported"),
    ("Jaini et al. (2020) introduced Tail Adaptive Flows.", "supported"),
])
def test_a_name_the_passage_coins_is_credited_to_no_one_else(claim: str, status: str) -> None:
    assert verdict(claim, CENTERED)[0] == status
