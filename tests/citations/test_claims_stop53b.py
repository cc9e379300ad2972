"""Stop 53 follow-up (issue 43): the binding of a number to its quantity and object, read from the misses of
claims_set_53.json (development since the lead measured it once). Passages are that set's papers' own text
(Feinstein et al. 2024's table of young populations, Roulston et al.'s light-curve table). Each test fails on
s53-lead.
"""

from __future__ import annotations

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.row_labels import labelled_rows
from astro_cli.citations.support import check_support

AGES = (
    "[Caption: Adopted Ages of each Young Stellar Population and Number of Stars per Group, $N_ stars $]\n"
    "Population | Age [Myr] | N_{stars} | Ref.\n"
    "Carina | 45 ± 9 | 94 | 3\nCarina-Musca | 32 | 35 | 4\nLower Centaurus Crux | 15 | 761 | 6\n"
    "Pleiades | 127.4^{+6.3}_{−10} | 1421 | 2\nα Persei | 79_{−2.3}^{+1.5} | 625 | 2\n"
    "TW Hydrae | 10 | 24 | 3\nUpper Centaurus Lupus | 16 ± 2 | 696 | 6\nUpper Scorpius | 10 | 106 | 6\n"
    "Total |  | 6,824\nAge references: (1) [gagne18_abdmg]; (2) [galindo22]; (3) [Bell15]")
SURVEYS = (
    "[Caption: Light Curve Properties]\nLC Survey\nCSS | 21834 | 264 | 148 | 19.36 | 0.27\n"
    "ZTF g | 18718 | 197 | 203 | 20.22 | 0.15\nZTF r | 24313 | 311 | 223 | 19.59 | 0.11\n"
    "ZTF i | 15619 | 34 | 19 | 18.82 | 0.08\nStatistics of the three light curve surveys in our variable star "
    "sample. For each survey we report the number of stars, the mean number of epochs, the standard deviation of the "
    "number of epochs, the mean magnitude, and the mean magnitude error.")


def verdict(claim: str, passage: str) -> tuple[str, str]:
    [one], _ = split_claims(claim[:-1] + " [2405.90001:s2.1:c10].")
    found = check_support(one, passage)
    return found.status, found.reason


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The Pleiades contribute 1421 stars, at an adopted age of 127.4 Myr.", AGES, "supported"),
    ("The Pleiades contribute 1421 stars, at an adopted age of 79 Myr.", AGES, "unsupported"),
    ("Upper Scorpius, at 10 Myr, contributes 106 stars.", AGES, "supported"),
    ("TW Hydrae, at 10 Myr, contributes 106 stars.", AGES, "unsupported"),
    ("Upper Centaurus Lupus contributes 696 stars to the sample.", AGES, "supported"),
    ("Lower Centaurus Crux contributes 696 stars to the sample.", AGES, "unsupported"),
    ("Carina-Musca is 32 Myr old.", AGES, "supported"),  # the longer label, not Carina's row
    ("Alpha Persei is 79 Myr old.", AGES, "supported"),  # a Greek letter by its name
    ("The sample totals 6,824 stars over all populations.", AGES, "supported"),  # no row named
    ("ZTF r light curves have a mean magnitude of 19.59.", SURVEYS, "supported"),
    ("ZTF g light curves have a mean magnitude of 19.59.", SURVEYS, "unsupported"),
    ("CSS light curves have a mean magnitude error of 0.15.", SURVEYS, "unsupported"),
    ("CSS light curves have a mean magnitude error of 0.27.", SURVEYS, "supported"),
])
def test_a_table_row_binds_its_values(claim, passage, status):
    """row_labels.py: a claim naming a row's label takes its numbers from that row, not a neighbour's."""
    assert verdict(claim, passage)[0] == status


def test_the_reason_names_the_row_that_holds_the_number():
    assert verdict("TW Hydrae, at 10 Myr, contributes 106 stars.", AGES)[1] == (
        "106 is in the row of Upper Scorpius, not of TW Hydrae")


def test_a_header_line_and_a_caption_are_no_rows():
    labels = [label for label, _ in labelled_rows(AGES)]
    assert "Population" not in labels and labels[0] == "Carina" and "Total" in labels


ABSTRACT = ("We identified 26,355 flares originating from 3,160\\\nstars and robustly measure the rotation periods of "
            "1,847 stars. We measure and find the flare frequency distribution slope saturates.")


@pytest.mark.parametrize(("claim", "status"), [
    ("The authors measured rotation periods for 1,847 stars.", "supported"),
    ("The authors measured rotation periods for 3,160 stars.", "unsupported"),
])
def test_a_count_with_a_thousands_comma_is_no_year(claim, status):
    """binding.py: `1,847 stars` was read as a year, so it was never the rival that the claim's words point to."""
    assert verdict(claim, ABSTRACT)[0] == status


ZTF = ("In the ZTF $g$ filter there are $18,718$ stars ($\\sim$75%) from our sample that meet these criteria. These "
       "star's light curves have the following statistics: the median number of epochs is $149$, mean is $197$.\n\n"
       "In the ZTF $r$ filter there are $24,313$ stars ($\\sim$97%) from our sample that meet these criteria. These "
       "star's light curves have the following statistics: the median number of epochs is $279$, mean is $311$.")
ROSSBY = ("Our sample of $R_0 \\leq 0.12$ includes 13,132 flares from 800 stars; our sample of $R_0 > 0.12$ includes "
          "5,603 flares from 747 stars. We find the stars with smaller Rossby numbers have shallower slopes.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("18,718 stars, about 75% of the sample, have ZTF g light curves.", ZTF, "supported"),
    ("18,718 stars, about 97% of the sample, have ZTF g light curves.", ZTF, "unsupported"),
    ("The R_0 > 0.12 sample includes 5,603 flares from 747 stars.", ROSSBY, "supported"),
    ("The R_0 > 0.12 sample includes 5,603 flares from 800 stars.", ROSSBY, "unsupported"),
])
def test_values_written_together_stand_together(claim, passage, status):
    """together.py: two values of one claim taken from two parallel statements of the passage, each of which pairs
    one of them with a value of the other's kind, are a swap."""
    assert verdict(claim, passage)[0] == status


def test_the_swap_is_named():
    assert verdict("The R_0 > 0.12 sample includes 5,603 flares from 800 stars.", ROSSBY)[1] == (
        "5,603 and 800 are not stated together: the passage gives 5,603 with 747, and 800 with 13,132")


FINAL = ("Our final sample consists of 25,121 stars selected for variability in the TDSS program.\n\nThere are 21,093 "
         "($\\sim$84%) stars that have a CSS light curve and a light curve in at least one ZTF filter. There are also "
         "16,476 ($\\sim$66%) stars that have light curves in all three light curve surveys (i.e. CSS, ZTF $g$, ZTF $r$).")


@pytest.mark.parametrize(("claim", "status"), [
    # `all three surveys` in words is no rival of a count written in digits (it flagged the faithful claim)
    ("Of the final 25,121 stars, 16,476 (about two thirds) have light curves in CSS, ZTF g and ZTF r.", "supported"),
    # the 84% is 21,093's share: a swap across two parallel sentences (`i.e.` ends no sentence)
    ("Of the final 25,121 stars, 16,476 (about 84%) have light curves in all three surveys.", "unsupported"),
])
def test_a_number_in_words_is_no_rival_and_a_share_is_its_counts(claim, status):
    assert verdict(claim, FINAL)[0] == status


SECTORS = ("This process provided a final sample of 6,824 unique targets. These targets\nhave each been observed at a "
           "2-minute cadence between TESS Sector 1 and Sector 67;\nSector 67 was the latest available sector at the time "
           "that this analysis was performed.")


def test_between_and_is_one_span():
    """binding.py: the `and` of `between Sector 1 and Sector 67` parts no clause, so 67 keeps the words of its span
    (it was flagged as another quantity's value)."""
    claim = ("The final sample holds 6,824 unique targets observed at 2-minute cadence between TESS Sectors 1 and 67.")
    assert verdict(claim, SECTORS)[0] == "supported"


ILIN = ("Additionally, our sample has $\\sim 2 \\times$\nthe number of stars and $\\sim 7 \\times$ the number of flares "
        "as in [ilin21].\nFirst, we test if these discrepancies are driven by differences in sample binning. We "
        "reevaluate the FFDs assuming the $T_ eff $ bins presented in Table 3 of\n[ilin21]. We find $\\alpha$ remains "
        "consistent. Second, we reevaluate the\nFFDs assuming the total number of flares fit in [ilin21]. We draw\n"
        "$n_ fit, Ilin et al. (2021) $ [last column in Table 3 of ilin21]\nflares from our sample 100 times.")


@pytest.mark.parametrize(("claim", "status"), [
    ("Compared with Ilin et al. (2021), the sample has about twice as many stars and about seven times as many "
     "flares.", "supported"),
    ("Compared with Ilin et al. (2019), the sample has about twice as many stars.", "unsupported"),  # its year still
])
def test_a_study_compared_with_is_credited_no_value(claim, status):
    """credited.py: a claim comparing with a study does not say the study found its numbers (it was flagged)."""
    assert verdict(claim, ILIN)[0] == status


NSR = ("To derive the error model, we start with the noise-to-signal ratio (NSR) for an object with photon count $C$ "
       "and background noise $N_0$.\n\nIf we define $C=C_5$ when $ NSR = 1/5$, then we can solve for $N_0$.")


@pytest.mark.parametrize(("claim", "status"), [
    ("C_5 is the photon count at which the noise-to-signal ratio equals 0.2.", "supported"),
    ("C_5 is the photon count at which the noise-to-signal ratio equals 0.25.", "unsupported"),
])
def test_a_decimal_is_the_passages_fraction_in_figures(claim, status):
    """counts.py: `0.2` is the passage's `1/5` (it was flagged: `0.2 is not in the passage`)."""
    assert verdict(claim, NSR)[0] == status


TIC = ("we required that the distance between the target and\nthe nearest TIC target was within $<1\"$. We down-selected "
       "our sample to stars observed with TESS.")
GRID = "We use a set frequency grid for all light curves with $250,000$ steps of $0.46296$ nHz."


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The cross-match required the nearest TIC target to lie within 1 arcsec.", TIC, "supported"),
    ("The cross-match required the nearest TIC target to lie within 1 arcmin.", TIC, "unsupported"),
    ("The Lomb-Scargle frequency grid has 250,000 steps of 0.46296 nHz.", GRID, "supported"),
    ("The Lomb-Scargle frequency grid has 250,000 steps of 0.46296 μHz.", GRID, "unsupported"),
])
def test_arcseconds_as_a_double_quote_and_nanohertz_are_units(claim, passage, status):
    """units.py: `1"` is 1 arcsec and `nHz` a frequency, so `1 arcmin` and `μHz` are refuted (both were supported)."""
    assert verdict(claim, passage)[0] == status


SNR = ("We add photometric errors to the true $ugrizy$ magnitudes, and selected galaxies with a signal-to-noise ratio "
       "(SNR) greater than 5 in the $i$ band.\nFor the latent distribution we use a Uniform distribution over the range "
       "$[-5, 5]$.")
EPOCHS = ("In the ZTF $g$ filter there are $18,718$ stars. These star's light curves have the following statistics: the "
          "median number of epochs is $149$. 10% have greater than $432$ epochs.\n\nIn the ZTF $r$ filter there are "
          "$24,313$ stars. These star's light curves have the following statistics: the median number of epochs is "
          "$279$. 10% have greater than $583$ epochs.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("Galaxies with an i-band signal-to-noise ratio above 5 were kept.", SNR, "supported"),
    ("Galaxies with an r-band signal-to-noise ratio above 5 were kept.", SNR, "unsupported"),
    ("In ZTF r, 10% of the light curves have more than 583 epochs.", EPOCHS, "supported"),
    ("In ZTF g, 10% of the light curves have more than 583 epochs.", EPOCHS, "unsupported"),
])
def test_a_band_named_next_to_a_number_is_an_anchor(claim, passage, status):
    """bands.py: a number the passage gives only for another band (its sentence's, else its paragraph's)."""
    assert verdict(claim, passage)[0] == status


CONTROL = ("We crossed matched this sample with ZTF DR6 in the same method as the TDSS sample, and kept only objects "
           "with reported ZTF $\\chi^2 < 3$. The resulting control sample contains 67,006 objects.")
GPU = "For the main flow in Section 4, we trained for 200 epochs. Training took 7 minutes on a Tesla P100 12GB GPU."


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The control sample was cross-matched with ZTF DR6.", CONTROL, "supported"),
    ("The control sample was cross-matched with ZTF DR5.", CONTROL, "unsupported"),
    ("Training the main flow took 7 minutes on a Tesla P100 GPU.", GPU, "supported"),
    ("Training the main flow took 7 minutes on a Tesla V100 GPU.", GPU, "unsupported"),
    ("Training the main flow took 7 minutes on an A100-class GPU.", GPU, "supported"),  # no counterpart: a detail
])
def test_a_release_or_model_is_a_name_the_passage_must_give(claim, passage, status):
    """releases.py: `DR5` (a pointer's digits, never compared) and `V100` (no designation) passed."""
    assert verdict(claim, passage)[0] == status


@pytest.mark.parametrize(("sentence", "credits"), [
    ("As is known from surveys, young stars are more magnetically active than old ones.", True),
    ("As is well known, flare rates fall with age.", True),
    ("As shown in Figure 3, the flare rate falls with age.", False),
])
def test_as_is_known_credits_the_literature(sentence, credits):
    """credits.py: `As is known from surveys, ...` cited nothing and was no claim."""
    from astro_cli.citations.credits import credits_literature

    assert credits_literature(sentence) is credits


SPLIT = ("Of these, we randomly selected $10^6$ galaxies and split them into training and test sets consisting of 80% "
         "and 20% of the galaxies, respectively.")
GAIA = ("The two Gaia studies went about 1 mag fainter and reported 3003 and 1860 members, respectively.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The drawn galaxies were split into 80% for training and 20% for testing.", SPLIT, "supported"),
    ("The drawn galaxies were split into 20% for training and 80% for testing.", SPLIT, "unsupported"),
    ("The two Gaia studies that went about 1 mag fainter reported 3003 and 1860 members.", GAIA, "supported"),
])
def test_a_respectively_list_pairs_names_and_values_in_order(claim, passage, status):
    """respectively.py: `20% for training` where the passage's training set is 80% was supported."""
    assert verdict(claim, passage)[0] == status
