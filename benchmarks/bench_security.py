"""Issue 12: what the safety rules cost on every command and every tool result.

    .venv/bin/python benchmarks/bench_security.py [--runs 200] [--skills 20]

- trust assessment: `assess_workspace` (read the project config, parse the project's SKILL.md files for
  allowed-tools, read .mcp.json, look up ASTRO_HOME/trusted-folders.json), which every command that
  builds its context pays, in a workspace with --skills project skills (a third with allowed-tools);
- redaction and tag escaping of a 50 kB tool result, with 6 known secrets (what every result pays);
- a confined, race-free file_write of 10 kB two folders deep, against the plain atomic write it replaced.
Figures are medians of --runs runs, in CPU time of this process (robust on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def cpu_ms(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        action()
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times)


def make_workspace(root: Path, skills: int) -> None:
    for n in range(skills):
        folder = root / "skills" / f"skill-{n:03d}"
        folder.mkdir(parents=True)
        tools = "allowed-tools: [run_bash]\n" if n % 3 == 0 else ""
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{n:03d}\ndescription: Does task {n} for the researcher.\n{tools}---\n" + "body\n" * 200
        )
    (root / ".astro").mkdir()
    (root / ".astro" / "config.yaml").write_text("max_steps: 20\nhooks:\n  SessionStart:\n    - hooks: [{command: 'true'}]\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--skills", type=int, default=20)
    args = parser.parse_args()

    from astro_cli.prompt.tags import escape_tags
    from astro_cli.security.paths import Confinement
    from astro_cli.security.secrets import Redactor
    from astro_cli.security.trust import assess_workspace
    from astro_cli.security.writer import write_file
    from astro_cli.workspace import AstroHome, Workspace

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        make_workspace(root, args.skills)
        ws, home = Workspace(root), AstroHome(Path(tmp) / "home")
        assess = cpu_ms(lambda: assess_workspace(ws.root, home.root, ws.config_path, ws.skills_dirs), args.runs // 4)
        empty = Path(tmp) / "empty"
        empty.mkdir()
        bare = Workspace(empty)
        assess_bare = cpu_ms(lambda: assess_workspace(bare.root, home.root, bare.config_path, bare.skills_dirs),
                             args.runs)
        redactor = Redactor({f"KEY_{n}": f"sk-secret-value-{n:04d}-abcdef" for n in range(6)})
        result = ("The flux of M31 in band r is 12.3 mJy; see <paper-text> notes. " * 800)[:50_000]
        redact = cpu_ms(lambda: redactor.redact(result), args.runs)
        escape = cpu_ms(lambda: escape_tags(result), args.runs)
        confinement = Confinement.for_workspace(ws, home)
        text = "x" * 10_000
        confined = cpu_ms(lambda: confinement.write_text(root / "out" / "deep" / "a.txt", text), args.runs)
        plain = cpu_ms(lambda: write_file(root / "out" / "deep" / "b.txt", text), args.runs)

    print(f"trust assessment, {args.skills} project skills + config with hooks: {assess:.2f} ms CPU")
    print(f"trust assessment, empty folder: {assess_bare:.3f} ms CPU")
    print(f"redact a 50 kB tool result (6 secrets): {redact:.3f} ms CPU")
    print(f"escape_tags on a 50 kB tool result: {escape:.3f} ms CPU")
    print(f"confined race-free write, 10 kB, 2 folders deep: {confined:.3f} ms CPU (the writer trusting the last folder {plain:.3f} ms)")


if __name__ == "__main__":
    main()
