"""Issue 28: does the claim check tell supported claims from the others, and what does it cost?

    .venv/bin/python benchmarks/bench_grounding.py [--runs 21]

A throw-away workspace with the three fixture papers (tests/fixtures/papers) parsed as astro
parses them; a session that read the passages listed in tests/fixtures/grounding/claims.json
(get_paper_content's real output, taken in by the real ledger). Measured:

1. the labelled set (64 claims written by hand before tuning): how many the cheap check decides
   correctly, how many it leaves undecided (for the optional model judge), and how many
   unsupported claims it calls supported (must be 0);
2. the 38-item citation set of the issue (real, invented, malformed and versioned ids, ids only
   inside a reference list, wavelengths, designations, multi-author and collaboration cites,
   diacritics): false "verified" and false alarms, checked without the network;
3. the cost of the check (ids and claims, no network) of a 1,000-word answer, median of --runs;
4. bad input: a 50,000-word answer, 1,000 citations, citations in code and LaTeX, unknown handles;
5. the prompt's growth (principle 4, tiktoken cl100k_base).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from astro_cli.citations.check import check_answer  # noqa: E402
from astro_cli.citations.grounding import ground  # noqa: E402
from astro_cli.citations.ledger import CitationLedger  # noqa: E402
from tests.library_support import META, add_paper, make_app  # noqa: E402

CLAIMS = ROOT / "tests" / "fixtures" / "grounding" / "claims.json"
CITATIONS = ROOT / "tests" / "fixtures" / "grounding" / "citation_set.json"
OLD_PRINCIPLE = "4. Cite the sources of every claim with ADS bibcodes or arXiv ids, so the researcher can check them."


def session(root: Path) -> tuple[object, CitationLedger]:
    """The app and a ledger that read what claims.json says, through get_paper_content's real text."""
    from astro_cli.research.library.content import paper_content
    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.library.service import Library

    app = make_app(root, **{"library.content_budget_chars": 400_000})
    read = json.loads(CLAIMS.read_text())["read"]
    ledger = CitationLedger()
    ledger.loaded = True
    for paper_id, where in read.items():
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id)
        paper = Library.of(app).get_paper(paper_id)
        assert paper is not None
        for section in where.get("sections", [None]):
            content = paper_content(Library.of(app), paper, section=section, pages=where.get("pages"))
            ledger.ingest("get_paper_content", {"id": paper_id}, content.text,
                          {"sources": [Library.source_entry(paper).as_dict()],
                           "passages": [p.as_dict() for p in content.passages]}, True)
    return app, ledger


def status_of(app: object, ledger: CitationLedger, text: str) -> tuple[str, str]:
    checked = check_answer(app, ledger, text, False, 0.0)  # type: ignore[arg-type]
    grounding = ground(ledger, text, checked)
    if not grounding.claims:
        return "none", "none"
    first = grounding.claims[0]
    return first.status, first.decided_by


def labelled(app: object, ledger: CitationLedger) -> dict[str, object]:
    items = json.loads(CLAIMS.read_text())["claims"]
    correct, undecided, false_supported = 0, 0, 0
    by_kind: Counter[str] = Counter()
    kind_total: Counter[str] = Counter()
    misses = []
    for item in items:
        status, decided_by = status_of(app, ledger, item["claim"])
        kind_total[item["kind"]] += 1
        if decided_by == "undecided":
            undecided += 1
        elif status == item["expected"]:
            correct += 1
            by_kind[item["kind"]] += 1
        else:
            misses.append((item["expected"], status, item["claim"][:90]))
        if decided_by == "undecided":
            misses.append((item["expected"], "undecided", item["claim"][:90]))
        if status == "supported" and item["expected"] != "supported":
            false_supported += 1
    return {"total": len(items), "correct": correct, "undecided": undecided, "false_supported": false_supported,
            "by_kind": {k: f"{by_kind[k]}/{n}" for k, n in kind_total.items()}, "misses": misses}


def citation_set(app: object, ledger: CitationLedger) -> dict[str, object]:
    """The 38 items: each answer sentence's citations against what a careful reader expects."""
    from astro_cli.citations.extract import find_citations

    data = json.loads(CITATIONS.read_text())
    for tool, content, sources in data["session"]:  # what the session's tools returned
        ledger.ingest(tool, {}, content, {"sources": sources}, True)
    false_verified, false_alarms, wrong = 0, 0, []
    for item in data["items"]:
        found = find_citations(item["text"])
        checked = check_answer(app, ledger, item["text"], False, 0.0)  # type: ignore[arg-type]
        statuses = [(c.cited.ident, c.status) for c in checked.citations]
        expect = item["expect"]
        if expect == "none":
            if found:
                false_alarms += 1
                wrong.append((item["text"], statuses))
            continue
        got = statuses[0] if statuses else (None, "none")
        if expect == "verified" and (got[1] != "verified" or (item.get("ident") and got[0] != item["ident"])):
            wrong.append((item["text"], statuses))
        if expect != "verified" and got[1] == "verified":
            false_verified += 1
            wrong.append((item["text"], statuses))
        if expect in ("unverified", "malformed") and got[1] != expect:
            wrong.append((item["text"], statuses))
    return {"items": len(data["items"]), "false_verified": false_verified, "false_alarms": false_alarms,
            "wrong": wrong}


def answer_of(words: int) -> str:
    sentences = json.loads(CLAIMS.read_text())["claims"]
    out, count, n = [], 0, 0
    while count < words:
        text = sentences[n % len(sentences)]["claim"]
        out.append(text)
        count += len(text.split())
        n += 1
    return " ".join(out)


def timed(app: object, ledger: CitationLedger, text: str, runs: int) -> tuple[float, int, float]:
    """(median wall ms, claims, median CPU ms of this process: less sensitive to a loaded machine)."""
    times, cpu = [], []
    claims = 0
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        checked = check_answer(app, ledger, text, False, 0.0)  # type: ignore[arg-type]
        claims = len(ground(ledger, text, checked).claims)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(times) * 1000, claims, statistics.median(cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app, ledger = session(Path(tmp) / "ws")
        result = labelled(app, ledger)
        print(f"labelled set: {result['correct']}/{result['total']} decided correctly by the cheap check "
              f"({100 * result['correct'] / result['total']:.0f}%), {result['undecided']} undecided (left to the "
              f"judge), {result['false_supported']} unsupported claims called supported")
        print("  by kind:", result["by_kind"])
        for miss in result["misses"]:
            print("  miss:", miss)
        cites = citation_set(app, ledger)
        print(f"citation set: {cites['items']} items, {cites['false_verified']} false verified, "
              f"{cites['false_alarms']} false alarms")
        for item in cites["wrong"]:
            print("  wrong:", item)
        thousand = answer_of(1000)
        ms, claims, cpu = timed(app, ledger, thousand, args.runs)
        print(f"check of a 1,000-word answer ({claims} claims): {ms:.1f} ms wall, {cpu:.1f} ms CPU, medians of "
              f"{args.runs} (load average {os.getloadavg()[0]:.1f})")
        big = answer_of(50_000)
        ms, claims, cpu = timed(app, ledger, big, 3)
        print(f"check of a 50,000-word answer ({claims} claims read): {ms:.0f} ms wall, {cpu:.0f} ms CPU, median of 3")
        many = " ".join(f"See arXiv:{1001 + i // 9000:04d}.{i % 9000 + 1000:04d} and [9999.{i:05d}:p1:c{i}]."
                        for i in range(1000))
        ms, claims, cpu = timed(app, ledger, many, 3)
        print(f"1,000 citations and 1,000 unknown handles: {ms:.0f} ms median of 3, {claims} claims")
        coded = "```\nx = 0.42  # arXiv:1001.0012 [1001.0012:p1:c1]\n```\n$\\lambda = 1608.4511$ and `2013PASP..125..306F`."
        checked = check_answer(app, ledger, coded, False, 0.0)  # type: ignore[arg-type]
        print(f"citations in code and LaTeX: {len(checked.citations)} found, "
              f"{len(ground(ledger, coded, checked).claims)} claims")
    from astro_cli.agent.tokens import _cl100k
    from astro_cli.prompt.sections import PRINCIPLES

    encoder = _cl100k()
    new = next(line for line in PRINCIPLES.splitlines() if line.startswith("4."))
    print(f"prompt growth: {len(encoder.encode(new)) - len(encoder.encode(OLD_PRINCIPLE))} tokens (principle 4: "
          f"{len(encoder.encode(OLD_PRINCIPLE))} -> {len(encoder.encode(new))})")
    assert META  # the fixture papers' metadata is the library's
    with tempfile.TemporaryDirectory() as tmp:
        tool_output_cost(Path(tmp) / "ws", encoder)


def tool_output_cost(root: Path, encoder: object) -> None:
    """What the handles add to a tool result: get_paper_content of a whole paper at the default budget."""
    import re

    from astro_cli.research.library.content import paper_content
    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.library.service import Library

    app = make_app(root)
    add_paper(app, "1001.0012")
    parse_paper(Library.of(app), "1001.0012")
    paper = Library.of(app).get_paper("1001.0012")
    assert paper is not None
    text = paper_content(Library.of(app), paper).text
    handles = re.findall(r' handle="[^"]*"', text)
    frames = text.count("<paper-text")
    tags = re.findall(r"<paper-text [^>]*>|</paper-text>", text)
    count = encoder.encode  # type: ignore[attr-defined]
    print(f"get_paper_content, whole paper, default budget: {len(count(text))} tokens, {frames} frames (one per "
          f"chunk); handles {sum(len(count(h)) for h in handles)} tokens, all frame tags "
          f"{sum(len(count(t)) for t in tags)} tokens")


if __name__ == "__main__":
    main()
