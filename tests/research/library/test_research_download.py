"""download_paper's work: arXiv PDF (+ LaTeX source) into papers/ and a row in the library.

The test server serves the real PDFs byte for byte; resuming is exercised with a connection that
drops mid-file, and every failure must leave neither a file nor a row behind.
"""

from __future__ import annotations

import gzip
import tarfile
from pathlib import Path

import pytest

from astro_cli.research.library.download import NotAPdf, download, unpack_source
from astro_cli.research.library.resolve import classify, resolve
from astro_cli.research.library.service import Library
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.web import Web
from tests import research_server
from tests.research_server import FIXTURES, tar_gz_bytes

research, research_app = research_server.research, research_server.research_app  # fixtures

PDF_1001 = (FIXTURES / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf").read_bytes()
EMCEE_TEX = (FIXTURES / "papers" / "emcee_2013PASP_ms.tex").read_bytes()


def _papers(app) -> list[str]:
    folder = app.workspace.papers_dir
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_download_stores_the_real_pdf_and_the_row(research_app, research):
    result = download(Library.of(research_app), "arXiv:1001.0012v2")
    assert result.pdf == research_app.workspace.papers_dir / "1001.0012.pdf"
    assert result.pdf.read_bytes() == PDF_1001
    assert [r.path for r in research.hits("/pdf/")] == ["/pdf/1001.0012v2"]
    row = Library.of(research_app).get_paper("1001.0012")
    assert row["arxiv_id"] == "1001.0012" and row["pdf_path"] == "papers/1001.0012.pdf"
    assert result.source is None  # arXiv answers /e-print with the PDF itself: there is no LaTeX source
    assert result.notes[1] == "arXiv offers no LaTeX source for this paper (only the PDF)."
    assert result.notes[0].startswith("warning: arXiv returned no metadata for 1001.0012")  # the stand-in knows none
    assert row["title"] == "The Statistics of Albedo and Heat Recirculation on Hot Exoplanets"  # read from the PDF's first page
    assert _papers(research_app) == ["1001.0012.pdf"]
    again = download(Library.of(research_app), "1001.0012")
    assert again.already and len(research.hits("/pdf/")) == 1


def test_download_takes_metadata_from_the_arxiv_feed(research_app, research):
    result = download(Library.of(research_app), "1111.2011")
    paper = result.paper
    assert paper["title"].startswith("Quantum Criticality for Extended Nodes on a Bethe Lattice")
    assert paper.authors == ("James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic")
    assert paper["year"] == 2011 and paper["doi"] == "10.1103/PhysRevB.85.115117"  # as registered
    # The published version, for BibTeX without ADS: arXiv's journal reference and category.
    assert paper["journal_ref"] == "Phys. Rev. B 85, 115117 (2012)" and paper["primary_class"] == "cond-mat.str-el"
    assert result.notes == ["arXiv offers no LaTeX source for this paper."]  # /e-print answered 404


def test_an_interrupted_download_resumes_with_a_range_request(research_app, research):
    research.fail("/pdf/", cut_after=100_000)
    with pytest.raises(ServiceError, match="arXiv"):
        download(Library.of(research_app), "1001.0012")
    part = research_app.workspace.papers_dir / "1001.0012.pdf.part"
    kept = part.stat().st_size
    assert 0 < kept <= 100_000
    assert Library.of(research_app).get_paper("1001.0012") is None
    assert not (research_app.workspace.papers_dir / "1001.0012.pdf").exists()
    result = download(Library.of(research_app), "1001.0012")
    assert research.hits("/pdf/")[-1].headers["Range"] == f"bytes={kept}-"
    assert result.pdf.read_bytes() == PDF_1001
    assert not part.exists()


def test_a_non_pdf_is_rejected_and_nothing_is_left(research_app, research):
    research.fail("/pdf/", 200, body=b"<html><body>Please verify you are a human</body></html>")
    with pytest.raises(NotAPdf, match=r"^arXiv sent something that is not a PDF for 1001.0012; nothing was stored\.$"):
        download(Library.of(research_app), "1001.0012")
    assert _papers(research_app) == []
    assert Library.of(research_app).get_paper("1001.0012") is None


def test_an_unknown_paper_and_a_server_error_are_sentences(research_app, research):
    with pytest.raises(ServiceError, match=r"arXiv has no file at http://127.0.0.1:\d+/pdf/2401.99999\."):
        download(Library.of(research_app), "2401.99999")
    research.fail("/pdf/", 503)
    with pytest.raises(ServiceError, match=r"arXiv answered HTTP 503 \(Service Unavailable\)"):
        download(Library.of(research_app), "1001.0012")
    assert _papers(research_app) == []


def test_a_bibcode_resolves_through_ads_to_the_arxiv_id(research_app, research):
    record, version = resolve(Web.of(research_app), "2013PASP..125..306F")
    assert (record.arxiv_id, version) == ("1202.3665", "")
    assert record.bibcode == "2013PASP..125..306F" and record.citation_count == 5299
    assert record.title == "emcee: The MCMC Hammer"
    assert research.hits("/v1/search/query")[0].query["q"] == ['identifier:"2013PASP..125..306F"']


def test_a_doi_without_a_token_says_what_is_needed(research_app, monkeypatch):
    monkeypatch.delenv("ADS_API_TOKEN")
    with pytest.raises(ServiceError, match=r"DOI '10.1086/670067' needs NASA ADS: set ADS_API_TOKEN"):
        download(Library.of(research_app), "10.1086/670067")
    record, _ = resolve(Web.of(research_app), "10.48550/arXiv.1111.2011")  # arXiv's own DOIs need no ADS
    assert record.arxiv_id == "1111.2011"


@pytest.mark.parametrize("raw, kind", [
    ("1001.0012", "arxiv"), ("astro-ph/0601001v1", "arxiv"), ("2012arXiv1202.3665F", "arxiv"),
    ("10.1086/670067", "doi"), ("2013PASP..125..306F", "bibcode"), ("2020A&A...642C...1G", "bibcode"),
])
def test_identifiers_are_recognised(raw, kind):
    assert classify(raw) == kind


def test_nonsense_is_not_an_identifier():
    with pytest.raises(ServiceError, match="is not an arXiv id .* a DOI .* or an ADS bibcode"):
        classify("the emcee paper")


def test_a_gzipped_single_tex_source_is_stored_as_tex(research_app, research):
    """The e-print of 1202.3665 on the test server is the real emcee ms.tex, gzip'd as arXiv serves it."""
    from astro_cli.research.library.download import _fetch_source
    from astro_cli.research.sources.http import make_client

    papers = research_app.workspace.papers_dir
    papers.mkdir(parents=True)
    with make_client(Web.of(research_app)) as client:
        source, note = _fetch_source(research_app, client, research.url + "/e-print/1202.3665", papers,
                                     "1202.3665", None, None)
    assert note == ""
    assert source == papers / "1202.3665.tex"
    assert source.read_bytes() == EMCEE_TEX
    assert _papers(research_app) == ["1202.3665.tex"]


def test_a_tar_source_is_unpacked_into_a_folder_and_unsafe_members_are_skipped(tmp_path):
    archive = tmp_path / "eprint"
    archive.write_bytes(tar_gz_bytes({"ms.tex": EMCEE_TEX, "figs/readme.txt": b"figures", "../escape.tex": b"x"}))
    papers = tmp_path / "papers"
    papers.mkdir()
    folder = unpack_source(archive, papers, "1202.3665")
    assert folder == papers / "1202.3665-source"
    assert (folder / "ms.tex").read_bytes() == EMCEE_TEX
    assert (folder / "figs" / "readme.txt").read_bytes() == b"figures"
    assert not (papers / "escape.tex").exists() and not (tmp_path / "escape.tex").exists()
    assert sorted(p.name for p in papers.iterdir()) == ["1202.3665-source"]


def test_a_broken_source_archive_is_no_source(tmp_path):
    raw = tmp_path / "eprint"
    raw.write_bytes(gzip.compress(b"\x00" * 10)[:-6])  # a truncated gzip stream
    papers = tmp_path / "papers"
    papers.mkdir()
    assert unpack_source(raw, papers, "x") is None
    assert list(papers.iterdir()) == []


def test_the_downloaded_pdf_parses_and_its_content_is_found_first(research_app):
    """Acceptance: the real 1001.0012 PDF goes download -> parse -> rag_search (the library's half does the
    last two), with a second real paper in the library so the right one has to win."""
    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.search.passages import search_library

    for paper_id in ("1001.0012", "1111.2011"):
        download(Library.of(research_app), paper_id)
        assert parse_paper(Library.of(research_app), paper_id).parsed_from == "pdf"
    result = search_library(Library.of(research_app), "Do cooler hot Jupiters show a wide variety of circulation efficiencies?", k=3)
    top = result.hits[0]
    assert top.source == "1001.0012"
    assert "wide variety of circulation efficiencies" in " ".join(top.text.split())


def test_a_symbolic_link_in_a_source_archive_is_not_extracted(tmp_path):
    """A symbolic link in an e-print must not be followed out of the paper's folder."""
    import io

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        link = tarfile.TarInfo("evil.tex")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
        info = tarfile.TarInfo("main.tex")
        info.size = len(EMCEE_TEX)
        tar.addfile(info, io.BytesIO(EMCEE_TEX))
    raw = tmp_path / "eprint"
    raw.write_bytes(buffer.getvalue())
    papers = tmp_path / "papers"
    papers.mkdir()
    folder = unpack_source(raw, papers, "p")
    assert sorted(p.name for p in Path(folder).iterdir()) == ["main.tex"]
