"""Issue 28: the claim check and the citation finder on their own (real parsers, the real library
built from the fixture papers): the bar the issue sets, no false alarms on astronomy text, and
bad input that stays bounded."""

from __future__ import annotations

import sys
from datetime import date

import pytest

from astro_cli.citations.check import check_answer
from astro_cli.citations.claims import MAX_CLAIMS, split_claims
from astro_cli.citations.extract import find_citations
from astro_cli.citations.grounding import ground
from astro_cli.citations.handles import records_by_paper, render_for_reader
from astro_cli.citations.ledger import CitationLedger
from astro_cli.research.records import PaperRef, Passage
from tests.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import bench_grounding  # noqa: E402

TODAY = date(2026, 12, 2)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.ident) for c in find_citations(text, TODAY)]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    app, ledger = bench_grounding.session(tmp_path_factory.mktemp("grounding") / "ws")
    yield app, ledger
    app.close()  # type: ignore[attr-defined]


def test_the_labelled_claims_meet_the_issue_bar(session):
    """>= 80% decided correctly by the cheap check, and no unsupported claim called supported."""
    app, ledger = session
    result = bench_grounding.labelled(app, ledger)
    assert result["total"] >= 60
    assert result["correct"] / result["total"] >= 0.8, result["misses"]
    assert result["false_supported"] == 0


def test_the_38_item_citation_set_has_no_false_verified_and_no_false_alarm(session):
    app, ledger = session
    result = bench_grounding.citation_set(app, CitationLedger())
    assert result["items"] == 38
    assert (result["false_verified"], result["false_alarms"], result["wrong"]) == (0, 0, [])


def test_wavelengths_line_lists_designations_dates_and_code_are_not_ids():
    text = ("Fe II 1608.4511 Å, O I 1302.1685 Å, C IV λ1548.2049, [O III] 5007.1234 Å, the lines at 1302.1685, "
            "1304.8576, 1306.0286 Å; NGC 1275, HD 189733b, 2MASS J05233822-1403022, Gaia DR3 4295806720; Eq. (12); "
            "on 2023-05-01 at RA 13:02:16.85; ```\narXiv:1202.3665\n``` and `2013PASP..125..306F`.")
    assert kinds(text) == []


def test_new_style_arxiv_ids_need_a_real_month_a_past_year_and_the_digits_of_their_time():
    assert kinds("see 1001.0012 and 2401.12345") == [("arxiv", "1001.0012"), ("arxiv", "2401.12345")]
    assert kinds("see 2713.12345, 1613.1234, 1608.4511 and 0612.1234") == []  # future, month 13, 4 digits in 2016
    assert kinds("arXiv:2713.12345") == [("malformed", "arXiv:2713.12345")]


def test_malformed_ids_are_reported_and_versions_kept():
    found = find_citations("arXiv:1001.12, 2013PASP.125..306F. and arXiv:1001.0012v9", TODAY)
    assert [(c.kind, c.ident, c.version) for c in found] == [
        ("malformed", "arXiv:1001.12", None), ("malformed", "2013PASP.125..306F", None), ("arxiv", "1001.0012", 9)]


def test_author_lists_and_collaborations_keep_the_first_author_with_diacritics_and_particles():
    text = ("Foreman-Mackey, Hogg, Lang & Goodman (2013); LIGO Scientific Collaboration (2016); Łokas & Mamon "
            "(2001); Šubr et al. 2012; Żywucka et al. (2020); Özel & Freire (2016); Muñoz et al. (2018); "
            "van der Marel et al. (2019); de la Fuente Marcos & de la Fuente Marcos (2014); Murray, Del Maestro "
            "& Tešanović (2012).")
    assert [c.ident for c in find_citations(text, TODAY)] == [
        "Foreman-Mackey et al. 2013", "LIGO Scientific Collaboration 2016", "Łokas & Mamon 2001", "Šubr et al. 2012",
        "Żywucka et al. 2020", "Özel & Freire 2016", "Muñoz et al. 2018", "van der Marel et al. 2019",
        "de la Fuente Marcos & de la Fuente Marcos 2014", "Murray et al. 2012"]


def test_an_author_year_written_with_an_id_goes_with_that_id():
    cited = find_citations("Cowan & Agol (2010, arXiv:1011.0428) found it.", TODAY)
    assert [(c.ident, c.paired) for c in cited] == [("Cowan & Agol 2010", "arxiv:1011.0428"), ("1011.0428", None)]


def test_passages_travel_as_records_and_handles_are_rendered_for_the_reader():
    ref = PaperRef("1001.0012", "Deciphering the albedos", ("Nicolas B. Cowan", "Eric Agol"), 2, 2011)
    passage = Passage("1001.0012:p8:c34", ref, "We applied this analysis on 24 known transiting planets.", 8,
                      "5 Summary & Conclusions")
    assert Passage.from_dict(passage.as_dict()) == passage  # stored in a tool's data and read back unchanged
    assert Passage.from_dict({"handle": "1001.0012:p8:c34", "text": "no paper"}) is None
    records = records_by_paper([ref.as_dict()])
    assert render_for_reader("24 planets [1001.0012:p8:c34; 1001.0012:p8:c35].", records) == (
        "24 planets (Cowan & Agol 2011, p. 8).")


def test_bad_input_is_bounded_and_clear(session):
    app, ledger = session
    huge = " ".join(["The albedo is 0.3 [1001.0012:p1:c1]."] * 6000)  # 36,000 words, 6,000 sentences
    claims, unread = split_claims(huge)
    assert len(claims) == MAX_CLAIMS and unread == 6000 - MAX_CLAIMS
    grounding = ground(ledger, huge, check_answer(app, ledger, huge, False, 0.0))
    assert "sentences were not checked" in grounding.notes()[0]
    many = " ".join(f"See arXiv:1001.{n:04d} [9999.{n:05d}:p1:c{n}]." for n in range(1000))
    checked = check_answer(app, ledger, many, False, 0.0)
    assert len(checked.citations) == 1000
    result = ground(ledger, many, checked)
    assert {c.status for c in result.claims} == {"not_read"}  # unknown handles: not read, no crash
    latex = r"The albedo is $A_B = 0.42$ \citep{2013PASP..125..306F} (arXiv:2501.00001)."
    [claim] = ground(ledger, latex, check_answer(app, ledger, latex, False, 0.0)).claims
    # The \citep'd bibcode is emcee's, which the session read: checked against it, 0.42 is not there.
    assert (claim.status, claim.reason) == ("unsupported", "0.42 is not in the passage")


def test_an_author_year_cite_two_papers_fit_is_ambiguous_but_one_paper_under_two_names_is_not():
    from astro_cli.citations.check import _author_year_match

    cited = find_citations("Foreman-Mackey et al. (2013)", TODAY)[0]
    ads = {"id": "2013PASP..125..306F", "bibcode": "2013PASP..125..306F", "arxiv_id": "1202.3665",
           "authors": ["Daniel Foreman-Mackey"], "year": 2013}
    library_row = {"id": "1202.3665", "arxiv_id": "1202.3665", "authors": ["Daniel Foreman-Mackey"], "year": 2013}
    other = {"id": "1111.0001", "arxiv_id": "1111.0001", "authors": ["Daniel Foreman-Mackey"], "year": 2013}
    assert _author_year_match(cited, [ads, library_row])[0] is not None
    assert _author_year_match(cited, [ads, library_row, other]) == (None, "ambiguous: 2 papers fit Foreman-Mackey et al. 2013")
    nearer = {**other, "year": 2012}  # the exact year wins over a year within one
    assert _author_year_match(cited, [ads, nearer])[0] is ads


ADVERSARIAL = {
    "particles": " ".join(["van der"] * 6000) + " Berg (2013)",
    "hyphenated names": "-".join(["Ab"] * 5000) + " et al. 2013",
    "a name list": ", ".join(["Smith"] * 2000) + " and Jones",
    "dots after a bibcode": "2013PASP" + "." * 5000,
    "prefixes": "arXiv:" * 3000,
    "frames never closed": '<paper-text handle="x:c1">\n' * 3000,
    "a long word": "A" + "b" * 50000 + " et al. 2013",
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_text_cannot_make_the_patterns_backtrack_for_minutes(name):
    """A model's output is attacker-controlled: before the bounds, "van der" x 3000 took 68 s.
    The ceiling is generous (the machine is shared); the point is linear, not quadratic, work."""
    import threading

    done = threading.Event()

    def work() -> None:
        text = ADVERSARIAL[name]
        find_citations(text, TODAY)
        split_claims(text)
        render_for_reader(text, {})
        done.set()

    threading.Thread(target=work, daemon=True).start()
    assert done.wait(120), f"{name}: the citation patterns did not finish"
