"""Issue 29, bad input on real files through the real `astro library add` process: a PDF whose
fonts have no Unicode map (pdf.js's complex_ttf_font.pdf), a scan without a text layer
(pdfplumber's issue-203-decimalize.pdf), a table set at an angle (pdfplumber's issue-140-example.pdf)
and a 500-page PDF: one clear sentence each, nothing garbled presented as a title, the rest indexed."""

from __future__ import annotations

import json
import shutil

import pypdfium2 as pdfium
import pytest

from tests.conftest import base_env
from tests.paths import FIXTURES_DIR

BAD = FIXTURES_DIR / "badpdf"
PAPERS = FIXTURES_DIR / "papers"


@pytest.fixture
def env(tmp_path):
    return base_env(tmp_path)


def _add(run_astro, workspace, env, name, *flags, timeout=180):
    shutil.copyfile(BAD / name, workspace / name)
    return run_astro(["library", "add", f"./{name}", *flags], env, timeout=timeout)


def test_fonts_without_a_unicode_map_give_no_title_and_a_note(run_astro, workspace, env):
    guessed = _add(run_astro, workspace, env, "complex_ttf_font.pdf")
    assert guessed.returncode == 1
    assert ("no title could be read from complex_ttf_font.pdf (the fonts of its first page have no Unicode map, "
            "so their text is not readable); give one with --title") in guessed.stderr
    assert "Traceback" not in guessed.stderr and "ଋ" not in guessed.stdout + guessed.stderr  # no garbled title

    titled = _add(run_astro, workspace, env, "complex_ttf_font.pdf", "--title", "Font test", "--author", "pdf.js",
                  "--year", "2020")
    assert titled.returncode == 0, titled.stderr
    assert "Font test (pdf.js, 2020)" in titled.stdout
    assert "note: fonts without a Unicode map on page 1: their text may be wrong." in titled.stderr


def test_a_scan_without_a_text_layer_is_named_not_indexed_silently(run_astro, workspace, env):
    untitled = _add(run_astro, workspace, env, "issue-203-decimalize.pdf")
    assert untitled.returncode == 1
    assert ("no title could be read from issue-203-decimalize.pdf (its first page has no text layer "
            "(a scanned image; astro does no OCR)); give one with --title") in untitled.stderr

    titled = _add(run_astro, workspace, env, "issue-203-decimalize.pdf", "--title", "Scanned table")
    assert titled.returncode == 0, titled.stderr
    assert "no text layer on pages 1-3 (scanned images; astro does no OCR)" in titled.stderr
    assert "Traceback" not in untitled.stderr + titled.stderr


def test_a_rotated_table_is_read_row_by_row_with_one_note(run_astro, workspace, env):
    added = _add(run_astro, workspace, env, "issue-140-example.pdf", "--title", "Claims", "--year", "2019")
    assert added.returncode == 0, added.stderr
    assert "note: rotated text (a turned table?) on page 1 is read line by line as printed." in added.stderr
    hits = json.loads(run_astro(["library", "search", "ALMND CHOC", "--json"], env).stdout)["hits"]
    assert hits and "0085648100305 CENTRAL KMA LILYS 40% SLTD ALMND CHOC 637 $ 0.61 $ 388.57" in hits[0]["text"]


@pytest.mark.slow
def test_a_500_page_pdf_is_read_within_bounds(run_astro, workspace, env):
    sources = [pdfium.PdfDocument(str(p)) for p in sorted(PAPERS.glob("*.pdf"))]
    thesis = pdfium.PdfDocument.new()
    while len(thesis) < 500:
        for source in sources:
            thesis.import_pages(source, list(range(min(len(source), 500 - len(thesis)))))
    thesis.save(str(workspace / "thesis.pdf"))
    added = run_astro(["library", "add", "./thesis.pdf", "--title", "A long thesis", "--year", "2024"], env,
                      timeout=900)
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr
    indexed = [line for line in added.stdout.splitlines() if line.startswith("Indexed ")]
    assert indexed and int(indexed[0].split()[1]) > 500  # every page read, none dropped silently
    hits = json.loads(run_astro(["library", "search", "Tesanovic", "--json"], env).stdout)["hits"]
    assert hits  # text from the later documents of the concatenation is there too
