"""The fixed tasks of bench_local_model.py: the workspace they run in and the rule that says whether
a run succeeded. Rules read what a researcher would check: the answer's words, the tools that ran,
the note file written."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ROOT / "tests" / "fixtures" / "papers"
LIBRARY = ("arXiv_1001.0012v2_astro-ph.EP.pdf", "emcee_2013PASP_ms.tex")

README = """# transit-fits

Fits the transit light curve of the hot Jupiter Kepler-7b with the batman model, sampling the
posterior with emcee. Run `python scripts/fit.py data/kepler7b.csv`; results go to results/.
"""
NOTES = """# Observing notes

- 2024-03-02: TESS sector 14 light curve downloaded, 2-minute cadence.
- 2024-03-05: fitted orbital period P = 4.885489 days, transit depth 0.0067.
- 2024-03-09: stellar mass from isochrones: 1.347 solar masses.
"""
FIT_PY = "import batman\nimport emcee\nimport numpy as np\n\n# fit the light curve\n"
PLOT_PY = "import matplotlib.pyplot as plt\n\n# plot the folded light curve\n"


@dataclass
class Run:
    """What one run left behind, for a rule to judge."""

    answer: str
    tools_ok: list[str]  # names of the tool calls that succeeded
    workspace: Path
    result: dict[str, Any]

    def says(self, *words: str) -> bool:
        text = self.answer.lower()
        return all(w.lower() in text for w in words)

    def note_containing(self, text: str) -> bool:
        notes = self.workspace / "notes"
        return notes.is_dir() and any(text in p.read_text(errors="replace") for p in notes.glob("*.md"))


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    rule: str  # the rule in words, for the report
    check: Callable[[Run], bool]


def _any(run: Run, *words: str) -> bool:
    return any(run.says(w) for w in words)


TASKS = [
    Task("readme", "List the files in this folder and tell me what the README says.",
         "names a file of the folder (notes.md or scripts) and the README's subject (transit / batman / Kepler-7b)",
         lambda r: _any(r, "notes.md", "scripts") and _any(r, "transit", "batman", "kepler-7b")),
    Task("notes_number", "What orbital period did I write in notes.md?",
         "the answer gives 4.885489", lambda r: "4.885489" in r.answer),
    Task("notes_mass", "Which stellar mass is in my observing notes (notes.md)?",
         "the answer gives 1.347", lambda r: "1.347" in r.answer),
    Task("glob_scripts", "Which Python files are in the scripts folder?",
         "the answer names fit.py and plot.py", lambda r: r.says("fit.py", "plot.py")),
    Task("read_code", "Which plotting library does scripts/plot.py import?",
         "the answer names matplotlib", lambda r: r.says("matplotlib")),
    Task("library_cite", "Search my paper library: what is an affine-invariant ensemble sampler? Cite the passage.",
         "rag_search ran and the answer cites the emcee paper (1202.3665, emcee or Foreman-Mackey)",
         lambda r: "rag_search" in r.tools_ok and _any(r, "1202.3665", "emcee", "foreman-mackey")),
    Task("library_paper", "Which paper in my library is about albedo and heat recirculation on hot exoplanets? "
         "Give its authors.", "the answer names Cowan", lambda r: r.says("cowan")),
    Task("save_note", "Save a note titled 'Kepler-7b period' saying the fitted period is 4.885489 days.",
         "a note under notes/ holds 4.885489", lambda r: r.note_containing("4.885489")),
]
BY_NAME = {task.name: task for task in TASKS}


def make_template(folder: Path, astro: list[str], env: dict[str, str]) -> Path:
    """The workspace every run starts from: README, notes, two scripts, the fixture library
    (added with the real `astro library add`)."""
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "scripts").mkdir(parents=True)
    (folder / ".astro").mkdir()
    (folder / "README.md").write_text(README)
    (folder / "notes.md").write_text(NOTES)
    (folder / "scripts" / "fit.py").write_text(FIT_PY)
    (folder / "scripts" / "plot.py").write_text(PLOT_PY)
    downloads = folder.parent / "downloads"
    downloads.mkdir(exist_ok=True)
    for name in LIBRARY:
        shutil.copyfile(PAPERS / name, downloads / name)
        extra = ["--year", "2013", "--arxiv", "1202.3665"] if name.endswith(".tex") else []
        out = subprocess.run([*astro, "library", "add", str(downloads / name), *extra], cwd=folder, env=env,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"astro library add {name} failed: {out.stderr[-400:]}")
    return folder


def fresh_workspace(template: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(template, target)
    return target


def wrong_paths(events: list[dict[str, Any]]) -> list[str]:
    """Path arguments of file tools that did not work (for the report: what the model got wrong)."""
    bad = []
    started = {e.get("call_id"): e for e in events if e.get("type") == "tool_started"}
    for e in events:
        if e.get("type") == "tool_finished" and not e.get("ok"):
            args = (started.get(e.get("call_id")) or {}).get("arguments") or {}
            bad.append(f"{e.get('name')}({', '.join(f'{k}={v!r}' for k, v in args.items())[:80]}): "
                       + re.sub(r"\s+", " ", str(e.get("content", "")))[:100])
    return bad
