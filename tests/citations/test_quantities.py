"""Issue 43: the quantity reader and the comparison, on text as papers and answers write it (the passages are
astro's own text of tests/fixtures/papers and of the labelled set). The end-to-end tests are in
tests/citations/test_claims_quantities_e2e.py; these pin the rules one by one."""

from __future__ import annotations

import pytest

from astro_cli.citations.agree import Stated, check_quantity, stated_in
from astro_cli.citations.quantities import quantities


def one(text: str):
    [found] = quantities(text, claim=True)
    return found


@pytest.mark.parametrize(("text", "value", "high", "unit", "plus", "minus"), [
    ("1925 K", 1925, None, "K", None, None),
    ("$0.019^{+0.019}_{-0.010}$", 0.019, None, None, 0.019, 0.010),
    ("$0.119_{-0.035}^{+0.046}$", 0.119, None, None, 0.046, 0.035),
    ("0.119 (+0.046/−0.035)", 0.119, None, None, 0.046, 0.035),
    ("3.80^{+0.15} −0.15", 3.80, None, None, 0.15, 0.15),
    ("$M_A = 0.329\\pm0.002$$M_{\\odot}$", 0.329, None, "M_sun", 0.002, 0.002),
    ("8.1(1.7) × 10^{−4}", 8.1e-4, None, None, 1.7e-4, 1.7e-4),
    ("1.6(6) × 10^{−4}", 1.6e-4, None, None, 0.6e-4, 0.6e-4),
    ("around $5\\times 10^3$", 5000, None, None, None, None),
    ("2 ×10⁻³ m", 0.002, None, "m", None, None),
    ("1e-3", 0.001, None, None, None, None),
    ("1-13 M_Jup", 1, 13, "M_jup", None, None),
    ("10 to 100 pc", 10, 100, "pc", None, None),
    ("between 5 and 11 Myr", 5, 11, "Myr", None, None),
    ("10^2 to 10^5 data points", 100, 100000, None, None, None),
    ("4\\,500 K", 4500, None, "K", None, None),
    ("a 35-pixel aperture", 35, None, "pix", None, None),
    ("the 6-hr precision", 6, None, "h", None, None),
    ("$P=50-400\\mathrm{d}$", 50, 400, "d", None, None),
])
def test_each_form_is_one_quantity(text, value, high, unit, plus, minus):
    found = one(text)
    assert found.value == pytest.approx(value) and found.unit == unit
    assert (found.high is None) == (high is None) and (high is None or found.high == pytest.approx(high))
    assert (found.plus is None) == (plus is None) and (plus is None or found.plus == pytest.approx(plus))
    assert minus is None or found.minus == pytest.approx(minus)


def test_what_is_no_quantity_of_a_claim():
    # stop 51: an expansion's order is a number of its own kind (`2nd order` is matched only by an order)
    assert [(q.text, q.unit) for q in quantities("2MASS J1234, the 2nd order, H2O, Matérn-3/2", claim=True)] == [
        ("2nd order", "order"), ("2", None)]  # the 2 after the slash
    assert [q.year for q in quantities("in 2016, May 2013, 2009–2013, 1925 K, 2000 K", claim=True)] == [
        True, True, True, False, False]


def test_a_year_after_an_author_list_is_a_citation_whatever_follows():
    """`Kraus et al. 2015 found ...` was checked as a number (`2015 is not in the passage`): after `et al.` or
    `A & B` a year is a citation's even with no punctuation after it; a number after other words is not."""
    text = "Kraus et al. 2015 found it; Cowan & Agol 2011 showed it; Cowan and Agol 2011 argued; the 1800 stars"
    assert [q.year for q in quantities(text, claim=True)] == [True, True, True, False]


def claim_checked(claim: str, passage: str) -> str | None:
    return check_quantity(one(claim), stated_in(passage))


@pytest.mark.parametrize(("claim", "passage", "why"), [
    ("T_eff = 1941 K", "an effective temperature of T_{eff} = 1941 K", None),
    ("T_eff = 1914 K", "an effective temperature of T_{eff} = 1941 K", "1914 is not in the passage"),
    ("about 0.02", "the rate density is 0.019 per star", None),
    ("1930 K", "1925 K", "1930 is not in the passage"),
    ("1.5 d", "a period of 36 hr", None),
    ("50 mK", "about 50 K in brightness temperature", "50 mK is not in the passage (it gives 50 K)"),
    ("500 nm", "at 500 GHz", "500 nm is not in the passage (it gives 500 GHz)"),
    ("0.25", "the lowest 25% of pixels", None),
    ("1000 pc", "10 objects at 100 pc", "1000 is not in the passage"),
    ("10^4", "10^3 and 1.2 × 10^3", "10^4 is not in the passage"),
    ("3 × 10^-10", "a rate of 3 × 10^{-9} and 10 others", "3 × 10^-10 is not in the passage"),
    ("14-17", "HD 181878 | Q14-17 HD 182694", None),
    ("0.329 ± 0.020", "M_A = 0.329\\pm0.002", "0.329 ± 0.020: the passage gives another uncertainty"),
    ("0.019", "\\Gamma = 0.040^{+0.031}_{-0.019}", "0.019 is not in the passage"),
    ("τ_m = 2 hours", "a Matérn-3/2 kernel with $\\tau_m = 2$ days", "2 hours is not in the passage (it gives 2 days)"),
    # Stop 50: a temperature in °C is not one in K (an offset, not a factor); ppb is not ppm.
    ("4500 °C", "warmer than about 4 500 K", "4500 °C is not in the passage (it gives 4 500 K)"),
    ("15 ppb", "down to the level of $\\sim 15$ parts per million", "15 ppb is not in the passage (it gives 15 parts per million)"),
    # the uncertainty after the unit, an asymmetric one without a separator, units written as words
    ("0.329 M_⊙ ± 0.002 M_⊙", "$M_A = 0.329\\pm0.002$$M_{\\odot}$ primary", None),
    ("0.329 M_⊙ ± 0.020 M_⊙", "$M_A = 0.329\\pm0.002$$M_{\\odot}$ primary",
     "0.329 M_⊙ ± 0.020 M_⊙: the passage gives another uncertainty"),
    ("10.6 (+5.9 −4.5)", "N = 10.6_{-4.5}^{+5.9}", None),
    ("9 to 10 million years", "A median HR diagram age of 9 – 10 Myr", None),
    ("9 to 10 billion years", "A median HR diagram age of 9 – 10 Myr",
     "9 to 10 billion years is not in the passage (it gives 9 – 10 Myr)"),
    # a confidence level is matched by a confidence level only, not by a bare number elsewhere (1001.0012, p. 7)
    ("at 2σ", "a 1σ upper limit of A_B < 0.35 from the 2- dimensional distribution", "2 is not in the passage"),
    ("at 1σ", "a 1σ upper limit of A_B < 0.35 from the 2- dimensional distribution", None),
    ("at 3 sigma", "detected at 3σ", None),
    ("within 2σ", "we show the 2$\\sigma$ confidence bands", None),  # LaTeX's \sigma (found on the held-out half)
])
def test_a_claims_quantity_against_a_passage(claim, passage, why):
    assert claim_checked(claim, passage) == why


def test_an_empty_passage_states_nothing():
    assert check_quantity(one("5 K"), Stated(())) == "5 is not in the passage"
