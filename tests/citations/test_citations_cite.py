"""`astro sessions cite ID --bibtex`: BibTeX for the papers a session's answers cited, in order of first
citation, one entry per paper, parsed back with pybtex."""

from __future__ import annotations

import pybtex.database
import pytest

from astro_cli.bootstrap import build_app
from tests import research_server
from tests.helpers import last_json

research = research_server.research

ANSWER = ("Deep-learning testing is compared in arXiv:2202.12139; the Bethe-lattice nodes are in 1111.2011v2 "
          "(published as doi:10.1103/PhysRevB.85.115117), and Murray et al. (2012) again; also 2019ApJ...999..123Z.")


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}  # no ADS token: arXiv only


def _session(cli, fake, env, **extra) -> str:
    fake.add(
        {"tool_calls": [{"name": "search_papers", "arguments": {"query": "testing", "source": "arxiv", "rows": 3}},
                        {"name": "download_paper", "arguments": {"id": "1111.2011", "source": False}}]},
        {"text": ANSWER},
        {"text": ANSWER},  # insists on the invented bibcode
    )
    result = cli(["run", "--output-format", "json", "--yes", "Sources?"], env={**env, **extra})
    assert result.exit_code == 0, result.stderr
    return last_json(result.stdout)["session_id"]


def test_cite_exports_each_cited_paper_once_in_order_of_first_citation(cli, fake, env, workspace):
    session_id = _session(cli, fake, env)
    result = cli(["sessions", "cite", session_id, "--bibtex"], env=env)
    assert result.exit_code == 0, result.stderr
    bib = pybtex.database.parse_string(result.stdout, "bibtex")
    assert list(bib.entries) == ["Ahuja2022_2202.12139", "Murray2012_1111.2011"]
    search_hit = {k.lower(): v for k, v in bib.entries["Ahuja2022_2202.12139"].fields.items()}
    # A workshop paper (arXiv's journal_ref names the conference): INPROCEEDINGS with its booktitle.
    assert bib.entries["Ahuja2022_2202.12139"].type == "inproceedings"
    assert search_hit == {
        "title": "{Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques}",
        "booktitle": "Artificial Intelligence in Software Testing @ 2022 IEEE International Conference on Software "
                     "Testing, Verification and Validation Workshops (ICSTW)",
        "year": "2022", "doi": "10.1109/ICSTW55395.2022.00035", "archiveprefix": "arXiv", "eprint": "2202.12139",
        "primaryclass": "cs.SE", "url": "https://arxiv.org/abs/2202.12139v1",
    }
    assert [str(p) for p in bib.entries["Ahuja2022_2202.12139"].persons["author"]] == [
        "{Ahuja}, Mohit Kumar", "{Gotlieb}, Arnaud", "{Spieker}, Helge"]
    murray = {k.lower(): v for k, v in bib.entries["Murray2012_1111.2011"].fields.items()}
    assert murray["journal"] == "\\prb" and murray["eid"] == "115117" and murray["year"] == "2012"
    assert "left out 1 unverified citation: 2019ApJ...999..123Z." in result.stderr
    out = workspace / "refs.bib"
    result = cli(["sessions", "cite", session_id[:6], "--bibtex", "-o", str(out)], env=env)
    assert result.exit_code == 0, result.stderr
    assert list(pybtex.database.parse_string(out.read_text(), "bibtex").entries) == list(bib.entries)


def test_sessions_show_lists_each_answer_s_citations(cli, fake, env):
    session_id = _session(cli, fake, env)
    shown = cli(["sessions", "export", session_id], env=env).stdout
    assert "## Citations" in shown
    assert "- turn 1: ✅ verified arXiv:2202.12139 — Testing Deep Learning Models" in shown
    assert ("- turn 1: ⚠️ unverified 2019ApJ...999..123Z (the model was asked once to verify it)") in shown


def test_a_session_checked_before_this_feature_is_checked_when_cited(cli, fake, env, workspace):
    session_id = _session(cli, fake, env, ASTRO_CITATIONS_CHECK="off")
    app = build_app(workspace=workspace)
    try:
        assert app.db.query("SELECT count(*) AS n FROM citations")[0]["n"] == 0
    finally:
        app.close()
    result = cli(["sessions", "cite", session_id, "--bibtex"], env=env)
    assert result.exit_code == 0, result.stderr
    assert list(pybtex.database.parse_string(result.stdout, "bibtex").entries) == [
        "Ahuja2022_2202.12139", "Murray2012_1111.2011"]


def test_cite_says_what_is_wrong_in_one_sentence(cli, fake, env):
    fake.add({"text": "No references needed."})
    session_id = last_json(cli(["run", "--output-format", "json", "Hi"], env=env).stdout)["session_id"]
    result = cli(["sessions", "cite", session_id, "--bibtex"], env=env)
    assert result.exit_code == 1 and "cite no paper that could be checked" in result.stderr
    result = cli(["sessions", "cite", "nope", "--bibtex"], env=env)
    assert result.exit_code == 2 and "No session 'nope'" in result.stderr
    result = cli(["sessions", "cite", session_id], env=env)  # BibTeX is the default format (issue 31)
    assert result.exit_code == 1 and "cite no paper that could be checked" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_ids_are_stored_and_left_out_of_the_bibtex(cli, fake, env):
    """Issue 28: a malformed id gets a status of its own and never an entry (no `Untitled` entry)."""
    answer = "See arXiv:1001.12 and 2013PASP.125..306F. for details, and arXiv:2202.12139."
    fake.add({"tool_calls": [{"name": "search_papers", "arguments": {"query": "testing", "source": "arxiv", "rows": 3}}]},
             {"text": answer}, {"text": answer})
    session_id = last_json(cli(["run", "--output-format", "json", "--yes", "Sources?"], env={
        **env, "ASTRO_CITATIONS_CLAIMS": "false"}).stdout)["session_id"]
    result = cli(["sessions", "cite", session_id, "--bibtex"], env=env)
    assert result.exit_code == 0, result.stderr
    assert list(pybtex.database.parse_string(result.stdout, "bibtex").entries) == ["Ahuja2022_2202.12139"]
    assert "left out 2 unverified citations: arXiv:1001.12, 2013PASP.125..306F." in result.stderr


def test_the_migration_keeps_the_stored_citations_and_accepts_malformed_ones(tmp_path, monkeypatch):
    import sqlite_utils

    from astro_cli.store import db as store_db

    database = sqlite_utils.Database(tmp_path / "astro.db")
    every = list(store_db.MIGRATIONS)
    monkeypatch.setattr(store_db, "MIGRATIONS", [m for m in every if m[0] < 10])
    store_db.migrate(database)  # a workspace from before issue 28
    database.execute("INSERT INTO sessions (id, workspace, created_at, updated_at) VALUES ('s1', '/w', 'now', 'now')")
    database.execute("INSERT INTO citations (session_id, turn, ord, ident, kind, status, nudged, created_at) "
                     "VALUES ('s1', 1, 0, '1001.0012', 'arxiv', 'verified', 0, 'now')")
    monkeypatch.setattr(store_db, "MIGRATIONS", every)
    store_db.migrate(database)
    database.execute("INSERT INTO citations (session_id, turn, ord, ident, kind, status, nudged, created_at) "
                     "VALUES ('s1', 1, 1, 'arXiv:1001.12', 'malformed', 'malformed', 0, 'now')")
    rows = database.execute("SELECT ident, kind, status FROM citations ORDER BY ord").fetchall()
    assert rows == [("1001.0012", "arxiv", "verified"), ("arXiv:1001.12", "malformed", "malformed")]
