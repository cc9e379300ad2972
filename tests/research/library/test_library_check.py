"""`astro library check` (alias `doctor`): what is wrong in a library, and the repairs that are safe.

The broken library is the one the mixing defect of issue 14 left behind (a row named 1001.0012 that
took 1111.2011's arXiv id, title and PDF while keeping 1001.0012's chunks), plus the debris of
crashes and hand edits: chunks of a removed paper, an index out of step, a temporary folder, a
file no row names.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from astro_cli.research.library.doctor import check_library
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from tests.library_support import MURRAY_PDF, add_paper, make_app


@pytest.fixture
def app(tmp_path):
    context = make_app(tmp_path / "ws")
    yield context
    context.close()


def _break(app) -> None:
    """The library as the old upsert left it, and the debris of an interrupted life."""
    add_paper(app, "1001.0012")
    parse_paper(Library.of(app), "1001.0012")
    shutil.copyfile(MURRAY_PDF, app.workspace.papers_dir / "1111.2011.pdf")
    app.db.execute(
        "UPDATE papers SET arxiv_id = '1111.2011', bibcode = '2021NewA...8301491M', pdf_path = 'papers/1111.2011.pdf', "
        "title = 'Quantum Criticality for Extended Nodes' WHERE id = '1001.0012'"
    )
    Library.of(app).upsert_paper({"id": "2202.12139", "arxiv_id": "2202.12139", "title": "indexed, but no chunks",
                               "parsed_at": "2026-01-01T00:00:00+00:00", "parsed_from": "pdf"})
    app.db.execute("PRAGMA foreign_keys = OFF")
    app.db.execute("INSERT INTO chunks (paper_id, section, page, ord, text) VALUES ('gone', 'x', 1, 0, 'orphan text')")
    app.db.execute("PRAGMA foreign_keys = ON")
    app.db.execute("INSERT INTO chunks_fts (chunks_fts, rowid, text, section) VALUES "
                   "('delete', (SELECT min(id) FROM chunks WHERE paper_id = '1001.0012'), "
                   "(SELECT text FROM chunks WHERE id = (SELECT min(id) FROM chunks WHERE paper_id = '1001.0012')), "
                   "(SELECT coalesce(section, '') FROM chunks WHERE id = (SELECT min(id) FROM chunks WHERE paper_id = '1001.0012')))")
    temp = app.workspace.papers_dir / ".1001.0012-abcd"
    temp.mkdir()
    (temp / "payload").write_bytes(b"half")
    old = time.time() - 7200
    os.utime(temp, (old, old))
    (app.workspace.papers_dir / "stray.pdf").write_bytes(b"%PDF-1.4 someone's file")


def test_check_repairs_what_is_safe_and_names_the_rest(app):
    _break(app)
    dry = check_library(Library.of(app), repair=False)
    assert app.db.query("SELECT count(*) AS n FROM chunks WHERE paper_id = 'gone'")[0]["n"] == 1  # nothing touched
    assert {f.kind for f in dry.findings} == {"note", "needs-you"}
    report = check_library(Library.of(app))
    texts = {f.kind: [] for f in report.findings}
    for finding in report.findings:
        texts[finding.kind].append(finding.text)
    assert texts["needs-you"] == [
        "1001.0012 (Quantum Criticality for Extended Nodes) mixes two papers: its id is arXiv 1001.0012 but its "
        "arXiv id is 1111.2011. Remove it (`astro library remove 1001.0012`) and add each paper again."
    ]
    assert sorted(texts["fixed"]) == sorted([
        "removed 1 chunk(s) and 0 vector(s) whose paper or note is no longer in the library",
        "rebuilt the full-text index, which was out of step with the chunks",
        "2202.12139 was marked indexed but has no chunks; it is indexed again when next read",
        "removed papers/.1001.0012-abcd, a temporary folder left by an interrupted download",
    ])
    assert texts["note"] == ["papers/1001.0012.pdf is in no library row (add it with `astro library add`, or delete it)",
                             "papers/stray.pdf is in no library row (add it with `astro library add`, or delete it)"]
    assert app.db.query("SELECT count(*) AS n FROM chunks WHERE paper_id = 'gone'")[0]["n"] == 0
    assert Library.of(app).get_paper("2202.12139")["parsed_at"] is None
    assert not (app.workspace.papers_dir / ".1001.0012-abcd").exists()
    assert (app.workspace.papers_dir / "stray.pdf").exists()  # the user's file stays
    again = check_library(Library.of(app))
    assert [f.kind for f in again.findings].count("fixed") == 0  # repairs hold


def test_the_command_exits_1_while_something_needs_the_user(cli, workspace, tmp_path):
    from tests.conftest import base_env

    target = make_app(workspace)
    try:
        _break(target)
    finally:
        target.close()
    env = base_env(tmp_path)
    result = cli(["library", "check"], env=env)
    assert result.exit_code == 1, result.stdout
    assert "needs-you: 1001.0012 (Quantum Criticality for Extended Nodes) mixes two papers" in " ".join(result.stdout.split())
    report = json.loads(cli(["library", "doctor", "--json", "--dry-run"], env=env).stdout)
    assert report["papers"] == 2 and any(f["kind"] == "needs-you" for f in report["findings"])
    target = make_app(workspace)
    try:
        Library.of(target).remove("1001.0012")
    finally:
        target.close()
    result = cli(["library", "check"], env=env)
    assert result.exit_code == 0, result.stdout


def test_a_clean_library_is_in_order(cli, workspace, tmp_path):
    from tests.conftest import base_env

    target = make_app(workspace)
    try:
        add_paper(target, "1001.0012")
    finally:
        target.close()
    result = cli(["library", "check"], env=base_env(tmp_path))
    assert result.exit_code == 0 and "Everything is in order." in result.stdout
