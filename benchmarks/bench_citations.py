"""Issue 14: what checking an answer's citations costs, in time and in tokens.

    .venv/bin/python benchmarks/bench_citations.py [--runs 21] [--results 300] [--papers 1000]

A throw-away workspace with a library of N papers (synthesized rows) and a long session: R stored
search_papers results, each the real formatted result of the recorded ADS q=star answer (10
papers, ~2,000 tokens) with its data.sources, as the tool stores them. The answer cites 12 things
(bibcodes and arXiv ids from the results, a DOI, a library paper, two author-year citations, two
invented ids). Measured, medians of --runs:

1. the first check of a resumed session: reading its stored tool results into the ledger;
2. each check after that (extraction, session and library look-ups; no network);
3. the online look-up of the two invented ids against the local stand-in ADS and arXiv (one ADS
   request, one arXiv request): the harness's own overhead, not the services' latency;
4. the nudge's size in tokens (tiktoken cl100k_base, litellm's default tokenizer).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.citations.check import check_answer  # noqa: E402
from astro_cli.citations.ledger import CitationLedger  # noqa: E402
from astro_cli.citations.nudge import nudge_text  # noqa: E402
from astro_cli.research.found import FoundPaper  # noqa: E402
from astro_cli.research.library.service import Library  # noqa: E402
from astro_cli.research.sources.ads import doc_to_record  # noqa: E402
from astro_cli.research.sources.remote_search import Outcome, format_for_model, result_data  # noqa: E402
from tests.library_support import make_app  # noqa: E402
from tests.research_server import ADS_TOKEN, ResearchServer, fixture  # noqa: E402

ANSWER = """Tidal disruption events launch winds whose self-similar models are given by Mageshwaran & Mangalam
(2021NewA...8301491M, arXiv:2008.07401); the same authors compare sub- and super-Eddington phases there.
For the sampler we follow Foreman-Mackey et al. (2013), doi:10.1086/670067, and the library's own notes on
2301.00017. Later work (2021NewA...8301477S; 2021NewA...8301474I) extends it. Hot-Jupiter albedos come from
Cowan & Agol (2011). See also 2019ApJ...999..123Z and arXiv:1912.99999 for the claimed counter-example.
"""


def median_ms(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def build(root: Path, results: int, papers: int):  # noqa: ANN201
    app = make_app(root)
    library = Library.of(app)
    with library.store.transaction():
        for n in range(papers):
            app.db["papers"].insert({"id": f"2301.{n:05d}", "arxiv_id": f"2301.{n:05d}", "title": f"Paper {n}",
                                     "authors": json.dumps([f"Author{n}, A.", "Other, B."]), "year": 2000 + n % 25,
                                     "added_at": "2026-01-01T00:00:00+00:00"})
    library.upsert_paper({"arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F", "doi": "10.1086/670067",
                          "title": "emcee: The MCMC Hammer", "authors": ["Foreman-Mackey, Daniel"], "year": 2013})
    library.upsert_paper({"arxiv_id": "1001.0012", "title": "The Statistics of Albedo",
                          "authors": ["Nicolas B. Cowan", "Eric Agol"], "year": 2010})
    docs = json.loads(fixture("ads/search_query_q-star_rows25.json"))["response"]["docs"][:10]
    records = [FoundPaper.from_record(doc_to_record(d)) for d in docs]
    records = [r.but(id=r.arxiv_id or r.bibcode) for r in records]
    content = format_for_model(Outcome(query="star", records=records, totals={"ads": 503860}))
    data = result_data(records).as_dict()
    session_id = app.sessions.create(str(root), "bench")
    for n in range(results):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "search_papers",
                                                                 "arguments": json.dumps({"query": "star"})}}
        app.sessions.append(session_id, {"role": "assistant", "content": "", "tool_calls": [call]}, turn=1)
        app.sessions.append(session_id, {"role": "tool", "tool_call_id": f"c{n}", "name": "search_papers",
                                         "content": content}, turn=1, meta={"ok": True, "data": data})
    return app, session_id, len(content)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--results", type=int, default=300)
    parser.add_argument("--papers", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app, session_id, chars = build(Path(tmp) / "ws", args.results, args.papers)
        try:
            loads, checks = [], []
            for _ in range(args.runs):
                ledger = CitationLedger()
                started = time.perf_counter()
                ledger.load_session(app, session_id)
                loads.append(time.perf_counter() - started)
            result = None
            for _ in range(args.runs):
                started = time.perf_counter()
                result = check_answer(app, ledger, ANSWER, False, 0.0)
                checks.append(time.perf_counter() - started)
            assert result is not None
            print(f"session: {args.results} search results ({chars:,} characters each), library: {args.papers} papers")
            print(f"answer: {len(ANSWER):,} characters, {len(result.citations)} citations: {result.counts()}")
            print(f"1. ledger load of the resumed session: median {median_ms(loads):.1f} ms")
            print(f"2. check of the answer (no network): median {median_ms(checks):.2f} ms")
            server = ResearchServer()
            try:
                for key, value in server.env().items():
                    app.settings.set(key.removeprefix("ASTRO_").lower().replace("_", ".", 1)
                                     if key != "ASTRO_ARXIV_MIN_INTERVAL" else "arxiv.min_interval",
                                     value if key != "ASTRO_ARXIV_MIN_INTERVAL" else 0.0, "bench")
                app.settings.set("arxiv_url", server.url + "/api/query", "bench")
                app.settings.set("arxiv_pdf_url", server.url, "bench")
                app.settings.set("ads_url", server.url + "/v1", "bench")
                import os

                os.environ["ADS_API_TOKEN"] = ADS_TOKEN
                online = []
                for _ in range(args.runs):
                    fresh = CitationLedger()
                    fresh.load_session(app, session_id)
                    started = time.perf_counter()
                    checked = check_answer(app, fresh, ANSWER, True, 10.0)
                    online.append(time.perf_counter() - started)
                print(f"3. the same check with the online look-up of the 2 invented ids (local stand-in ADS + "
                      f"arXiv, 2 requests): median {median_ms(online):.1f} ms")
            finally:
                server.close()
            from astro_cli.agent.tokens import TokenCounter

            counter = TokenCounter(None)
            text = nudge_text(checked, None, True) or ""
            print(f"4. the nudge for 2 ids: {counter.text(text)} tokens ({len(text)} characters; {counter.text_method})")
        finally:
            app.close()


if __name__ == "__main__":
    main()
