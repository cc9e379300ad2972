"""Issue 25: hostile paper files are read in a bounded child for every entry point (library add,
get_paper_content, parse), bounded in pages, time and memory, with one clear note and the rest of the
library intact. The tests build the small hostile files themselves; they assert outcomes, not times."""

from __future__ import annotations

import resource
import shutil
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import tool_results
from tests.library_support import COWAN_PDF, add_paper, make_app

MILLION = "1,000,000 pages"


def million_page_pdf(levels: int = 6, fan: int = 10) -> bytes:
    """About 1.4 KB: a page tree of `levels` nodes, each listing the next one `fan` times, the last one
    listing one page `fan` times: fan**levels pages (a million), all the same page."""
    objects = {1: "<< /Type /Catalog /Pages 2 0 R >>"}
    for level in range(levels):
        number = 2 + level
        parent = f" /Parent {number - 1} 0 R" if level else ""
        kids = " ".join([f"{number + 1} 0 R"] * fan)
        objects[number] = f"<< /Type /Pages /Kids [{kids}] /Count {fan ** (levels - level)}{parent} >>"
    page = 2 + levels
    stream = "BT /F1 12 Tf 72 720 Td (One page, listed a million times.) Tj ET"
    objects[page] = (f"<< /Type /Page /Parent {page - 1} 0 R /MediaBox [0 0 612 792] /Contents {page + 1} 0 R "
                     f"/Resources << /Font << /F1 {page + 2} 0 R >> >> >>")
    objects[page + 1] = f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"
    objects[page + 2] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    out, offsets = b"%PDF-1.4\n", {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n{objects[number]}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offsets[n]:010d} 00000 n \n".encode() for n in sorted(objects))
    return out + f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()


def _letters(number: int) -> str:
    """A macro name of letters only (LaTeX's, and the reader's, rule): 0 -> 'aaaa', 1 -> 'baaa' ..."""
    return "".join(string.ascii_lowercase[number // 26**k % 26] for k in range(4))


def unclosed_newcommands(count: int = 20_000) -> str:
    """About 440 kB: `count` definitions whose bodies never close (each used to be scanned to the end)."""
    return ("\\documentclass{article}\n\\title{Unclosed}\n"
            + "".join(f"\\newcommand{{\\m{_letters(n)}}}{{x\n" for n in range(count))
            + "\\begin{document}\n\\section{Introduction}\n" + "Some prose about dust. " * 200 + "\n\\end{document}\n")


def _limit_astro_memory() -> None:
    """astro itself under 1 GB: the old in-process PDFium went to 1.2 GB on the million-page PDF."""
    resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))


def _astro(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "astro_cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600, preexec_fn=_limit_astro_memory)


def _chunks(workspace: Path) -> dict[str, int]:
    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    rows = dict(db.execute("SELECT paper_id, count(*) FROM chunks GROUP BY paper_id").fetchall())
    db.close()
    return rows


def _library_with_one_paper(workspace: Path) -> int:
    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.library.service import Library

    app = make_app(workspace)
    add_paper(app, "1202.3665")
    chunks = parse_paper(Library.of(app), "1202.3665").chunks
    app.close()
    return chunks


def test_library_add_of_a_pdf_claiming_a_million_pages_is_bounded_with_one_note(tmp_path, workspace, astro_env):
    good = _library_with_one_paper(workspace)
    hostile = tmp_path / "hostile.pdf"
    hostile.write_bytes(million_page_pdf())
    assert hostile.stat().st_size < 2000
    result = _astro(["library", "add", str(hostile), "--title", "A million pages"], astro_env, workspace)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    notes = [line for line in result.stderr.splitlines() if "beyond astro's limits" in line]
    assert len(notes) == 1 and MILLION in notes[0] and "nothing was indexed" in notes[0]
    listing = _astro(["library", "list"], astro_env, workspace)
    assert "A million pages" in listing.stdout and "emcee" in listing.stdout
    assert _chunks(workspace) == {"1202.3665": good}  # the rest of the library is as it was


def test_get_paper_content_of_a_hostile_pdf_tells_the_model_once(fake, astro_env, workspace, run_astro):
    papers = workspace / "papers"
    papers.mkdir()
    (papers / "2501.01000.pdf").write_bytes(million_page_pdf())
    app = make_app(workspace)
    from astro_cli.research.library.service import Library

    Library.of(app).upsert_paper({"id": "2501.01000", "title": "Claims a million pages",
                               "pdf_path": "papers/2501.01000.pdf"})
    app.close()
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": "2501.01000"}}]}, {"text": "ok"})
    result = run_astro(["run", "read it"], astro_env, timeout=600)
    assert result.returncode == 0, result.stderr
    [shown] = tool_results(fake.bodies()[1])
    assert "beyond astro's limits" in shown and MILLION in shown and shown.count("beyond astro's limits") == 1


def test_library_add_of_a_tex_with_twenty_thousand_unclosed_newcommands(tmp_path, workspace, astro_env):
    good = _library_with_one_paper(workspace)
    source = tmp_path / "unclosed" / "main.tex"
    source.parent.mkdir()
    source.write_text(unclosed_newcommands())
    from astro_cli.research.text.latex_macros import _NEWCOMMAND

    assert len(_NEWCOMMAND.findall(source.read_text())) == 20_000  # each one is a definition the reader sees
    # Since issue 42 the preamble's \title is read (docs/library.md), so this file names itself "Unclosed".
    named = _astro(["library", "add", str(source)], astro_env, workspace)
    assert named.returncode == 0 and "Traceback" not in named.stderr, named.stderr
    assert ": Unclosed\n" in named.stdout and "Indexed" in named.stdout
    # Without a \title nothing names it: one sentence says what to do, still bounded.
    bare = tmp_path / "bare" / "main.tex"
    bare.parent.mkdir()
    bare.write_text(unclosed_newcommands().replace("\\title{Unclosed}\n", ""))
    untitled = _astro(["library", "add", str(bare)], astro_env, workspace)
    assert untitled.returncode != 0 and "Traceback" not in untitled.stderr
    assert "no title could be read from main.tex" in untitled.stderr  # one sentence, what to do
    titled = _astro(["library", "add", str(bare), "--title", "Unclosed macros"], astro_env, workspace)
    assert titled.returncode == 0, titled.stderr
    assert "Indexed" in titled.stdout and "Traceback" not in titled.stderr
    chunks = _chunks(workspace)
    assert chunks["1202.3665"] == good and len(chunks) == 2  # both adds are one paper (its id from "Unclosed")


@pytest.mark.waits  # a child read until its 2 s bound stops it: seconds idle, not in test-fast
def test_the_child_bounds_pages_time_and_memory(tmp_path):
    from astro_cli.research.text.pdf_limits import PdfLimits, read_pages_bounded

    hostile = tmp_path / "hostile.pdf"
    hostile.write_bytes(million_page_pdf())
    pages = read_pages_bounded(hostile, PdfLimits(max_pages=50))
    assert len(pages.pages) == 50 and pages.exceeded == f"it claims {MILLION}; only the first 50 were read"
    slow = read_pages_bounded(hostile, PdfLimits(max_pages=10**6, max_seconds=2))
    assert slow.pages == [] and slow.exceeded == "reading it took more than 2 s"
    small = read_pages_bounded(hostile, PdfLimits(max_memory=16 * 1024 * 1024))
    assert small.pages == [] and small.exceeded == "reading it needed more than 16 MB of memory"
    paper = tmp_path / "paper.pdf"
    shutil.copyfile(COWAN_PDF, paper)
    whole = read_pages_bounded(paper)
    assert whole.exceeded is None and len(whole.pages) == whole.claimed == 12
