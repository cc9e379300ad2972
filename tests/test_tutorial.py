"""docs/tutorial.md, run: every `$` line of its `console` blocks is executed in a fresh folder (the real
`astro` process, a scripted model), and every output line under it must appear in what that command
printed. When the tutorial and astro disagree, this fails."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.library_support import EMCEE_TEX

TUTORIAL = Path(__file__).parent.parent / "docs" / "tutorial.md"


def steps() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$` line of the console blocks, in order."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", TUTORIAL.read_text(encoding="utf-8"), flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif line.strip():
                found[-1][1].append(line.strip())
    return found


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_tutorial_runs_as_written(fake, astro_env, tmp_path):
    fake.add({"text": "A Cepheid is a pulsating supergiant whose period gives its luminosity."},
             {"text": "They calibrate the distance ladder."})
    cwd = tmp_path
    ran = 0
    for command, expected in steps():
        words = shlex.split(command)
        if words[0] == "mkdir":
            (cwd / words[-1]).mkdir(parents=True)
            if words[-1] == "draft":  # the researcher's own LaTeX draft
                shutil.copyfile(EMCEE_TEX, cwd / "draft" / "main.tex")
            continue
        if words[0] == "cd":
            cwd = (cwd / words[1]).resolve()
            continue
        assert words[0] == "astro", command
        done = subprocess.run([sys.executable, "-m", "astro_cli", *words[1:]], env=astro_env, cwd=cwd, input="",
                              capture_output=True, text=True, timeout=180)
        ran += 1
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        printed = _flat(done.stdout + "\n" + done.stderr)
        for line in expected:
            assert _flat(line) in printed, (command, line, printed)
    assert ran >= 8
    assert not (tmp_path / "cepheids" / "notes" / "drafts" / ".astro").exists()
