"""Issue 43: names as the field writes them — a planet by its host's table row, catalogue prefixes, Greek
letters and their names — and author lists with et al."""

from __future__ import annotations

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.extract import find_citations
from astro_cli.citations.names import named_in

ROW = "WASP-19b[21] | 2581(49) | 1.65(0.25) | XO-2[23] | 1685(33) | 3.6(0.75) | XO-3[24] | 1982(82)"  # 1001.0012, p. 12


@pytest.mark.parametrize(("name", "passage", "named"), [
    ("XO-2b", ROW, True),  # the host's row
    ("XO-2b", "the XO-2 system was observed twice", False),  # the host in a phrase says nothing of the planet
    ("XO-2b", "XO-23 | 1500(20)", False),
    ("WASP-12b", "WASP-12c | 2000", False),
    ("GJ 436b", "only one (Gl 436b) has a day-side effective temperature", True),  # 1001.0012, p. 7
    ("Gliese 876d", "Gl 876d", True),
    ("β Pic b", "the planet beta Pic b orbits", True),
    ("beta Pic b", "\\beta~Pic~b", True),
    ("τ Boo b", "υ And b", False),
    # stop 50: a constellation's abbreviation or genitive, SIMBAD's Greek letters
    ("51 Peg b", "the planet 51 Pegasi b", True),
    ("epsilon Eridani b", "a planet of ε Eri b at 3.4 au", True),
    ("ε Eri b", "eps Eri b", True),
    ("alpha Cen", "Proxima and α Centauri A", True),
    ("ε Eri b", "eps Ind b", False),
    ("γ Del", "gam Delphini", True),
    # stop 51: a star's component letter is part of its name (α Cen A passed against α Cen B at stop 50)
    ("α Cen A", "the false detection of an Earth-mass planet in the $\\alpha$ Cen B system", False),
    ("α Cen B", "the false detection of an Earth-mass planet in the $\\alpha$ Cen B system", True),
    ("alpha Centauri A", "Proxima and α Cen A and B", True),
    ("α Cen B", "α Cen A/B", True),
    ("α Cen A", "the α Cen system", False),  # the system, not which star
    ("α Cen A", "α Cen And", False),
    ("HD 41004 B b", "HD 41004 Bb", True),
    ("HD 41004 B", "HD 41004 b is a planet of the A star", False),  # a planet's b is not the star B
    ("Kepler-16 (AB) b", "Kepler-16 (AB) b", True),
    ("Kepler-16 (AB)", "Kepler-16 A", False),
])
def test_a_name_in_a_passage(name, passage, named):
    assert named_in(name, passage) is named


def test_a_bayer_designation_is_a_name_the_passage_must_hold():
    [claim], _ = split_claims("β Pic b has a mass of 11 M_Jup [1001.0012:p1:c1].")
    assert claim.names == ("β Pic b",)


@pytest.mark.parametrize(("sentence", "name"), [
    ("A false planet was reported in the α Cen A system [1001.0012:p1:c1].", "α Cen A"),
    ("HD 41004 B b is a brown dwarf [1001.0012:p1:c1].", "HD 41004 B b"),
    ("Kepler-16 (AB) b orbits both stars [1001.0012:p1:c1].", "Kepler-16 (AB) b"),
    ("HD 189733b is hot [1001.0012:p1:c1].", "HD 189733b"),
])
def test_a_stars_component_letter_is_read_with_its_designation(sentence, name):
    [claim], _ = split_claims(sentence)
    assert claim.names == (name,)


def test_an_author_list_with_et_al_is_its_first_author_et_al():
    [cited] = find_citations("Bouma, Winn, Howard et al. (2020) found a young planet.")
    assert (cited.ident, cited.surnames, cited.year) == ("Bouma et al. 2020", ("Bouma",), 2020)
    [cited] = find_citations("(Gaia Collaboration, Brown, Vallenari et al. 2018)")
    assert cited.ident == "Gaia Collaboration et al. 2018"


@pytest.mark.parametrize(("sentence", "claims"), [
    ("It is well established in the literature that hot Jupiters are dark.", 1),
    ("Studies have shown that M dwarfs flare.", 1),
    ("It is widely accepted that Gaussian processes model stellar variability.", 1),
    ("I found no passage in the literature that answers this.", 0),  # what the nudge asks the model to say
    ("It is not known whether the planet has a moon.", 0),
    # Stop 50: the same credit in other words
    ("It has long been known that hot Jupiters are dark.", 1),
    ("According to the literature, K2 photometry is less precise than Kepler's.", 1),
    ("Many authors have argued that granulation limits radial-velocity precision.", 1),
    ("There is broad consensus that M dwarfs host many small planets.", 1),
    ("Theory predicts that magnetic fields inhibit lithium depletion.", 1),
    ("I found no study that predicts this, and no consensus holds in the passages I read.", 0),
])
def test_a_sentence_crediting_the_literature_is_a_claim(sentence, claims):
    assert len(split_claims(sentence)[0]) == claims


def test_a_compound_in_the_claim_is_its_words_in_the_passage():
    """`Fifth-order PLD` against the passage's `fifth order PLD`: the compound is its parts (it was undecided)."""
    from astro_cli.citations.support import check_support

    passage = ("For a typical K2 star, this number is around $5\\times 10^3$ for third order PLD, and would increase "
               "to $\\sim5\\times 10^4$ for fourth order and $\\sim3\\times 10^5$ for fifth order PLD.")
    [claim] = split_claims("Fifth-order PLD would need about 3 × 10^5 regressors [1607.00524:s2.2:c10].")[0]
    assert check_support(claim, passage).status == "supported"


def test_a_cite_key_glued_to_its_year_is_the_authors_name():
    """Palumbo et al. 2022 (LaTeX): `[Elsworth1994]` did not count as the claim's `Elsworth`, so a faithful claim
    was left undecided (found on stop 50's held-out half, after its one measurement)."""
    from astro_cli.citations.support import check_support

    passage = ("we show the 2$\\sigma$ confidence bands for two measurements of the granulation RMS performed by "
               "[Elsworth1994] ($31.9 \\pm 9 \\ {\\rm cm\\ s}^{-1}$, orange forward-hatched) and [Palle1999] "
               "($46.1 \\pm 10 \\ {\\rm cm\\ s}^{-1}$, green back-hatched).")
    [claim] = split_claims("Elsworth et al. measured a granulation RMS of 31.9 ± 9 cm/s and Pallé et al. one of "
                           "46.1 ± 10 cm/s [2110.11839:s4.2:c40].")[0]
    assert check_support(claim, passage).status == "supported"
