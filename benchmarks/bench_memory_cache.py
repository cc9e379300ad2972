"""Issue 17: what a change of topic costs the provider's prompt cache.

    .venv/bin/python benchmarks/bench_memory_cache.py

A two-turn `astro run` session (`--continue` for the second turn) in the Anthropic wire format,
the real astro and litellm against the fake provider on 127.0.0.1. Turn 1 asks about cosmology and
reads a LaTeX manuscript (about 10,000 tokens of history); turn 2 asks either about something else
(its question selects other memories) or the same thing again (the same memories are selected).
The workspace has 12 memories on several topics.

The fake provider does not cache, so this script replays the requests litellm sent through a model
of Anthropic's prompt cache: the request is tools, then system, then messages, as blocks; each
block carrying `cache_control` is a breakpoint whose prefix is written to the cache; a later request
reads the longest cached prefix it starts with (looked up at its breakpoints and up to 20 blocks
before each), and writes what lies between that prefix and its last breakpoint. Tokens are counted
with cl100k (litellm's default tokenizer), an approximation of Claude's.

Run it from another checkout (copy the file into its benchmarks/) to compare two versions of astro.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeprovider import FakeProvider  # noqa: E402

MEMORIES = [
    ("planck-2018-cosmology", "preference", "Use Planck 2018 cosmology (astropy's Planck18) for distances",
     "H0 = 67.66 km/s/Mpc, Om0 = 0.30966 (Planck 2018 VI, Table 2).\nSay which cosmology a figure uses."),
    ("des-y3-cluster-lensing", "project", "Thesis: weak-lensing masses of redMaPPer clusters in DES Y3",
     "Stacked shear profiles; masses are M200m in h^-1 Msun.\nCatalogues in data/desy3/."),
    ("flag-preprints", "feedback", "Say when a cited source is an arXiv preprint not yet refereed",
     "Write (preprint) after the citation; prefer the refereed bibcode when ADS has one."),
    ("planck-2018-parameters-paper", "reference", "Planck 2018 VI: 2020A&A...641A...6P (arXiv:1807.06209)",
     "Table 2 gives the base-LCDM parameters; cite it for H0, Om0 and sigma8."),
    ("trgb-distances", "reference", "TRGB distances: Freedman et al. 2019, 2019ApJ...882...34F",
     "Tip of the red giant branch calibration, H0 = 69.8 km/s/Mpc."),
    ("cepheid-ladder", "reference", "SH0ES Cepheid ladder: Riess et al. 2022, 2022ApJ...934L...7R",
     "H0 = 73.04 km/s/Mpc; the Hubble tension baseline."),
    ("sn-ia-sample", "project", "Pantheon+ supernova sample for the distance ladder",
     "1550 SNe Ia; use the covariance with systematics."),
    ("xray-clusters", "project", "eROSITA cluster catalogue for the mass calibration",
     "eRASS1 clusters above 0.2 in redshift."),
    ("plot-style", "preference", "Plots use serif fonts and inward ticks", "matplotlib: serif, ticks in."),
    ("referee-tone", "feedback", "Keep referee replies polite and short", "No sarcasm."),
    ("jwst-proposal", "project", "JWST cycle 4 proposal due in October", "NIRSpec IFU on two lensed arcs."),
    ("gaia-dr3", "reference", "Gaia DR3 release paper 2023A&A...674A...1G", "Use DR3 parallaxes with the zero-point."),
]
MANUSCRIPT = ROOT / "tests" / "fixtures" / "papers" / "emcee_2013PASP_ms.tex"
FIRST = "Which cosmology should the DES Y3 cluster masses assume? Read notes/ms.tex for the method first."
SAME = "Which cosmology should the DES Y3 cluster masses assume? Answer briefly this time."  # same selection
OTHER = "Should I flag preprints when I cite the TRGB and Cepheid distances for the Hubble tension?"


def _memory_file(slug: str, kind: str, description: str, body: str) -> str:
    return (f"---\nslug: {slug}\ndescription: {json.dumps(description)}\ntype: {kind}\n"
            f"created: 2026-11-20T10:00:00Z\nupdated: 2026-11-20T10:00:00Z\n---\n\n{body}\n")


def _blocks(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The request as Anthropic orders it (tools, system, messages), one string per block, and the
    indexes of the blocks carrying a cache breakpoint."""
    blocks: list[str] = []
    marks: list[int] = []

    def add(role: str, block: Any) -> None:
        if isinstance(block, dict) and "cache_control" in block:
            marks.append(len(blocks))
            block = {k: v for k, v in block.items() if k != "cache_control"}
        blocks.append(role + json.dumps(block, sort_keys=True, ensure_ascii=False))

    for tool in body.get("tools") or []:
        add("tool", tool)
    system = body.get("system") or []
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        add("system", block)
    for message in body["messages"]:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            add(message["role"], block)
    return blocks, marks


class PromptCache:
    """Anthropic's prompt cache as documented: prefixes cached at breakpoints, 20-block lookback."""

    LOOKBACK = 20

    def __init__(self) -> None:
        from astro_cli.litellm_model.loader import load_litellm

        load_litellm()  # with the local cost map: no network
        from litellm.litellm_core_utils.default_encoding import encoding

        self.encoding = encoding
        self.cached: set[str] = set()

    def request(self, body: dict[str, Any]) -> dict[str, int]:
        blocks, marks = _blocks(body)
        sizes = [len(self.encoding.encode(b, disallowed_special=())) for b in blocks]
        prefix_tokens = [sum(sizes[: i + 1]) for i in range(len(blocks))]
        digests, running = [], hashlib.sha256()
        for block in blocks:
            running.update(block.encode())
            digests.append(running.copy().hexdigest())
        read_end = -1
        for mark in marks:
            for index in range(mark, max(-1, mark - self.LOOKBACK), -1):
                if digests[index] in self.cached:
                    read_end = max(read_end, index)
                    break
        last = marks[-1] if marks else -1
        read = prefix_tokens[read_end] if read_end >= 0 else 0
        written = (prefix_tokens[last] - read) if last > read_end else 0
        self.cached.update(digests[mark] for mark in marks)
        return {"read": read, "written": written, "uncached": prefix_tokens[-1] - max(read, prefix_tokens[last] if last >= 0 else 0),
                "total": prefix_tokens[-1]}


def session(second_question: str) -> dict[str, int]:
    fake = FakeProvider()
    fake.add({"text": "I will read the manuscript.", "tool_calls": [{"name": "read_file",
                                                                       "arguments": {"path": "notes/ms.tex"}}]},
             {"text": "Planck18, as your memory says."}, {"text": "Noted."})
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "project"
        (workspace / "memory").mkdir(parents=True)
        (workspace / "notes").mkdir()
        (workspace / "notes" / "ms.tex").write_text(MANUSCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
        for slug, kind, description, body in MEMORIES:
            (workspace / "memory" / f"{slug}.md").write_text(_memory_file(slug, kind, description, body))
        env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_") and not k.endswith("_API_KEY")}
        env.update(ASTRO_HOME=str(Path(tmp) / "home"), ASTRO_MODEL="anthropic/claude-sonnet-4-5",
                   ASTRO_API_BASE=fake.url, ASTRO_API_KEY="sk-ant-bench", PYTHONPATH=str(ROOT),
                   LITELLM_LOCAL_MODEL_COST_MAP="True", ASTRO_OLLAMA_URL="http://127.0.0.1:9")
        for args in (["run", FIRST], ["run", "--continue", second_question]):
            done = subprocess.run([sys.executable, "-m", "astro_cli", *args], cwd=workspace, env=env,
                                  capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise SystemExit(f"astro {' '.join(args)} failed: {done.stderr[-800:]}")
    bodies = fake.bodies("anthropic")
    fake.close()
    cache = PromptCache()
    figures = [cache.request(body) for body in bodies]
    assert len(figures) == 3, len(figures)
    return figures[2]  # the first request of turn 2


def main() -> None:
    changed = session(OTHER)
    same = session(SAME)
    print(f"astro at {ROOT}")
    print("command: .venv/bin/python benchmarks/bench_memory_cache.py")
    print("first request of turn 2, tokens (cl100k):   read from cache   written to cache   uncached   total")
    for label, figures in (("topic changed (other memories)", changed), ("same topic (same memories)", same)):
        print(f"  {label:<38} {figures['read']:>10,} {figures['written']:>18,} {figures['uncached']:>10,} "
              f"{figures['total']:>7,}")


if __name__ == "__main__":
    main()
