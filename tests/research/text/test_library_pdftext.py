"""Issue 15: PDF text that reads like the paper, on the real fixture PDFs (emulateapj 1001.0012 and
RevTeX 1111.2011): accents, line-end hyphens, the arXiv stamp, TeX glyph codes, footnotes and the outline."""

from __future__ import annotations

import re

import pytest

from astro_cli.research.library.content import ContentError, paper_content
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from astro_cli.research.text.hyphens import HyphenResolver
from tests.library_support import add_paper, make_app


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    context = make_app(tmp_path_factory.mktemp("pdftext") / "ws")
    for paper_id in ("1001.0012", "1111.2011"):
        add_paper(context, paper_id)
        parse_paper(Library.of(context), paper_id)
    yield context
    context.close()


def _chunks(app, paper_id):
    return app.db.query("SELECT * FROM chunks WHERE paper_id = ? ORDER BY ord", (paper_id,))


def _text(app, paper_id):
    return "\n".join(row["text"] for row in _chunks(app, paper_id))


def test_accents_are_composed_and_either_spelling_finds_the_author(app):
    cowan, murray = _text(app, "1001.0012"), _text(app, "1111.2011")
    assert "Zlatko Tešanović" in murray and "Seager & Mallén-Ornelas 2003" in cowan and "López-Morales" in cowan
    assert not re.search(r"[´ˇ¨`]\w| [\u0300-\u036f]", cowan + murray)  # nothing left split: 'L ́opez', 'Teˇs'

    for spelling in ("Tesanovic", "Tešanović"):
        assert any(hit.source == "1111.2011" for hit in search_library(Library.of(app), spelling).hits), spelling
    for spelling in ("López-Morales", "Lopez-Morales", "Mallen-Ornelas", "Mallén"):
        assert any(hit.source == "1001.0012" for hit in search_library(Library.of(app), spelling).hits), spelling


def test_line_end_hyphens_join_words_and_keep_compounds(app):
    cowan, murray = _text(app, "1001.0012"), _text(app, "1111.2011")
    for joined in ("CoRoT1b", "shortperiod", "Neptunesized", "endmembers", "signaltonoise"):
        assert joined not in cowan, joined
    for joined in ("selfconsistent", "onedimensional", "ironpnictide", "momentumindependent"):
        assert joined not in murray, joined
    for kept in ("CoRoT-1b", "Neptune-sized", "short-period exoplanets have power budgets", "HAT-P-7b"):
        assert kept in cowan, kept
    assert "one-dimensional systems" in murray and "self-consistent" in murray
    # TeX's hyphenation of one word is undone: speak-ing, atmo-spheric, redistribu-tion.
    assert "Roughly speaking, the stellar flux" in cowan and "atmospheric compositions" in cowan
    assert "redistribution efficiency" in cowan and "\ufffe" not in cowan + murray


def test_the_arxiv_stamp_is_cut_out_even_mid_sentence(app):
    murray, cowan = _text(app, "1111.2011"), _text(app, "1001.0012")
    assert "arXiv:1111.2011v2" not in murray and "[cond-mat.str-el]" not in murray
    assert "thought of as a one-dimensional stack of two-dimensional layers" in murray
    assert "[astro-ph.EP]" not in cowan


def test_no_control_characters_and_tex_glyphs_are_named(app):
    for paper_id in ("1001.0012", "1111.2011"):
        for row in _chunks(app, paper_id):
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", row["text"]), row["text"][:80]
    murray = _text(app, "1111.2011")
    assert "long as r ≪ Λ" in murray  # cmsy10's code 0x1c is 'much less than'


def test_affiliation_footnotes_are_front_matter_and_notes_end_their_section(app):
    rows = _chunks(app, "1001.0012")
    albedo = "\n".join(r["text"] for r in rows if r["section"] == "1.1 Albedo")
    front = "\n".join(r["text"] for r in rows if r["section"] == "Front matter")
    assert albedo.startswith("Giant planets in the Solar System have albedos greater than 50%")
    assert "CIERA Fellow" not in albedo and "Astronomy Department" not in albedo
    assert "CIERA Fellow, Northwestern University" in front and "University of Washington" in front
    # The footnote is a paragraph of its own at the end of its section, not in mid-sentence.
    assert albedo.endswith("Class IV and V extrasolar giant planets in the scheme of Sudarsky et al. (2003).")
    assert "\nFootnote 3: For our purposes a “short period” exoplanet" in albedo  # a chunk of its own (issue 29)


def test_the_outline_keeps_numbered_parents_and_matches_the_paper(app):
    report = parse_paper(Library.of(app), "1001.0012")
    assert [name for name, _ in report.sections] == [
        "Front matter", "Abstract", "1 Introduction", "1.1 Albedo", "1.2 Redistribution Efficiency",
        "1.3 Outline of Paper", "2 Parameterizing the Energy Budget", "2.1 Incident Flux", "2.2 Emergent Flux",
        "3 Analysis", "3.1 Planetary & Stellar Data", "3.2 From Flux Ratios to Effective Temperature", "4 Results",
        "4.1 Looking for Reflected Light", "4.2 Populating the A_B-ε Plane", "5 Summary & Conclusions", "References",
        "Tables",
    ]
    paper = Library.of(app).get_paper("1001.0012")
    by_name = paper_content(Library.of(app), paper, section="Parameterizing")  # a parent heading asked by its name
    assert by_name.sections == ["2.1 Incident Flux", "2.2 Emergent Flux"]
    with pytest.raises(ContentError) as caught:
        paper_content(Library.of(app), paper, section="Observations")
    assert "2 Parameterizing the Energy Budget; 2.1 Incident Flux" in str(caught.value)


def test_revtex_references_without_a_heading_are_their_own_section(app):
    rows = _chunks(app, "1111.2011")
    names = [name for name, _ in parse_paper(Library.of(app), "1111.2011").sections]
    assert names[-2:] == ["Acknowledgments", "References"]
    thanks = "\n".join(r["text"] for r in rows if r["section"] == "Acknowledgments")
    references = "\n".join(r["text"] for r in rows if r["section"] == "References")
    assert thanks.startswith("We would like to thank Predrag Nikolic") and "Adv. Phys." not in thanks
    assert references.startswith("1 D. C. Johnston, Adv. Phys. 59, 803 (2010).")
    assert "7 J. M. Murray and Z. Tešanović, Phys. Rev. Lett. 105, 037006 (2010)." in references
    kinds = {r["section"]: r["kind"] for r in rows}
    assert kinds["References"] == "references" and kinds["Acknowledgments"] == "acknowledgments"
    assert kinds["V. Discussion"] == "body"


def test_the_document_decides_before_the_word_list():
    words = {"forward", "planet", "sized"}.__contains__
    resolver = HyphenResolver("a well-known result; the planetsized body", words=words)
    assert resolver.resolve("a well\ufffeknown thing") == "a well-known thing"  # written so in mid-line
    assert resolver.resolve("the planet\ufffesized one") == "the planetsized one"  # the paper writes it joined
    assert resolver.resolve("for\ufffeward") == "forward"  # the word list knows the joined form
    assert resolver.resolve("planet\ufffeeating") == "planeteating"  # 'eating' is no word here
    assert resolver.resolve("HD\ufffe209458 and X\uffferay and pre\ufffeOrion") == "HD-209458 and X-ray and pre-Orion"


def test_a_name_glued_to_a_number_is_split_only_on_a_line_of_names():
    # Issue 44, stop 52: before its first heading a page's lines are front matter, where `Cowan1` is
    # an author and an affiliation mark. Pages cut from a paper's middle (keplerkin2022,
    # tests/fixtures/papertext/unseen3) read `PyMC 3`, `Gaia EDR 3`: prose is no line of names.
    from astro_cli.research.text.pdfread import read_pages
    from astro_cli.research.text.pdftext import pdf_layout
    from tests.paths import FIXTURES_DIR

    pages = read_pages(FIXTURES_DIR / "papertext" / "unseen3" / "keplerkin2022_p4-5-10.pdf")
    text = "\n".join(line.text for line in pdf_layout(pages).lines)
    assert "tuned the PyMC3 sampler for 1500 steps" in text and "Gaia EDR3 catalog" in text
    assert "PyMC 3" not in text and "EDR 3" not in text
    cowan = pdf_layout(read_pages(FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf", max_pages=1))
    assert "Nicolas B. Cowan[1,2], Eric Agol[2]," in [line.text for line in cowan.lines]  # its marks kept


def test_a_note_marked_with_the_asterisk_operator_leaves_the_sentence():
    # Issue 44, stop 53: TeX's \thanks and \fnsymbol set the first note's mark as `∗` (U+2217, the
    # math asterisk), not `*`. The reader took `†`, `‡`, `§` for notes but left the first one in the
    # sentence the page broke: atlas2025's "V_∞ ∼ 32 km s^{−1} ∗ NSF Astronomy and Astrophysics
    # Postdoctoral Fellow respectively" (AASTeX), cmbdelens2017's "fore- ∗ zhpan@ucdavis.edu grounds" (RevTeX).
    from astro_cli.research.library.parse import pdf_chunks
    from astro_cli.research.text.pdfread import read_pages
    from tests.paths import FIXTURES_DIR

    for name, sentence in (("atlas2025_p2-4-5.pdf", "V_∞ ∼ 32 km s^{−1} respectively, which approximately"),
                           ("cmbdelens2017_p1-3-6.pdf", "emission from galactic dust and other foregrounds [33–40]")):
        chunks, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papertext" / "unseen3" / name), 1200)
        text = " ".join("\n".join(chunk.text for chunk in chunks).split())
        assert sentence in text
    assert "∗ NSF Astronomy and Astrophysics Postdoctoral Fellow respectively" not in text


def test_mnras_thanks_note_is_front_matter_and_the_table_under_it_stays_in_its_section():
    # Issue 44, stop 53 (lensingssc2024, MNRAS): `\thanks` sets `★ E-mail: ...` at the foot of the
    # first column, and Table 1's caption and rows, set as small, follow it. The ★ was no note mark,
    # so the note stayed in the prose; taken as a note, its smaller lines took the table with them
    # into the front matter. A caption ends a note.
    from astro_cli.research.text.pdfread import read_pages
    from astro_cli.research.text.pdftext import FRONT, pdf_layout
    from tests.paths import FIXTURES_DIR

    layout = pdf_layout(read_pages(FIXTURES_DIR / "papertext" / "unseen3" / "lensingssc2024_p1-2.pdf"))
    section = {line.text: line.section for line in layout.lines}
    assert section["★ E-mail: akira.tokiwa@ipmu.jp"] == FRONT
    assert section["Table 1. Summary of the light cone. Columns (1) snapshot number; (2)"] == "2.2 Ray Traced Weak Lensing Map"
    assert section["10 | 4750 | 1.649"] == "2.2 Ray Traced Weak Lensing Map"
