"""The claim check through the real process: a paper's LaTeX passage in the library, then an answer the scripted
model gives after reading it. Shared by the tests/citations/test_claims_*_e2e files of each stop's causes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from astro_cli.bootstrap import build_app
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.records import passage_handle
from tests.helpers import last_json

KEYWORDS_ONLY = {"library.embedding_model": "off"}


def latex_passages(workspace: Path, sources: dict[str, tuple[str, str, str]], year: int,
                   marks: dict[str, str] | None = None) -> dict[str, str]:
    """Each paper (id -> title, section, LaTeX text) written as a LaTeX source, added and parsed; the handle of
    the chunk holding its mark (default: the text's first 20 characters)."""
    app = build_app(KEYWORDS_ONLY, workspace=workspace)
    handles = {}
    try:
        library = Library.of(app)
        for paper, (title, section, text) in sources.items():
            source = workspace / "papers" / f"{paper}.tex"
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(f"\\documentclass{{aastex}}\n\\begin{{document}}\n\\title{{{title}}}\n"
                              f"\\section{{{section}}}\n{text}\n\\end{{document}}\n")
            library.upsert_paper({"id": paper, "arxiv_id": paper, "title": title, "year": year,
                                  "source_path": str(source)})
            parse_paper(library, paper)
            mark = (marks or {}).get(paper, text[:20])
            [row] = [r for r in app.db.query("SELECT * FROM chunks WHERE paper_id = ? ORDER BY ord", [paper])
                     if mark in r["text"]]
            handles[paper] = passage_handle(paper, row["ord"], row["page"], row["section"])
    finally:
        app.close()
    return handles


def claims_of(run_astro: Any, fake: Any, env: dict[str, str], paper: str, answer: str) -> list[dict[str, Any]]:
    """The claims of `answer`, given after the model read `paper` (twice: it insists after the one nudge)."""
    reading = {"tool_calls": [{"name": "get_paper_content", "arguments": {"id": paper}}]}
    fake.add(reading, {"text": answer}, {"text": answer})
    result = run_astro(["run", "--output-format", "json", "What does the paper say?"], env)
    assert result.returncode == 0, result.stderr
    return list(last_json(result.stdout)["claims"])
