"""Stop 54, second follow-up (issue 43): faithful claims the check flagged on s54-lead, by cause. Passages are
claims_set_55.json's papers' own text as astro renders it (development material since the lead's one held-out
measurement): the binaries table of Britavskiy et al. 2024
(NikolayBritavskiyAstro/fast_rotating_binaries, MIT). Each `supported` case was flagged on s54-lead; each
`unsupported` case is the wrong twin the rule must still catch.
"""

from __future__ import annotations

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.credits import credits_literature
from astro_cli.citations.names import rows_of, squash
from astro_cli.citations.object_columns import object_column
from astro_cli.citations.support import check_support

BINARIES = (
    "[Caption: Basic physical and orbital parameters of three fast-rotating SB1 systems.]\n"
    "Target | HD 25631 | HD 191495 | HD 46485\n"
    "SpC (primary) | B3V | B0V | O7 V((f))nvar?\n"
    "log(L_1/L_⊙) | 3.24 ± 0.02 | 4.51 ± 0.04 | 4.95 ± 0.03\n"
    "T_{eff,1} [kK] | 19.9 ± 0.5^∗ | 28.2 ± 1.3 | 36.1 ± 0.7\n"
    "vsin i [{km s^{−1}}] | 221 ± 10 | 201 ± 10 | 334 ± 16\n"
    "age [Myr] | 9.6 ± 9.4 | 7.6 ± 1.8 | 2.5 ± 1.1\n"
    "P [d] | 5.2 | 3.6 | 6.9\n")


def verdict(claim: str, passage: str) -> str:
    [one], _ = split_claims(claim[:-1] + " [2405.95502:s2:c14].")
    return check_support(one, passage).status


def test_an_objects_column_holds_its_values_with_the_unit_of_each_rows_label():
    column = object_column("HD 191495", BINARIES, squash)
    assert column is not None
    assert "vsin i [{km s^{−1}}] | 201 ± 10 km s^−1" in column
    assert "T_{eff,1} [kK] | 28.2 ± 1.3 kK" in column
    assert "334" not in column and "221" not in column
    assert rows_of("HD 191495", BINARIES) == [column]
    assert object_column("HD 1", BINARIES, squash) is None
    assert object_column("HD 191495", "HD 191495 | 201 | 3.6", squash) is None


@pytest.mark.parametrize(("claim", "status"), [
    ("HD 191495 rotates with v sin i = 201 ± 10 km s^-1.", "supported"),
    ("HD 191495 has an orbital period of 3.6 days.", "supported"),
    ("HD 25631's primary is a B3V star with log(L/L_sun) = 3.24 ± 0.02.", "supported"),
    ("The primary of HD 46485 has an effective temperature of 36.1 ± 0.7 kK, about 36,100 K.", "supported"),
    # the wrong twins: a neighbour column's value, the other object's age
    ("HD 191495 rotates with v sin i = 334 ± 16 km s^-1.", "unsupported"),
    ("HD 46485 is about 7.6 ± 1.8 Myr old.", "unsupported"),
    ("HD 191495 has an orbital period of 5.2 days.", "unsupported"),
])
def test_a_table_of_one_column_per_object_is_read_by_column(claim, status):
    """Each faithful claim was flagged (`... is not in the row of HD 191495`: the row ran from the name to the next
    name, i.e. along the header); HD 46485's 7.6 Myr, HD 191495's, was supported."""
    assert verdict(claim, BINARIES) == status


STAR = (  # Ilin et al. 2023 (ekaterinailin/xmm_for_tic277, MIT), Table 1 as astro renders it
    "[Caption: Stellar properties of TIC 277539431]\n"
    "Parameter | Value\n"
    "Alternative ID | WISEA J105515.71-735611.3\n"
    "Spectral type | M7 [1]\n"
    "Distance d | 13.70 ± 0.11 pc [2]\n"
    "Projected rot. velocity vsin i | 38.6 ± 1.0 km/s [1]\n"
    "Radius R | 0.145 ± 0.004 R_⊙ [1]\n")


@pytest.mark.parametrize(("claim", "status"), [
    ("TIC 277539431 lies 13.70 ± 0.11 pc from the Sun.", "supported"),
    ("TIC 277's projected rotational velocity is 38.6 ± 1 km s^-1.", "supported"),
    ("TIC 277's radius is 0.145 ± 0.004 R_sun.", "supported"),
    # the wrong twins: a unit, an uncertainty
    ("TIC 277's projected rotational velocity is 38.6 ± 1.0 m/s.", "unsupported"),
    ("TIC 277's radius is 0.145 ± 0.04 R_sun.", "unsupported"),
])
def test_a_table_of_one_object_named_in_its_caption_is_all_its_row(claim, status):
    """TIC is a catalogue (its number is a name, not a quantity: `277 is not in the passage`), and a table whose
    caption names one object holds that object's values in every row, past the `Alternative ID` cell's name
    (`the passage is about something else`). The paper's own short form `TIC 277` names it too."""
    assert verdict(claim, STAR) == status


@pytest.mark.parametrize(("sentence", "credits"), [
    ("A growing body of work suggests that rapid rotators preferentially host flares close to their poles.", True),
    ("Most authors now take it as given that rapidly rotating O stars are products of binary mass transfer.", True),
    ("Observers have long taken for granted that the flare rate saturates.", True),
    # the paper's own: its body of work, its authors, we
    ("This body of work shows that the corona is hot.", False),
    ("The authors take it as given that the orbit is circular.", False),
    ("We take it as given that the star is single.", False),
])
def test_a_body_of_work_and_a_view_taken_as_given_credit_the_literature(sentence, credits):
    """Both uncited literature claims of set 55 were no claims at all on s54-lead."""
    assert credits_literature(sentence) is credits


FILTERS = ("The procedure begins with a 3rd order spline fitting of coarse trends, followed by iterative sine fitting "
           "to remove rotational modulation, and two Savitzky-Golay filters [savitzky1964smoothing] with a $6\\,$h "
           "and $3\\,$h window, respectively to remove aperiodic short term trends.")
TRAINING = "We split them into training and test sets consisting of 80% and 20% of the galaxies, respectively."


@pytest.mark.parametrize(("claim", "passage", "status"), [
    ("The two Savitzky-Golay filters used windows of 6 h and 3 h.", FILTERS, "supported"),
    ("The two Savitzky-Golay filters used windows of 6 h and 9 h.", FILTERS, "unsupported"),
    # a list of names still pairs its values
    ("The training set holds 20% of the galaxies and the test set 80%.", TRAINING, "unsupported"),
])
def test_a_respectively_list_with_a_count_for_an_item_pairs_nothing(claim, passage, status):
    """`modulation, and two` was read as the list of names of `6 h and 3 h ..., respectively`: the faithful
    claim was flagged (`6 h is the passage's value for modul, not for two`)."""
    assert verdict(claim, passage) == status


HYPERPRIORS = ("Notably, when applying the framework to a small sample size with $N \\lesssim 50$, the choice of "
               "hyperpriors for the Beta distribution could impact the inferred distribution [e.g., Nagpal22, Gelman14].")


@pytest.mark.parametrize(("claim", "status"), [
    ("For samples of about 50 systems or fewer, the choice of hyperpriors can change the inferred distribution.",
     "supported"),
    # the wrong twins: the bound turned around, the limit told as a measurement
    ("For samples of about 50 systems or more, the choice of hyperpriors can change the inferred distribution.",
     "unsupported"),
    ("For samples of 50 systems, the choice of hyperpriors can change the inferred distribution.", "unsupported"),
])
def test_a_bound_written_after_the_counted_noun(claim, status):
    """`about 50 systems or fewer` was read as a plain 50 (`50 is an upper limit in the passage, not a measured
    value`): `or fewer` was a bound only right after the number."""
    assert verdict(claim, HYPERPRIORS) == status


SYSTEMS = (  # Britavskiy et al. 2024, the table of known systems as astro renders it
    "[Caption: Basic physical and orbital parameters for systems with a known fast-rotating OB star.]\n"
    "Target | SpC | vsin i | P | q | Reference\n"
    "|  | [{km s^{−1}}] | [d] |  |\n"
    "HD 163892 | O9.5 IV(n) | 201 | 7.8 | 0.17 | Mahy_2022\n"
    "HD 165246 | O8 V(n) | 254 | 4.6 | 0.16 | Johnston2021\n")


@pytest.mark.parametrize(("claim", "status"), [
    ("HD 165246 has v sin i = 254 km/s.", "supported"),
    ("HD 165246 has an orbital period of 4.6 days.", "supported"),
    ("HD 165246 has v sin i = 254 m/s.", "unsupported"),
    ("HD 165246 has an orbital period of 4.6 hours.", "unsupported"),
])
def test_a_tables_unit_line_gives_each_column_its_unit(claim, status):
    """`254 m/s` was supported: the unit stood in a line of brackets under the header, so the row's 254 had none."""
    assert verdict(claim, SYSTEMS) == status
