"""Issue 42: a paper's typesetting macros reach the index as the words TeX would print, never as
their plumbing (`\\parbox{4cm}`, `flushleft`, `\\ifmmode ... \\else ... \\fi`, box registers), so the
words and values a researcher asks for are found and read. The real astro process, keywords only."""

from __future__ import annotations

import json
import re

from tests.conftest import base_env
from tests.library_support import PAPERS

MODES_TEX = PAPERS.parent / "latex42" / "modes.tex"


def test_typesetting_macros_are_read_as_the_words_they_print(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    (workspace / "modes.tex").write_bytes(MODES_TEX.read_bytes())
    added = run_astro(["library", "add", "./modes.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    hits = json.loads(run_astro(["library", "search", "walrus amplitude angle likelihood draft", "--json", "-k", "10"],
                                env).stdout)["hits"]
    text = "\n".join(hit["text"] for hit in hits)
    # the equation keeps its math and reads its label as words: the mode of each \ifmmode followed
    assert "A_{\\rm s} = (2.101^{+0.031}_{-0.034})\\times 10^{-9} \\quad (68 %, TT,TE,EE + lowE)." in text
    assert re.search(r"uses TT,TE,EE ?\+ ?lowE data, and \$ ?\{\\rm TT,TE,EE\}\$ in math\.", text)
    assert "$\\theta_* = (0.59643°\\pm 0.00026°)$" in text  # the decimal glyph, not its box registers
    assert "commented out" not in text  # \iffalse ... \fi is nothing
    for raw in ("parbox", "flushleft", "ifmmode", "\\else", "\\fi", "allowbreak", "setbox", "rlap", "4cm"):
        assert raw not in text, raw
    assert not re.search(r"\n\s*\n", text.split("\\begin{equation}")[1].split("\\end{equation}")[0])


def test_deeply_nested_conditionals_and_boxes_are_read_in_linear_time(tmp_path):
    """Untrusted input: 50,000 unclosed conditionals and boxes nested 50,000 deep in one equation cost
    a pass each, not a scan of everything open at every token (quadratic: minutes)."""
    import time

    from astro_cli.research.text.latex import latex_sections

    source = tmp_path / "bomb.tex"
    source.write_text("\\documentclass{article}\\begin{document}\\section{A}\n" + "\\ifx a{" * 50_000
                      + "\n$x \\mbox{" * 1 + "\\mbox{" * 50_000 + "y" + "}" * 50_001 + "$\n\\end{document}\n")
    began = time.process_time()
    latex_sections(source)
    assert time.process_time() - began < 20
