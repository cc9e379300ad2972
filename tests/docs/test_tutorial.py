"""docs/tutorial.md, run: every `$` line of its `console` blocks is executed in a fresh folder (the real
`astro` process, a scripted model), and every output line under it must appear in what that command
printed. When the tutorial and astro disagree, this fails."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

from tests.paths import REPO_ROOT

TUTORIAL = REPO_ROOT / "docs" / "tutorial.md"


def steps() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$` line of the console blocks, in order."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", TUTORIAL.read_text(encoding="utf-8"), flags=re.S):
        heredoc = False  # `$ cat > FILE <<'EOF'`: the lines up to EOF are the file, kept as written
        for line in block.splitlines():
            if heredoc:
                heredoc = line != "EOF"
                if heredoc:
                    found[-1][1].append(line)
            elif line.startswith("$ "):
                found.append((line[2:].strip(), []))
                heredoc = line.rstrip().endswith("<<'EOF'")
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
            continue
        if words[0] == "cat":  # cat > FILE <<'EOF', written as the page shows it
            (cwd / words[2]).write_text("\n".join(expected) + "\n", encoding="utf-8")
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
    # `astro -c "..."` continued the first conversation: the model read the first question with the second.
    follow_up = next(body for body in fake.bodies() if "and why do they matter for H0?" in json.dumps(body))
    assert "what is a cepheid?" in [m["content"] for m in follow_up["messages"] if m["role"] == "user"]
    assert not (tmp_path / "cepheids" / "notes" / "drafts" / ".astro").exists()
