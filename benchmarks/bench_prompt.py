"""Issue 3: one prompt assembly with 19+ tools, 50 skills and 200 memory entries loaded.

    .venv/bin/python benchmarks/bench_prompt.py [--runs N]

Builds a throw-away workspace with 50 SKILL.md files and 200 memory files, installs every astro
feature (the real tool, skill and memory code), then times `app.prompt.assemble(...)`: once per
step with the turn's question (what happens on every step), and with a new question each time
(the first step of a turn, when the memory selection is recomputed). Then (issue 34) what a model
request adds: the runtime context evaluated and the environment message written, and the same with
one assemble listener (docs/prompt.md's example: a section added, a tool schema filtered).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOPICS = ["cosmology", "exoplanets", "galaxy clusters", "stellar populations", "gravitational waves",
          "AGN feedback", "dark matter halos", "supernova cosmology", "CMB lensing", "star formation"]


def build_workspace(root: Path) -> None:
    for n in range(50):
        d = root / "skills" / f"skill-{n:02d}"
        d.mkdir(parents=True)
        d.joinpath("SKILL.md").write_text(
            f"---\nname: skill-{n:02d}\ndescription: Method {n} for {TOPICS[n % 10]} work\n"
            f"when_to_use: When the user asks about {TOPICS[n % 10]} step {n}\n---\n\n# Skill {n}\n\nDo things.\n"
        )
    mem = root / "memory"
    mem.mkdir()
    types = ["preference", "feedback", "project", "reference"]
    for n in range(200):
        topic = TOPICS[n % 10]
        mem.joinpath(f"note-{n:03d}.md").write_text(
            f"---\nslug: note-{n:03d}\ndescription: Fact {n} about {topic}\ntype: {types[n % 4]}\n"
            f"created: 2026-0{1 + n % 9}-10T10:00:00+00:00\nupdated: 2026-0{1 + n % 9}-11T10:00:00+00:00\n---\n"
            f"Remember that {topic} result {n} matters.\nSecond line.\nThird line.\nFourth line.\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_workspace(root)
        os.environ["ASTRO_HOME"] = str(root / "home")
        os.environ["ASTRO_SKILLS_WATCH"] = "false"
        from astro_cli.bootstrap import build_app
        from astro_cli.tools.base import Tool

        app = build_app(workspace=root).install_features()
        for n in range(max(0, 19 - len(app.tools))):
            app.tools.register(Tool(f"extra_tool_{n}", "A padding tool. Used only by this benchmark.",
                                    {"type": "object", "properties": {}}, run=lambda ctx, args: ""))
        tools = app.tools.ordered(app.settings.get("tool_order"))
        question = "What do we know about CMB lensing and galaxy clusters?"
        app.prompt.assemble(tools, question=question)  # first assembly: scans and indexes
        same, fresh = [], []
        for n in range(runs):
            started = time.perf_counter()
            app.prompt.assemble(tools, question=question)
            same.append(time.perf_counter() - started)
            started = time.perf_counter()
            app.prompt.assemble(tools, question=f"{TOPICS[n % 10]} question number {n}")
            fresh.append(time.perf_counter() - started)
        sections = [s.name for s in app.prompt.assemble(tools, question=question).sections]
        request, listened = request_path(app, tools, question, runs)
        app.close()
    print(f"tools: {len(tools)}, skills: 50, memories: 200, sections: {', '.join(sections)}")
    print(f"assembly, same question (each step)  median {statistics.median(same) * 1000:.2f} ms over {runs} runs")
    print(f"assembly, new question (turn start)  median {statistics.median(fresh) * 1000:.2f} ms over {runs} runs")
    print(f"request: assembly + runtime context + environment message  median "
          f"{statistics.median(request) * 1000:.2f} ms over {runs} runs")
    print(f"request, with one assemble listener  median {statistics.median(listened) * 1000:.2f} ms over {runs} runs")
    print("target: median under 5 ms")


def request_path(app, tools, question: str, runs: int) -> tuple[list[float], list[float]]:  # noqa: ANN001
    """Per-step cost of a model request's assembly: the session's facts, then also a listener."""
    from astro_cli.prompt.context import ContextSource
    from astro_cli.prompt.environment import environment_text, session_facts
    from astro_cli.prompt.registry import DraftSection
    from astro_cli.usage import Usage

    usage = Usage(input_tokens=1200, output_tokens=80)
    session = ContextSource("session", 0, lambda data: session_facts(str(app.workspace.root), "openai/x", 3, 25, usage))

    def timed() -> list[float]:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            environment_text(app.prompt.assemble(tools, question=question, context=[session]).context)
            times.append(time.perf_counter() - started)
        return times

    plain = timed()

    def listener(draft):  # noqa: ANN001, ANN202
        draft.sections.append(DraftSection("observatory", 150, "Observatory: the 2.2 m at La Silla."))
        draft.tools = [t for t in draft.tools if t["function"]["name"] != "run_bash"]

    app.prompt.on_assemble(listener)
    return plain, timed()


if __name__ == "__main__":
    main()
