"""Hostile LaTeX is bounded (issue 13): macro bombs, \\input fan-outs, slow or huge sources."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from astro_cli.research.text.latex import latex_sections
from astro_cli.research.text.latex_limits import Budget, LatexLimits, read_bounded
from tests import research_server
from tests.conftest import base_env
from tests.helpers import cpu_seconds
from tests.paths import FIXTURES_DIR
from tests.research_server import tar_gz_bytes

research = research_server.research  # fixture

PROSE = "The phase curve of the planet constrains its albedo and heat recirculation. " * 40


def macro_bomb() -> str:
    """770 bytes: \\x is 40 copies of itself, used 200 times (40^k copies after k expansions)."""
    return ("\\documentclass{article}\n\\newcommand{\\x}{" + "\\x" * 40 + "}\n\\begin{document}\n"
            "\\section{Introduction}\n" + PROSE[:100] + "\n" + "\\x" * 200 + "\n\\end{document}\n")


def input_fan_out(levels: int = 12, width: int = 3) -> dict[str, str]:
    """main.tex inputs level1.tex three times, which inputs level2.tex three times, ... 12 levels."""
    files = {"main.tex": "\\documentclass{article}\n\\begin{document}\n\\section{Intro}\n" + PROSE
             + "\\input{level1}" * width + "\n\\end{document}\n"}
    for level in range(1, levels + 1):
        below = f"\\input{{level{level + 1}}}" * width if level < levels else ""
        files[f"level{level}.tex"] = PROSE + below
    return files


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "source"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_a_macro_bomb_stops_at_the_output_bound(tmp_path: Path):
    assert len(macro_bomb()) < 800
    (tmp_path / "bomb.tex").write_text(macro_bomb())
    budget = Budget()
    began = cpu_seconds()
    title, sections = latex_sections(tmp_path / "bomb.tex", budget=budget)
    assert cpu_seconds() - began < 20  # CPU seconds: stopped at the bound, not after minutes of expansion
    assert budget.exceeded == "its macros expand to more than 4 million characters"
    assert sections and sections[0].title == "1 Introduction"  # what was read is there


def test_an_input_fan_out_stops_at_the_file_bound(tmp_path: Path):
    budget = Budget()
    began = cpu_seconds()
    _title, sections = latex_sections(_folder(tmp_path, input_fan_out(levels=6, width=3)), budget=budget)
    assert cpu_seconds() - began < 20  # CPU seconds
    assert budget.exceeded == "it inputs more than 200 files"
    assert "phase curve" in sections[0].text


def test_deep_inputs_stop_at_the_depth_bound(tmp_path: Path):
    budget = Budget()
    latex_sections(_folder(tmp_path, input_fan_out(levels=12, width=1)), budget=budget)
    assert budget.exceeded == "\\input files nest more than 8 levels deep"


def test_an_ordinary_paper_is_within_every_bound(tmp_path: Path):
    source = FIXTURES_DIR / "papers" / "emcee_2013PASP_ms.tex"
    reading = read_bounded(source)
    assert reading.exceeded is None
    assert reading.title == "emcee: The MCMC Hammer"
    titles = [title for title, _text in reading.sections]
    assert titles[0] == "Abstract" and "1 Introduction" in titles and len(titles) > 5


@pytest.mark.heavy  # reads until a 2 s bound and a 200 MB bound stop the child
def test_the_child_process_bounds_time_and_memory(tmp_path: Path):
    slow = tmp_path / "slow.tex"  # figures never closed: each one is looked for up to the end of the text
    slow.write_text("\\documentclass{article}\n\\begin{document}\n" + "\\begin{figure} x " * 100_000
                    + "\n\\end{document}\n")
    began = cpu_seconds()
    reading = read_bounded(slow, LatexLimits(max_seconds=2))
    assert cpu_seconds() - began < 10  # the reading child's CPU: it was stopped, not left to run for minutes
    assert reading.exceeded == "reading it took more than 2 s" and reading.sections == []

    big = tmp_path / "big.tex"
    big.write_text("\\documentclass{article}\n\\begin{document}\n" + PROSE * 4000 + "\n\\end{document}\n")
    # The memory bound alone: a loaded machine must not reach the default 30 s before the 200 MB.
    reading = read_bounded(big, LatexLimits(max_memory=200 * 1024 * 1024, max_seconds=600))
    assert reading.exceeded == "reading it needed more than 200 MB of memory"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))


def test_library_add_falls_back_to_the_pdf_with_one_line(research, workspace, tmp_path):
    """The real process, bounded at 3 GB: the old reader needed more, and ran for minutes."""
    env = {**base_env(tmp_path), **research.env()}
    research.eprints["1001.0012"] = tar_gz_bytes({"ms.tex": macro_bomb().encode()})
    research.eprints["1111.2011"] = tar_gz_bytes({k: v.encode() for k, v in input_fan_out().items()})
    for paper in ("1001.0012", "1111.2011"):
        began = cpu_seconds()
        proc = subprocess.run([sys.executable, "-m", "astro_cli", "library", "add", paper], env=env, cwd=workspace,
                              capture_output=True, text=True, timeout=180, preexec_fn=_limit_memory)
        assert proc.returncode == 0, proc.stderr
        assert cpu_seconds() - began < 60  # CPU seconds of astro and its reader: the old one ran for minutes
        assert "Indexed" in proc.stdout and "chunks from the PDF." in proc.stdout
        notes = [line for line in proc.stderr.splitlines() if "beyond astro's limits" in line]
        assert len(notes) == 1 and notes[0].endswith("so the PDF was used.")


def nested_macros(depth: int) -> str:
    """\\a1 uses \\a2 ... uses \\a<depth>, which writes a value: `depth` passes expand it whole."""
    defs = "".join(f"\\newcommand{{\\m{chr(96 + k)}}}{{\\m{chr(97 + k)}}}\n" for k in range(1, depth))
    defs += f"\\newcommand{{\\m{chr(96 + depth)}}}{{0.0506 \\pm 0.0086}}\n"
    return ("\\documentclass{article}\n" + defs + "\\title{Nested macros}\n\\begin{document}\n\\section{Results}\n"
            + PROSE[:300] + " We find $\\tau = \\ma$ from the low-multipole data.\n\\end{document}\n")


def test_macros_expanded_whole_in_exactly_the_allowed_passes_are_within_bounds(tmp_path, astro_env, workspace,
                                                                                 run_astro):
    """Planck 2018 VI's macros end expanding at the 8th pass; the reader asked for a 9th pass only to
    see that nothing changed, was refused, and called the paper beyond its limits (a PDF beside it would
    have been read instead). A source that needs a 9th pass is still stopped."""
    budget = Budget()
    (tmp_path / "eight.tex").write_text(nested_macros(8))
    _title, sections = latex_sections(tmp_path / "eight.tex", budget=budget)
    assert budget.exceeded is None and "0.0506 \\pm 0.0086" in sections[-1].text
    deeper = Budget()
    (tmp_path / "ten.tex").write_text(nested_macros(10))
    latex_sections(tmp_path / "ten.tex", budget=deeper)
    assert deeper.exceeded == "its macros nest more than 8 levels deep"
    (workspace / "eight.tex").write_text(nested_macros(8))
    added = run_astro(["library", "add", "./eight.tex"], astro_env)
    assert added.returncode == 0, added.stderr
    assert "beyond astro's limits" not in added.stdout + added.stderr, added.stdout
