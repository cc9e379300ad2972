"""Issue 30: what the query translator sends to arXiv (and ADS) for the cases of the issue, and how
long a translation takes (median of 2,000 runs each).

    .venv/bin/python -m benchmarks.bench_query_translation
"""

from __future__ import annotations

import statistics
import time

from astro_cli.research.sources.ads_syntax import QuerySyntaxError
from astro_cli.research.sources.arxiv_query import translate

CASES = [
    "citations(bibcode:2013PASP..125..306F)",
    'topn(10, "hot Jupiter", citation_count desc)',
    '=author:"Agol, E"',
    "author:“Agol, E” albedo",
    "arXiv:1202.3665",
    "doi:10.1086/670067",
    'author:"Tešanović, Z"',
    'author:"Eric Agol"',
    'author:"Tesanovic, Z" year:2012',
    'author:("Cowan, N" OR "Del Maestro, A.") year:[2010 TO 2012] -review',
    'author:"^Agol, E" abs:"hot Jupiter" property:refereed',
    'author:"Agol, E',
    "autor:Agol",
]


def arxiv_side(query: str) -> str:
    try:
        plan = translate(query)
    except QuerySyntaxError as exc:
        return f"error: {exc}"
    if plan.skip:
        return "not asked (ADS operator)"
    if plan.ids:
        return "id_list=" + ",".join(plan.ids)
    if not plan.text:
        return "not asked (DOI/bibcode: ADS or Crossref)" if plan.lookups else "not asked"
    return f"`{plan.text}`" + (f", kept if published {plan.years[0]}-{plan.years[1]}" if plan.years else "")


def median_us(query: str, runs: int = 2000) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        try:
            translate(query)
        except QuerySyntaxError:
            pass
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1e6


def main() -> None:
    print("| query | arXiv is sent | median µs |")
    print("| --- | --- | ---: |")
    for query in CASES:
        print(f"| `{query}` | {arxiv_side(query)} | {median_us(query):.0f} |")


if __name__ == "__main__":
    main()
