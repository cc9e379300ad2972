"""The papers table and its aliases: what download_paper writes and every library tool reads."""

from __future__ import annotations

import sqlite3

import pytest

from astro_cli.research.library.papers import normalize_arxiv
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from tests.library_support import add_paper, make_app


@pytest.fixture
def app(tmp_path):
    context = make_app(tmp_path / "ws")
    yield context
    context.close()


def test_a_paper_is_found_by_any_of_its_names(app):
    library = Library.of(app)
    library.upsert_paper({"id": "arXiv:1202.3665v3", "arxiv_id": "arXiv:1202.3665v3", "title": "emcee",
                          "authors": ["D. Foreman-Mackey"], "year": "2013"})
    row = library.upsert_paper({"id": "2013PASP..125..306F", "bibcode": "2013PASP..125..306F",
                                "arxiv_id": "1202.3665", "doi": "10.1086/670067", "citation_count": 5299})
    # The second call named the same paper by its arXiv id: one row, the first id kept, fields merged.
    assert row.id == "1202.3665" and row.bibcode == "2013PASP..125..306F"
    assert row.title == "emcee" and row.authors == ("D. Foreman-Mackey",) and row.year == 2013
    assert row.citation_count == 5299
    for alias in ("1202.3665", "arXiv:1202.3665", "1202.3665v2", "https://arxiv.org/abs/1202.3665v1",
                  "2013PASP..125..306F", "10.1086/670067", "DOI:10.1086/670067", "https://doi.org/10.1086/670067"):
        assert library.get_paper(alias)["id"] == "1202.3665", alias
    assert library.get_paper("1202.36650") is None and library.get_paper("") is None
    assert len(library.list_papers()) == 1


def test_old_style_arxiv_ids_keep_their_archive():
    assert normalize_arxiv("arXiv:astro-ph/0601001v2") == "astro-ph/0601001"
    assert normalize_arxiv("astro-ph/0601001") == "astro-ph/0601001"


def test_a_paper_without_any_identifier_is_refused(app):
    with pytest.raises(ValueError):
        Library.of(app).upsert_paper({"title": "nameless"})


def test_paths_inside_the_workspace_are_stored_relative(app):
    row = add_paper(app, "1001.0012")
    assert row.pdf_path == "papers/1001.0012.pdf"
    assert Library.of(app).resolve_file(row.pdf_path) == app.workspace.root / "papers" / "1001.0012.pdf"


def test_remove_deletes_rows_chunks_index_and_files_under_papers(app, tmp_path):
    add_paper(app, "1001.0012")
    source_dir = app.workspace.papers_dir / "1001.0012-source"
    (source_dir / "sections").mkdir(parents=True)
    (source_dir / "sections" / "intro.tex").write_text("\\section{Intro} text")
    outside = tmp_path / "mine.pdf"
    outside.write_bytes(b"%PDF-1.4 the user's own copy")
    library = Library.of(app)
    library.upsert_paper({"id": "1001.0012", "source_path": str(source_dir)})
    other = library.upsert_paper({"id": "9999.0001", "arxiv_id": "9999.0001", "pdf_path": str(outside)})
    from astro_cli.research.library.parse import Chunk, store_chunks

    store_chunks(library, "1001.0012", [Chunk("1 Intro", 1, 0, "hot Jupiter albedo")], "pdf", 12)
    assert app.db.query("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'albedo'")[0]["n"] == 1

    assert library.remove("arXiv:1001.0012v2") is True
    assert library.get_paper("1001.0012") is None
    assert app.db.query("SELECT count(*) AS n FROM chunks")[0]["n"] == 0
    assert app.db.query("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'albedo'")[0]["n"] == 0
    assert not (app.workspace.papers_dir / "1001.0012.pdf").exists() and not source_dir.exists()
    # A file outside papers/ is the user's: removing its paper leaves it alone.
    assert library.remove(other["id"]) is True and outside.exists()
    assert library.remove("1001.0012") is False


def test_chunks_must_belong_to_a_paper_or_a_note(app):
    with pytest.raises(sqlite3.IntegrityError):
        app.db.execute("INSERT INTO chunks (paper_id, note_id, ord, text) VALUES (NULL, NULL, 0, 'orphan')")


def test_list_counts_indexed_chunks(app):
    add_paper(app, "1001.0012")
    add_paper(app, "1202.3665")
    parse_paper(Library.of(app), "1202.3665")
    rows = {row.id: row for row in Library.of(app).list_papers()}
    assert rows["1001.0012"].chunks == 0 and rows["1001.0012"].parsed_at is None
    assert rows["1202.3665"].chunks > 10 and rows["1202.3665"].parsed_from == "latex"
