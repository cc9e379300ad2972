"""Issue 20: the paper library on a PostgreSQL server a research group shares, through the same code.

Every test here runs against a real PostgreSQL server the suite starts itself (tests/pg_support.py);
the behaviour tests run the same steps against the workspace's SQLite library as well, and compare.
"""

from __future__ import annotations

import json
import threading

import pytest

from astro_cli.research.library.content import paper_content
from astro_cli.research.library.doctor import check_library
from astro_cli.research.library.notes import save_note, sync_notes
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from tests.library_support import META, add_paper, make_app
from tests.pg_support import MEMBER, member_url, new_database, pg_app

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def backend_app(request, tmp_path):
    """The same workspace on either library: its own SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        app = make_app(tmp_path / "ws")
    else:
        cluster = request.getfixturevalue("pg_server")
        app = pg_app(tmp_path / "ws", member_url(cluster, new_database(cluster)))
    yield app
    app.close()


def test_a_postgresql_library_is_where_the_rows_go(pg_url, tmp_path):
    app = pg_app(tmp_path / "ws", pg_url)
    add_paper(app, "1202.3665")
    store = Library.of(app).store
    assert store.kind == "postgresql" and store.shared
    assert store.where.startswith(f"postgresql://{MEMBER}@127.0.0.1:") and "member-pass" not in store.where
    assert not app.workspace.db_path.exists()  # nothing of the library reaches the workspace's file
    versions = [row["version"] for row in store._rows("SELECT version FROM astro_schema ORDER BY version")]
    assert versions == [1, 3, 4]  # 2 (vectors) waits for pgvector; 3 (papers.biblio) and 4 (content_sha256) do not
    app.close()


def test_identifiers_merge_and_disagreeing_rows_stay_apart_on_both(backend_app):
    library = Library.of(backend_app)
    first = library.upsert({"arxiv_id": "arXiv:1202.3665v4", "title": "emcee"})
    merged = library.upsert({"bibcode": "2013PASP..125..306F", "doi": "10.1086/670067", "arxiv_id": "1202.3665",
                             "year": 2013, "authors": ["Foreman-Mackey, D."]})
    assert first.created and not merged.created and merged.paper["id"] == "1202.3665"
    for alias in ("1202.3665", "arXiv:1202.3665v2", "2013PASP..125..306F", "10.1086/670067", "DOI:10.1086/670067"):
        assert library.get_paper(alias)["id"] == "1202.3665", alias
    apart = library.upsert({"arxiv_id": "1111.2011", "doi": "10.1086/670067", "title": "another"})
    assert apart.created and apart.conflicts  # same DOI, different arXiv id: two papers
    assert [(c["a"], c["b"], c["kind"]) for c in library.conflicts()] == [("1111.2011", "1202.3665", "DOI")]
    assert [p["id"] for p in library.papers_by_year(2012, 2014)] == ["1202.3665"]
    assert library.knows("2013PASP..125..306F").authors == ("Foreman-Mackey, D.",)


def test_parse_read_search_and_remove_give_the_same_answers_on_both(tmp_path, pg_server):
    apps = {"sqlite": make_app(tmp_path / "a"),
            "postgresql": pg_app(tmp_path / "b", member_url(pg_server, new_database(pg_server)))}
    seen = {}
    for name, app in apps.items():
        for paper_id in ("1001.0012", "1202.3665"):
            add_paper(app, paper_id)
            parse_paper(Library.of(app), paper_id)
        paper = Library.of(app).get_paper("1202.3665")
        section = paper_content(Library.of(app), paper, section="Discussion")
        result = search_library(Library.of(app), "What acceptance fraction range should the sampler have?", k=3)
        seen[name] = (section.text, section.sections, [h.section for h in result.hits][:1],
                      "0.2 to 0.5" in result.hits[0].text, Library.of(app).store.chunk_count())
        assert Library.of(app).remove("1001.0012")
        assert Library.of(app).store.chunk_count() == Library.of(app).store.chunk_count("1202.3665")
        app.close()
    assert seen["sqlite"] == seen["postgresql"]
    assert seen["postgresql"][3]


def test_notes_are_searchable_and_a_sync_touches_only_its_own_members_notes(tmp_path, pg_server):
    url = member_url(pg_server, new_database(pg_server))
    alice = pg_app(tmp_path / "alice", url, **{"library.member": "alice"})
    bob = pg_app(tmp_path / "bob", url, **{"library.member": "bob"})
    save_note(Library.of(alice), "Walker count", "Use hundreds of walkers for a cryogenic bolometer fit.")
    save_note(Library.of(bob), "Walker count", "Bob's own words on the quasar bolometer.")  # same title and path, other member
    assert sync_notes(Library.of(bob)) == 0 and sync_notes(Library.of(alice)) == 0  # neither deletes the other's note
    hits = search_library(Library.of(bob), "cryogenic bolometer walkers", k=5).hits
    assert {h.text.split(".")[0] for h in hits} == {"Use hundreds of walkers for a cryogenic bolometer fit",
                                                     "Bob's own words on the quasar bolometer"}
    (tmp_path / "bob" / "notes" / "walker-count.md").unlink()
    assert sync_notes(Library.of(bob)) == 1
    assert [h.text for h in search_library(Library.of(alice), "bolometer", k=5).hits] == [
        "Use hundreds of walkers for a cryogenic bolometer fit."]
    alice.close()
    bob.close()


def test_the_doctor_runs_on_postgresql_and_counts_papers_whose_files_are_elsewhere(tmp_path, pg_server):
    url = member_url(pg_server, new_database(pg_server))
    alice = pg_app(tmp_path / "alice", url)
    add_paper(alice, "1202.3665")
    parse_paper(Library.of(alice), "1202.3665")
    bob = pg_app(tmp_path / "bob", url)
    report = check_library(Library.of(bob))
    assert report.papers == 1 and report.chunks > 20 and not report.needs_you
    assert [f.text for f in report.findings if f.kind == "note"][0].startswith(
        "1 paper(s) of the group library have no file on this machine (1202.3665)")
    # Bob reads the text without the file: it is in the library.
    assert "acceptance fraction" in paper_content(Library.of(bob), Library.of(bob).get_paper("1202.3665"), section="4").text
    alice.close()
    bob.close()


def test_ten_people_adding_the_same_paper_at_once_make_one_row(tmp_path, pg_server):
    url = member_url(pg_server, new_database(pg_server))
    apps = [pg_app(tmp_path / f"m{n}", url, **{"library.member": f"member{n}"}) for n in range(10)]
    Library.of(apps[0]).store.paper("x")  # the schema exists before the race on the row
    start = threading.Barrier(len(apps))
    results, errors = [], []

    def add(app):
        store = Library.of(app).store
        insert = store.insert_paper

        def insert_together(row):  # every process has looked and found nothing: now all insert at once
            start.wait()
            return insert(row)

        store.insert_paper = insert_together
        try:
            results.append(Library.of(app).upsert({**META["1202.3665"]}))
        except Exception as exc:  # noqa: BLE001 - any failure fails the test below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(r.created for r in results) == 1
    rows = Library.of(apps[0]).store._rows("SELECT id, added_by FROM papers")
    assert len(rows) == 1 and rows[0]["id"] == "1202.3665"
    for app in apps:
        app.close()


def test_two_people_indexing_the_same_paper_at_once_leave_one_set_of_chunks(tmp_path, pg_server):
    url = member_url(pg_server, new_database(pg_server))
    apps = [pg_app(tmp_path / f"m{n}", url) for n in range(4)]
    for app in apps:
        add_paper(app, "1202.3665")  # each has the file; one row
    start = threading.Barrier(len(apps))
    errors = []

    def parse(app):
        start.wait()
        try:
            parse_paper(Library.of(app), "1202.3665")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=parse, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    rows = Library.of(apps[0]).store._rows("SELECT ord, count(*) AS n FROM chunks GROUP BY ord")
    assert rows and all(r["n"] == 1 for r in rows)
    for app in apps:
        app.close()


def test_ten_processes_starting_at_once_migrate_once(pg_server):
    import psycopg

    from astro_cli.research.library.storage import pg_schema

    url = member_url(pg_server, new_database(pg_server))
    connections = [psycopg.connect(url, autocommit=True) for _ in range(10)]
    start = threading.Barrier(len(connections))
    applied, errors = [], []

    def run(conn):
        start.wait()
        try:
            applied.append(pg_schema.migrate(conn))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(conn,)) for conn in connections]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(applied, key=len) == [[]] * 9 + [[1, 3, 4]]
    rows = connections[0].execute("SELECT version, applied_by FROM astro_schema ORDER BY version").fetchall()
    assert rows == [(1, MEMBER), (3, MEMBER), (4, MEMBER)]
    for conn in connections:
        conn.close()


def test_who_added_what_is_recorded_and_listed_by_name(cli, tmp_path, pg_server, workspace):
    from tests.conftest import base_env

    url = member_url(pg_server, new_database(pg_server))
    for member, paper_id in (("alice", "1202.3665"), ("bob", "1001.0012"), ("alice", "1111.2011")):
        app = pg_app(tmp_path / member, url, **{"library.member": member})
        add_paper(app, paper_id)
        app.close()
    env = {**base_env(tmp_path), "ASTRO_LIBRARY_URL": url}
    result = cli(["library", "list", "--by", "Alice", "--json"], env)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["id"], r["added_by"]) for r in rows] == [("1111.2011", "alice"), ("1202.3665", "alice")]
    assert all(r["added_at"][:4].isdigit() for r in rows)
    table = cli(["library", "list"], env)
    assert "added by" in table.stdout and "bob," in table.stdout and "member-pass" not in table.stdout
    nobody = cli(["library", "list", "--by", "carol"], env)
    assert "No paper was added by carol. Papers were added by: alice (2), bob (1)." in nobody.stdout
