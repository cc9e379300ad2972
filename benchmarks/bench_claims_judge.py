"""Issue 43: the model judge (`citations.judge`) measured against the labels of benchmarks/data/claims_set.json,
with the local model of docs/models.md (llama.cpp's server, Qwen2.5-Coder-1.5B Q4_K_M; benchmarks/local_model_setup.py).

    nice -n 10 .venv/bin/python benchmarks/bench_claims_judge.py [--held-out] [--threads 2] [--max-seconds 1500]

Each labelled claim with a passage (supported or unsupported) is checked alone as in bench_claims.py; then the real
judge (citations/judge.py: its instructions, request and reading of the answer, through the real litellm) is asked
about it in one request, as if the cheap check had left it undecided, so that its agreement with the labels is
measured on every claim and not only on the few the cheap check leaves. Claims are taken in a fixed shuffled order,
so a run stopped by --max-seconds is still a fair sample. Reported: agreement overall, on the labels' two classes,
on the claims the cheap check really left undecided, and the cost per claim (prompt and answer tokens, the server's
CPU seconds, wall seconds). Never run by CI or `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_claims import SET, ledger_of  # noqa: E402
from local_model_setup import DEFAULT_CACHE, LocalServer, install  # noqa: E402

from astro_cli.citations.check import check_answer  # noqa: E402
from astro_cli.citations.grounding import ground  # noqa: E402
from tests.library_support import make_app  # noqa: E402

MODEL = "openai/qwen2.5-coder-1.5b-instruct"


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the server process so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def judge_one(app: Any, llm: Any, ledger: Any, item: dict[str, Any], pid: int) -> dict[str, Any]:
    from astro_cli.citations.judge import judge

    checked = check_answer(app, ledger, item["claim"], False, 0.0)
    grounding = ground(ledger, item["claim"], checked)
    first = grounding.claims[0]
    cheap = first.status if first.decided_by != "undecided" else "undecided"
    first.decided_by, first.status = "undecided", "unsupported"
    replies: list[Any] = []
    complete = llm.complete

    def recorded(*args: Any, **kwargs: Any) -> Any:
        reply = complete(*args, **kwargs)
        replies.append(reply)
        return reply

    llm.complete = recorded
    cpu, started = server_cpu(pid), time.monotonic()
    note = judge(app, grounding, llm)
    wall, cpu = time.monotonic() - started, server_cpu(pid) - cpu
    llm.complete = complete
    usage = replies[0].usage if replies else None
    return {"claim": item["claim"], "label": item["label"], "kind": item["kind"], "cheap": cheap,
            "judge": first.status if first.decided_by == "judge" else "no answer", "reason": first.reason,
            "note": note, "wall_s": round(wall, 2), "server_cpu_s": round(cpu, 2),
            "prompt_tokens": getattr(usage, "input_tokens", None), "answer_tokens": getattr(usage, "output_tokens", None),
            "answer": replies[0].text if replies else None, "verdict_in_words": in_words(replies[0].text if replies else "")}


def in_words(text: str) -> str:
    """The verdict the answer gives in words, whatever it numbers it (a small model writes the template's `N:`)."""
    found = re.search(r"\b(unsupported|supported)\b", text or "", re.IGNORECASE)
    return found.group(1).lower() if found else "no answer"


def judge_batch(app: Any, llm: Any, ledger: Any, items: list[dict[str, Any]], pid: int) -> list[dict[str, Any]]:
    """The judge's own batch: the claims of one answer in one request (citations/judge.py takes up to 20)."""
    from astro_cli.citations.judge import judge

    text = " ".join(item["claim"] for item in items)
    grounding = ground(ledger, text, check_answer(app, ledger, text, False, 0.0))
    by_text = {item["claim"]: item for item in items}
    checks = [(c, by_text.get(c.claim.text.strip())) for c in grounding.claims]
    cheap = {id(c): c.status if c.decided_by != "undecided" else "undecided" for c, _ in checks}
    for check, item in checks:
        if item is not None and check.passage:
            check.decided_by, check.status = "undecided", "unsupported"
    replies: list[Any] = []
    complete = llm.complete

    def recorded(*args: Any, **kwargs: Any) -> Any:
        replies.append(complete(*args, **kwargs))
        return replies[-1]

    llm.complete = recorded
    cpu, started = server_cpu(pid), time.monotonic()
    note = judge(app, grounding, llm)
    wall, cpu = time.monotonic() - started, server_cpu(pid) - cpu
    llm.complete = complete
    usage = replies[0].usage if replies else None
    judged = [(c, item) for c, item in checks if item is not None and c.passage]
    rows = []
    for check, item in judged:
        rows.append({"claim": item["claim"], "label": item["label"], "kind": item["kind"], "cheap": cheap[id(check)],
                     "judge": check.status if check.decided_by == "judge" else "no answer", "reason": check.reason,
                     "note": note, "wall_s": round(wall / len(judged), 2), "server_cpu_s": round(cpu / len(judged), 2),
                     "prompt_tokens": round(getattr(usage, "input_tokens", 0) / len(judged)) if usage else None,
                     "answer_tokens": round(getattr(usage, "output_tokens", 0) / len(judged)) if usage else None,
                     "answer": replies[0].text if replies else None, "verdict_in_words": "n/a (batch)"})
    return rows


def undecided_by_the_cheap_check(data: dict[str, Any], papers: list[str],
                                 items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp) / "ws")
        ledger = ledger_of(data, papers)
        out = []
        for item in items:
            grounding = ground(ledger, item["claim"], check_answer(app, ledger, item["claim"], False, 0.0))
            if any(c.decided_by == "undecided" for c in grounding.claims):
                out.append(item)
        app.close()
    return out


def summary(rows: list[dict[str, Any]]) -> str:
    def agree(subset: list[dict[str, Any]]) -> str:
        return f"{sum(r['judge'] == r['label'] for r in subset)} / {len(subset)}"

    faithful = [r for r in rows if r["label"] == "supported"]
    wrong = [r for r in rows if r["label"] == "unsupported"]
    undecided = [r for r in rows if r["cheap"] == "undecided"]
    lines = [f"claims judged: {len(rows)}; agreement with the labels {agree(rows)}",
             f"  faithful claims the judge calls supported: {agree(faithful)}",
             f"  changed claims the judge calls unsupported: {agree(wrong)}",
             f"  no usable answer: {sum(r['judge'] == 'no answer' for r in rows)}",
             f"  the verdict in words, however numbered: {sum(r['verdict_in_words'] == r['label'] for r in rows)} / "
             f"{len(rows)} agree (faithful called supported "
             f"{sum(r['verdict_in_words'] == 'supported' for r in faithful)} / {len(faithful)}, changed called "
             f"unsupported {sum(r['verdict_in_words'] == 'unsupported' for r in wrong)} / {len(wrong)})",
             f"  claims the cheap check left undecided: {len(undecided)}, judge agrees on {agree(undecided)}"]
    for key in ("prompt_tokens", "answer_tokens", "server_cpu_s", "wall_s"):
        values = [r[key] for r in rows if r[key] is not None]
        if values:
            lines.append(f"  per claim {key}: median {statistics.median(values)}, max {max(values)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--max-seconds", type=float, default=1500.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--batch", type=int, default=1, help="claims per request (the judge takes up to 20)")
    parser.add_argument("--undecided-only", action="store_true",
                        help="only the claims the cheap check leaves undecided (what the judge gets in a session)")
    args = parser.parse_args()
    data = json.loads(SET.read_text())
    half = "held_out" if args.held_out else "development"
    papers = data["split"][half]
    items = [c for c in data["claims"] if c["paper"] in papers and c["label"] in ("supported", "unsupported")]
    random.Random(43).shuffle(items)
    if args.undecided_only:
        items = undecided_by_the_cheap_check(data, papers, items)
    out = args.out or Path(tempfile.gettempdir()) / f"bench_claims_judge_{half}.jsonl"
    installed = install(DEFAULT_CACHE)
    os.environ.setdefault("ASTRO_API_KEY", "sk-local")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    load_before = os.getloadavg()[0]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, \
            LocalServer(installed, args.ctx, args.threads, Path(tmp) / "server.log") as server:
        from astro_cli.agent.factory import resolve_model
        from astro_cli.agent.open_model import open_model

        assert server.process is not None
        app = make_app(Path(tmp) / "ws", model=MODEL, api_base=server.url + "/v1", **{"citations.judge": "on"})
        llm = open_model(resolve_model(app))
        ledger = ledger_of(data, papers)
        print(f"server ready in {server.load_seconds} s; {len(items)} claims of the {half} half; "
              f"load {load_before:.1f}", flush=True)
        started = time.monotonic()
        with out.open("w") as log:
            for at in range(0, len(items), args.batch):
                if time.monotonic() - started > args.max_seconds:
                    break
                batch = items[at:at + args.batch]
                done = (judge_batch(app, llm, ledger, batch, server.process.pid) if args.batch > 1
                        else [judge_one(app, llm, ledger, batch[0], server.process.pid)])
                for row in done:
                    rows.append(row)
                    log.write(json.dumps(row) + "\n")
                    print(f"{len(rows)}: {row['label']} -> {row['judge']} ({row['wall_s']} s, "
                          f"{row['server_cpu_s']} s CPU per claim)", flush=True)
                log.flush()
        app.close()
    print(f"{half} half, {MODEL} on {args.threads} threads, load {load_before:.1f} -> {os.getloadavg()[0]:.1f}; "
          f"rows in {out}")
    print(summary(rows))


if __name__ == "__main__":
    main()
