"""Issue 20: a paper's PDF is not shared through the database, only its text. A member without the file
gets it again from arXiv (the stand-in on 127.0.0.1) when a tool needs it; `library.files_path`
points every member at one shared folder instead."""

from __future__ import annotations

from pathlib import Path

from astro_cli.app import AppContext
from astro_cli.config import load_settings
from astro_cli.research.library.download import download
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.security.trust import is_risky_key
from astro_cli.workspace import AstroHome, Workspace
from tests.pg_support import member_url, new_database
from tests.research_server import research  # noqa: F401 - fixture


def _member(root: Path, research, url: str, **settings) -> AppContext:  # noqa: F811
    root.mkdir(parents=True, exist_ok=True)
    flags = {"library.database_url": url, "library.member": root.name, "library.embedding_model": "off", **settings}
    return AppContext(load_settings([], env=research.env(), flags=flags), Workspace(root.resolve()),
                      AstroHome(root / ".home"))


def test_a_member_without_the_file_gets_it_again_from_arxiv(tmp_path, pg_server, research):  # noqa: F811
    url = member_url(pg_server, new_database(pg_server))
    alice = _member(tmp_path / "alice", research, url)
    download(Library.of(alice), "1001.0012", with_source=False)
    parse_paper(Library.of(alice), "1001.0012")
    fetched = len(research.hits("/pdf/"))
    bob = _member(tmp_path / "bob", research, url)
    paper = Library.of(bob).get_paper("1001.0012")
    assert paper["added_by"] == "alice" and not Library.of(bob).has_files(paper)
    assert parse_paper(Library.of(bob), "1001.0012").already  # the text is there: nothing to fetch
    report = parse_paper(Library.of(bob), "1001.0012", force=True)  # reading the PDF again needs it
    assert report.chunks > 20 and len(research.hits("/pdf/")) == fetched + 1
    assert (tmp_path / "bob" / "papers" / "1001.0012.pdf").is_file()
    assert Library.of(bob).has_files(Library.of(bob).get_paper("1001.0012"))
    alice.close()
    bob.close()


def test_a_shared_files_path_serves_every_member(tmp_path, pg_server, research):  # noqa: F811
    url = member_url(pg_server, new_database(pg_server))
    shared = tmp_path / "group-papers"
    carol = _member(tmp_path / "carol", research, url, **{"library.files_path": str(shared)})
    download(Library.of(carol), "1001.0012", with_source=False)
    assert (shared / "1001.0012.pdf").is_file() and not (tmp_path / "carol" / "papers").exists()
    fetched = len(research.hits("/pdf/"))
    dave = _member(tmp_path / "dave", research, url, **{"library.files_path": str(shared)})
    assert Library.of(dave).has_files(Library.of(dave).get_paper("1001.0012"))
    assert parse_paper(Library.of(dave), "1001.0012").chunks > 20
    assert len(research.hits("/pdf/")) == fetched  # read from the shared folder, not fetched again
    carol.close()
    dave.close()


def test_a_project_cannot_redirect_where_papers_are_written():
    assert is_risky_key("library.files_path") and is_risky_key("library.database_url")
    assert not is_risky_key("library.member")
