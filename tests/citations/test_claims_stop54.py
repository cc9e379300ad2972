"""Stop 54 (issue 43, numbers): the sentence that fits a claim best decides its value (best_fit.py), and two lists
of one length pair in order without `respectively` (in_order.py). Passages are the development sets' papers' own
text (Crenshaw et al. 2024's training appendix, jfcrenshaw/pzflow-paper, MIT; Feinstein et al. 2024's FFD section,
afeinstein20/young-stellar-flares, MIT; Bouma et al. 2021's NGC 2516 tangential velocities). Each test of a wrong
claim fails on main (8560797), each faithful twin passes on both.
"""

from __future__ import annotations

import pytest

from astro_cli.citations.best_fit import best_fit_reason
from astro_cli.citations.claims import split_claims
from astro_cli.citations.in_order import in_order_reason
from astro_cli.citations.support import check_support, union_verdict

TRAINING = (
    "In this section we list some technical details of training the normalizing flows.\n\n"
    "For the main flow in Section 4, we trained for 200 epochs.\n"
    "We used the Adam optimizer [adam], starting with a learning rate of $10^{-5}$.\n"
    "We decreased the learning rate by a factor of 10 after the 100th and 150th epochs.\n"
    "Training took 7 minutes on a Tesla P100 12GB GPU.\n\n"
    "For the conditional flow in 4, we trained for 600 epochs.\n"
    "Again, we used Adam with an initial learning rate of $10^{-5}$.\n"
    "We decreased the learning rate by a factor of 10 every 200 epochs.\n\n"
    "For each of the flows that make up the flow ensemble in Section 5, we trained for 200 epochs using the Adam "
    "optimizer.\nWe started each with a learning rate of $10^{-4}$, which we decreased by a factor of 10 after the "
    "100th and 150th epochs.\nEach flow achieved nearly the same training loss.")
VELOCITY = (
    "In projection-corrected tangential velocity space, the fraction of\nstars with rotation period detections "
    "remains high out to roughly\n5 km s$^{-1}$. [meingast_2021] by comparison required a physically\nmotivated cut "
    "in tangential velocity space of 1.5 km s$^{-1}$. Our results\nshow that at the expense of higher field star "
    "contamination rates,\nbonafide members can be identified even out at higher velocity\nseparations.")
SLOPES = (
    "Overall, we measure a shallower FFD for stars of all masses at $t_ age < 300$ Myr.\n"
    "The measured FFD slopes\nare shallower than those measured using smaller samples of young stars. [jackman21]\n"
    "fit the three FFDs for M3-M5, M0-M2, and K5-K8 stars younger than 40 Myr that had been\nobserved with Next "
    "Generation Transit Survey. They measured slopes of $0.94 \\pm 0.04$,\n$0.69 \\pm 0.05$, $0.82 \\pm 0.14$ per bin, "
    "which each contained $\\leq 120$ flares.")


def claim_of(text: str):
    [one], _ = split_claims(text[:-1] + " [2405.90002:sA:c59].")
    return one


def verdict(text: str, passage: str) -> tuple[str, str]:
    found = check_support(claim_of(text), passage)
    return found.status, found.reason


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The conditional flow trained for 200 epochs.", TRAINING, "unsupported"),  # the main flow's and the ensemble's
    ("The conditional flow trained for 600 epochs.", TRAINING, "supported"),
    ("The main flow trained for 200 epochs from a learning rate of 10^-4.", TRAINING, "unsupported"),  # the ensemble's
    ("The main flow trained for 200 epochs from a learning rate of 10^-5.", TRAINING, "supported"),
    ("Each flow of the ensemble trained for 200 epochs from a learning rate of 10^-4.", TRAINING, "supported"),
    ("The fraction of stars with rotation detections stays high only out to about 1.5 km/s in tangential velocity.",
     VELOCITY, "unsupported"),  # Meingast's cut
    ("The fraction of stars with rotation detections stays high out to about 5 km/s in tangential velocity.",
     VELOCITY, "supported"),
    ("Meingast et al. (2021) cut at 1.5 km/s in tangential velocity.", VELOCITY, "supported"),
])
def test_the_sentence_that_fits_best_decides(claim, passage, status):
    """best_fit.py: a value standing only in sentences that share fewer of the claim's words than a sentence giving
    another value of its kind is that other sentence's subject's, not the claim's."""
    assert verdict(claim, passage)[0] == status


def test_the_reason_names_the_value_of_the_sentence_that_fits():
    reason = best_fit_reason(claim_of("The conditional flow trained for 200 epochs."), TRAINING)
    assert reason == "200 is in the passage, but the sentence that fits the claim best gives 600"


@pytest.mark.parametrize("claim", [
    "The training took 7 minutes on a Tesla P100 GPU.",  # one value of its kind: nothing to compare
    "The learning rate fell by a factor of 10 after the 100th and 150th epochs.",  # stated in the best sentence
    "The learning rate fell by a factor of 10 every 200 epochs.",  # another 200 elsewhere fits worse: no matter
])
def test_a_value_in_the_sentence_that_fits_is_left_alone(claim):
    assert best_fit_reason(claim_of(claim), TRAINING) is None


def test_one_sentence_is_left_to_its_clauses():
    """Two values in one sentence are binding.py's to part (its clauses), not this rule's."""
    passage = ("The published rate is $0.057_{-0.017}^{+0.022}$ and our posterior constraint is "
               "$0.019_{-0.008}^{+0.010}$. The rate density of Earth analogs is $0.019$ per star.")
    assert best_fit_reason(claim_of("Our posterior constraint on the published rate is 0.019."), passage) is None


@pytest.mark.parametrize(("claim", "status"), [
    ("Jackman et al. (2021) measured a slope of 0.69 ± 0.05 for K5–K8 stars younger than 40 Myr.", "unsupported"),
    ("Jackman et al. (2021) measured a slope of 0.69 ± 0.05 for M0–M2 stars younger than 40 Myr.", "supported"),
    ("Jackman et al. (2021) measured a slope of 0.94 ± 0.04 for M3-M5 stars younger than 40 Myr.", "supported"),
    ("Jackman et al. (2021) measured a slope of 0.94 ± 0.04 for K5-K8 stars younger than 40 Myr.", "unsupported"),
])
def test_two_lists_pair_in_order_without_respectively(claim, status):
    """in_order.py: `for M3-M5, M0-M2, and K5-K8 stars ... slopes of 0.94, 0.69, 0.82`: the second slope is M0-M2's."""
    assert verdict(claim, SLOPES)[0] == status


def test_the_reason_names_the_item_in_the_values_place():
    reason = in_order_reason(claim_of("Jackman et al. measured a slope of 0.69 ± 0.05 for K5–K8 stars."), SLOPES)
    assert reason is not None and reason.startswith("0.69 ± 0.05 is the passage's value for M0-M2")


@pytest.mark.parametrize("passage", [
    # common words are no names: their list pairs with the numbers after it by chance
    "We describe the members as the core and halo of the cluster. This implies 1,106 and 2,192 members.",
    # a stray value between the list and the run: no run of as many values right after
    "The fits for M3-M5 and K5-K8 stars took 3 days. Slopes were 0.94 and within 0.3 of 0.69.",
    # values of two kinds are no list of one quantity
    "We observed TOI-700 and TOI-270 for 12 hours and 0.5 mag.",
])
def test_lists_that_do_not_pair(passage):
    assert in_order_reason(claim_of("The halo of TOI-270 with K5-K8 has 1,106 members and 0.94 and 12 hours."),
                           passage) is None


ZTF = ("We also cross-matched our sample to the Zwicky Transient Facility DR5 [ZTF; ZTF_1, ZTF_2, ZTF_3]. We used "
       "the same matching criteria as for the CSS light curves, requiring a match to be within 2″ of our target "
       "coordinates and each star having greater than $10$ epochs in each of the available ZTF filters.\n\n"
       "In this sample, there are 18,651 ($\\sim$74%) stars that have light curves in both the ZTF $g$ and $r$ "
       "filters. A summary of light curve statistics are reported in Table 2.2 for all ZTF filters.")
GPU = ("Training took 7 minutes on a Tesla P100 12GB GPU.\n"
       "The training loss for this flow is in the left panel of Figure 12.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("ZTF matches had to lie within 2 arcmin of the target.", ZTF, "unsupported"),  # only Table 2.2's number
    ("ZTF matches had to lie within 2 arcsec of the target coordinates.", ZTF, "supported"),
    ("Training took 7 minutes on a 12 GB Tesla P100 GPU.", GPU, "supported"),  # `12GB` is written, though not read
])
def test_a_pointers_number_is_no_value(claim, passage, status):
    """pointers.py: the `2.2` of `Table 2.2` is no value a claim's `2 arcmin` can stand on."""
    assert verdict(claim, passage)[0] == status


HOSTS = ("[Caption: Young Planet Host Flare Rates]\n"
         "Host Name | Age | Flare Rate | Comp. Sample | N | [Myr] | [day^{−1}] | Flare Rate [day^{−1}]\n"
         "AU Mic | 22 ± 3 | 2.218 | 0.104_{−0.066}^{+0.188} | 590\n"
         "V1298 Tau | 23 ± 4 | 0.022 | 0.116_{−0.07}^{+0.107} | 300\n"
         "DS Tuc | 45 ± 4 | 0.420 | 0.104_{−0.061}^{+0.104} | 281")
DENSITY = ("The KDE was used to determine the probability that each object is variable. This was used to select a "
           "uniform 10 objects $\\deg^{-2}$ to match the TDSS fiber allocation in the SDSS-IV.")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("V1298 Tau, 23 ± 4 Myr old, has a flare rate of 0.022 per hour.", HOSTS, "unsupported"),
    ("V1298 Tau, 23 ± 4 Myr old, has a flare rate of 0.022 per day.", HOSTS, "supported"),
    ("V1298 Tau, 23 ± 4 Myr old, has a flare rate of 0.022 flares/day.", HOSTS, "supported"),
    ("Variable objects were selected at a uniform density of 10 per square arcminute.", DENSITY, "unsupported"),
    ("Variable objects were selected at a uniform density of 10 per square degree.", DENSITY, "supported"),
    ("Variable objects were selected at a uniform density of 10 per degree.", DENSITY, "unsupported"),
])
def test_a_rate_is_per_its_unit(claim, passage, status):
    """rates.py: `per hour` is not the header's `[day^{-1}]`; `per square arcminute` is not `deg^{-2}`."""
    assert verdict(claim, passage)[0] == status


MEDINA = ("Additionally, [medina20] found a broken power-law relationship between $R_0$ and the flare rate. "
          "[medina20] analyzed light curves of 419 low-mass main-sequence stars in the Solar neighborhood observed by "
          "TESS. They found that the flare rate saturates at $log(R) = -1.30 \\pm 0.08$ for $R_0 < 0.1$.")
ILIN = ("[ilin21] used the K2 30-minute light curves for their analysis, compared with our TESS 2-minute light curves. "
        "Additionally, our sample has $\\sim 2 \\times$ the number of stars as in [ilin21].")


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("Medina et al. (2018) found that the flare rate saturates for R_0 < 0.1.", MEDINA, "unsupported"),
    ("Medina et al. (2020) found that the flare rate saturates for R_0 < 0.1.", MEDINA, "supported"),
    ("Medina et al. (2021) found that the flare rate saturates for R_0 < 0.1.", MEDINA, "supported"),  # e-print year
    ("Ilin et al. (2021) used 2-minute K2 light curves.", ILIN, "unsupported"),  # TESS's cadence; K2's is 30
    ("Ilin et al. (2021) used 30-minute K2 light curves.", ILIN, "supported"),
])
def test_sources_by_their_cite_keys_and_names_digits(claim, passage, status):
    """credited.py reads a cite key's two-digit year (`[medina20]`); binding.py reads `K2`'s 2 as a name, not a
    value, so `K2` is a word that ties `30-minute` to the claim."""
    assert verdict(claim, passage)[0] == status


SPAN = ("This includes all spectra up to an MJD of 58543 (2019 March 1). Our spectroscopic sample, therefore, "
        "covers spectra from SDSS-I – SDSS-IV, and span MJDs from 51779 (2000 August 23) to 58543 (2019 March 1), "
        "with 90% having an observation MJD $> 56715$ (2014 February 27), near the beginning of SDSS-IV. The majority "
        "of the variable stars in our sample are from the TDSS SES program.")


@pytest.mark.parametrize(("claim", "status"), [
    ("The spectra span MJD 51779 (23 August 2000) to MJD 58543 (1 March 2018).", "unsupported"),
    ("The spectra span MJD 51779 (23 August 2000) to MJD 58543 (1 March 2019).", "supported"),
    ("The spectra span MJD 51779 (August 23, 2000) to MJD 58543 (2019-03-01).", "supported"),
    ("The last spectra of the sample were taken in March 2019, at MJD 58543.", "supported"),
    ("The last spectra of the sample were taken in May 2019, at MJD 58543.", "unsupported"),
])
def test_a_date_is_compared_whole(claim, status):
    """dates.py: a date's year is no value quantities.py compares; the date is compared whole."""
    assert verdict(claim, SPAN)[0] == status


CUT = ("We require a TDSS star to have any of $\\chi^2$, Stetson J, or VarStat greater than the 90% level of the same "
       "statistic in the control sample in any filter. Additionally, we count a TDSS star as variable if it has "
       "$\\log{( FAP )} \\leq -5$ in any filter, or has a Xsigma statistic from 3.2 that exceeds the 99% level of the "
       "control sample in any given bin.")


@pytest.mark.parametrize(("claim", "status"), [
    ("A TDSS star must exceed the 99% level of the control sample in χ², Stetson J or VarStat.", "unsupported"),
    ("A TDSS star must exceed the 90% level of the control sample in χ², Stetson J or VarStat.", "supported"),
    ("A TDSS star counts as variable when its Xsigma exceeds the 99% level of the control sample.", "supported"),
])
def test_a_power_is_no_value(claim, status):
    """claims.py: the `²` of `χ²` is its power, not a second value that cut the claim into clauses, so the claim's
    words `Stetson J or VarStat` point to the 90% sentence (best_fit.py)."""
    assert verdict(claim, CUT)[0] == status


def test_powers_of_symbols_and_units_are_not_quantities():
    assert [q.text for q in claim_of("A fit gives χ² = 1.3 over 5 km² and $\\chi^2$ of 1.1.").quantities] == [
        "1.3", "5 km", "1.1"]


ENSEMBLE = ("We train an ensemble of 4 normalizing flows, each with the same architecture and training schedule as the "
            "regular flow described in Section 4.")


@pytest.mark.parametrize(("claim", "status"), [
    ("Each of the five ensemble flows was trained for 200 epochs, like the main flow.", "unsupported"),
    ("Each of the four ensemble flows was trained for 200 epochs, like the main flow.", "supported"),
])
def test_a_count_in_words_is_no_sections_number(claim, status):
    """pointers.py, for a claim citing two passages read together (`[c44; c59]`): `five` found only `Section 5`."""
    [one], _ = split_claims(claim[:-1] + " [2405.90002:s5.1:c44; 2405.90002:sA:c59].")
    assert union_verdict(one, [("2405.90002:s5.1:c44", ENSEMBLE), ("2405.90002:sA:c59", TRAINING)]).status == status
