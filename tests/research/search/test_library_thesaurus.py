"""Issue 42: the field's own thesaurus (research/search/thesaurus.py). A question that names a concept
one way ("BAO", "CMB") finds the passage that names it another ("baryon acoustic oscillations",
"cosmic microwave background"), through the Unified Astronomy Thesaurus's labels. Before stop 53
such a passage shared no word with the question and was not found at all."""

from __future__ import annotations

import json

from astro_cli.research.search.thesaurus import DATA, parse, uat
from tests.conftest import base_env

PAPER = r"""\documentclass{aa}
\title{Distances from the galaxy survey}
\begin{document}
\section{Clustering}
The baryon acoustic oscillation feature fixes the distance ratio to 1.5 per cent at z = 0.38.
\section{Supernovae}
Our supernova sample gives the expansion rate with a precision of 3 per cent.
\section{Photons}
The CMB photons are deflected by the large-scale structure; the deflection is 2 arcmin.
\end{document}
"""


def test_a_question_naming_a_concept_finds_the_passage_naming_it_otherwise(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    (workspace / "survey.tex").write_text(PAPER)
    added = run_astro(["library", "add", "./survey.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    for question, answer in (("What does BAO give us?", "1.5 per cent"),
                             ("What happens to the cosmic microwave background?", "2 arcmin")):
        result = run_astro(["library", "search", question, "--json", "-k", "3"], env)
        assert result.returncode == 0, result.stderr
        texts = [hit["text"] for hit in json.loads(result.stdout)["hits"]]
        assert any(answer in text for text in texts), (question, texts)


def test_the_other_labels_of_a_named_concept_are_added_but_not_its_plurals():
    thesaurus = uat()
    assert "cosmic microwave background" in thesaurus.alternates("the CMB power spectrum")
    assert "baryon acoustic oscillations" in thesaurus.alternates("Why are BAO measurements used?")
    added = thesaurus.alternates("the Lagrange points of the system")
    assert "lagrangian points" in added and "libration points" in added and "lagrange points" not in added
    orbit = thesaurus.alternates("an elliptical orbit")
    assert "eccentric orbit" in orbit and "elliptical orbits" not in orbit  # the index's stemming meets a plural
    assert thesaurus.alternates("the softening length of the mocks") == []


def test_the_labels_carry_their_licence_and_source():
    head = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    assert any("Attribution-ShareAlike" in line for line in head)
    assert any("github.com/astrothesaurus/UAT" in line for line in head)
    assert parse("# a comment\n1\tCosmic rays\tCR particles\n").alternates("cosmic rays") == ["cr particles"]


def test_an_abbreviation_names_its_concept_only_as_written():
    """The UAT's "dEs" (dwarf elliptical galaxies) is not the question's "DES" (the Dark Energy Survey): a
    short one-word label matches only in its own case, so a survey's name adds no dwarf galaxies."""
    thesaurus = uat()
    assert not any("dwarf" in label for label in thesaurus.alternates("What does DES find for S8?"))
    assert "dwarf elliptical galaxies" in thesaurus.alternates("How many dEs are in the Virgo cluster?")
    assert "baryon acoustic oscillations" in thesaurus.alternates("Why are BAO measurements used?")
