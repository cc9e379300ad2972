"""parse_paper on real papers: the emulateapj and RevTeX PDFs and the emcee AASTeX source."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from astro_cli.research.library.parse import ParseError, parse_paper, split_text
from astro_cli.research.library.service import Library
from astro_cli.research.text.latex import latex_sections
from tests.library_support import EMCEE_TEX, add_paper, make_app


@pytest.fixture
def app(tmp_path):
    context = make_app(tmp_path / "ws")
    yield context
    context.close()


def _chunks(app, paper_id):
    return app.db.query("SELECT section, page, ord, text FROM chunks WHERE paper_id = ? ORDER BY ord", (paper_id,))


def test_the_emulateapj_pdf_is_split_by_page_and_numbered_section(app):
    add_paper(app, "1001.0012")
    report = parse_paper(Library.of(app), "1001.0012")
    assert report.parsed_from == "pdf" and report.pages == 12
    names = [name for name, _page in report.sections]
    assert names[:5] == ["Front matter", "Abstract", "1 Introduction", "1.1 Albedo", "1.2 Redistribution Efficiency"]
    for expected in ("2.1 Incident Flux", "3.2 From Flux Ratios to Effective Temperature", "5 Summary & Conclusions",
                     "References"):
        assert expected in names
    # Numbered lists and footnotes are not sections ('2. We firmly rule out...', '1 CIERA Fellow...').
    assert not any(name.startswith(("2 We", "1 Ciera", "1 Essentially")) for name in names)
    chunks = _chunks(app, "1001.0012")
    assert len(chunks) == report.chunks
    # a footnote is a chunk of its own at the end of its section, with the page it is printed on
    pages = [c["page"] for c in chunks if not c["text"].startswith("Footnote")]
    assert pages == sorted(pages) and pages[0] == 1 and pages[-1] == 12
    text = "\n".join(c["text"] for c in chunks)
    # Ligatures decoded, hyphenated line ends rejoined, running heads and the arXiv stamp gone.
    assert "efficiency" in text and "\ufb03" not in text and "atmospheric compositions" in text
    assert "Albedo and Heat Recirculation on Hot Exoplanets 3" not in text
    assert "[astro-ph.EP]" not in text
    size = app.settings.get("library.chunk_chars")
    assert max(len(c["text"]) for c in chunks) <= size * 5 // 4
    row = Library.of(app).get_paper("1001.0012")
    assert row["parsed_from"] == "pdf" and row["pages"] == 12 and row["parsed_at"]


def test_revtex_roman_sections_and_lettered_subsections(app):
    add_paper(app, "1111.2011")
    names = [name for name, _ in parse_paper(Library.of(app), "1111.2011").sections]
    assert names[:2] == ["Front matter", "I. Introduction"]
    assert "II.A Ordered Phase" in names and "II.B Disordered phase" in names and "V. Discussion" in names
    # The heading 'II. SELF-CONSISTENT ACTION IN THE' wraps onto a second line; both are the heading.
    assert any(name.startswith("II. Self-Consistent Action in the") and name.endswith("LIMIT") for name in names)


def test_the_latex_source_is_preferred_and_keeps_math_and_structure(app):
    add_paper(app, "1202.3665")
    # Give the paper a PDF too: the source still wins.
    pdf = app.workspace.papers_dir / "other.pdf"
    pdf.write_bytes(b"%PDF-1.4 never read")
    Library.of(app).upsert_paper({"id": "1202.3665", "pdf_path": str(pdf)})
    report = parse_paper(Library.of(app), "2013PASP..125..306F")
    assert report.parsed_from == "latex" and report.pages is None
    names = [name for name, _ in report.sections]
    assert names[0] == "Abstract"
    assert {"1 Introduction", "2 The Algorithm", "3 Tests", "4 Discussion & Tips", "A Installation"} <= set(names)
    text = "\n".join(c["text"] for c in _chunks(app, "1202.3665"))
    assert "\\frac{1}{Z}" in text and "\\begin{equation}" in text  # equations stay LaTeX
    assert "p(\\Theta, \\alpha | D)" in text  # the paper's own macros \pr, \model, \data expanded
    assert "\\this" not in text and "emcee permits any user" in text
    assert "has to be before amssymb" not in text  # a % comment of the preamble
    assert "% pip install emcee" in text  # but a % inside a code listing is code
    assert "[Gelman:1996]" in text  # citation keys stay readable


def _source_folder(tmp_path):
    folder = tmp_path / "src"
    (folder / "sections").mkdir(parents=True)
    (folder / "main.tex").write_text(
        "\\documentclass{aastex631}\n\\newcommand{\\msun}{\\ensuremath{M_\\odot}}\n\\begin{document}\n"
        "\\title{Dust in the wind}\n\\begin{abstract}We weigh dust. % a private remark\n\\end{abstract}\n"
        "\\input{sections/intro}\n\\include{sections/methods.tex}\n\\input{missing_figure}\n"
        "\\appendix\n\\section{Extra tables}Tables of 10\\% dust.\n\\end{document}\n"
    )
    (folder / "sections" / "intro.tex").write_text(
        "\\section{Introduction}\\label{sec:intro}\nThe halo weighs $10^{12}$\\msun{} in total.% note\n"
        "\\subsection{Past work}Earlier \\citep{Smith2020} found less.\n\\input{sections/intro}\n"
    )
    (folder / "sections" / "methods.tex").write_text("\\section*{Methods}\nWe use \\emph{spectra}.\n")
    return folder


def test_latex_input_include_comments_and_numbering(tmp_path):
    title, sections = latex_sections(_source_folder(tmp_path))
    assert title == "Dust in the wind"
    by_name = {s.title: s.text for s in sections}
    assert list(by_name) == ["Abstract", "1 Introduction", "1.1 Past work", "Methods", "A Extra tables"]
    assert by_name["Abstract"] == "We weigh dust."
    assert "$10^{12}$$M_\\odot$ in total." in by_name["1 Introduction"]  # macro expanded, math kept
    assert "\\label" not in by_name["1 Introduction"] and "note" not in by_name["1 Introduction"]
    assert by_name["1.1 Past work"] == "Earlier [Smith2020] found less."  # the self-\input did not loop
    assert by_name["A Extra tables"] == "Tables of 10% dust."


def test_an_arxiv_eprint_tarball_is_read_like_a_folder(tmp_path):
    folder = _source_folder(tmp_path)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in folder.rglob("*.tex"):
            archive.add(path, arcname=path.relative_to(folder).as_posix())
    tarball = tmp_path / "1234.5678.tar.gz"
    tarball.write_bytes(buffer.getvalue())
    assert [s.title for s in latex_sections(tarball)[1]] == [s.title for s in latex_sections(folder)[1]]
    single = tmp_path / "one.gz"
    single.write_bytes(gzip.compress(EMCEE_TEX.read_bytes()))
    assert latex_sections(single)[0] == "emcee: The MCMC Hammer"


def test_a_broken_pdf_is_one_sentence_and_leaves_the_old_index(app):
    add_paper(app, "1001.0012")
    parse_paper(Library.of(app), "1001.0012")
    before = _chunks(app, "1001.0012")
    pdf = app.workspace.papers_dir / "1001.0012.pdf"
    pdf.write_bytes(b"%PDF-1.5\n" + b"\x00garbage" * 200)
    with pytest.raises(ParseError) as caught:
        parse_paper(Library.of(app), "1001.0012", force=True)
    message = str(caught.value)
    assert "1001.0012.pdf could not be read as a PDF" in message and "nothing was indexed" in message
    assert "\n" not in message and "Traceback" not in message
    assert _chunks(app, "1001.0012") == before  # the previous index is intact


def test_a_file_that_is_not_a_pdf_is_refused_before_anything_is_written(app):
    add_paper(app, "1001.0012")
    (app.workspace.papers_dir / "1001.0012.pdf").write_text("<html>Access denied</html>")
    with pytest.raises(ParseError, match="is not a PDF"):
        parse_paper(Library.of(app), "1001.0012")
    assert _chunks(app, "1001.0012") == []
    assert Library.of(app).get_paper("1001.0012")["parsed_at"] is None


def test_unknown_paper_and_missing_files_are_clear(app):
    with pytest.raises(ParseError, match="paper 2401.00001 is not in the library; download it with download_paper"):
        parse_paper(Library.of(app), "2401.00001")
    Library.of(app).upsert_paper({"id": "2401.00002", "arxiv_id": "2401.00002"})
    with pytest.raises(ParseError, match="has no file astro reads") as missing:
        parse_paper(Library.of(app), "2401.00002")
    assert "Markdown (.md)" in str(missing.value)  # every registered reader is named, not only PDF and LaTeX


def test_a_second_parse_is_skipped_unless_forced(app):
    add_paper(app, "1202.3665")
    first = parse_paper(Library.of(app), "1202.3665")
    again = parse_paper(Library.of(app), "1202.3665")
    assert again.already and again.chunks == first.chunks
    assert not parse_paper(Library.of(app), "1202.3665", force=True).already


def test_chunk_size_follows_the_setting(tmp_path):
    small = make_app(tmp_path / "small", **{"library.chunk_chars": 600})
    add_paper(small, "1001.0012")
    count = parse_paper(Library.of(small), "1001.0012").chunks
    sizes = [len(c["text"]) for c in _chunks(small, "1001.0012")]
    assert max(sizes) <= 750 and count > 80
    small.close()


def test_split_text_prefers_paragraphs_then_sentences():
    text = ("First paragraph sentence one. Sentence two.\n\n" + "Second paragraph. " * 10).strip()
    pieces = split_text(text, 80)
    assert pieces[0] == "First paragraph sentence one. Sentence two."
    assert all(len(p) <= 100 for p in pieces) and "".join(pieces).replace(" ", "") == text.replace(" ", "").replace("\n", "")
