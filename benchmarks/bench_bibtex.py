"""Issue 28: how close astro's BibTeX (built from stored metadata) is to NASA ADS's own export.

    .venv/bin/python benchmarks/bench_bibtex.py [--runs 21] [--show]

For every recorded ADS export in tests/fixtures/ads (32 entries: ADS's export service's own test
records, one per ADS doctype, with publishers and software, and emcee as its authors pasted it from
ADS) the ADS record it was made from is stored in a throw-away library (real SQLite), read back and
exported by astro's writer; both entries are parsed by pybtex and compared field by field
(tests/bibtex_compare.py: every field ADS writes but adsurl, adsnote and abstract; LaTeX read as
text; the journal as written, since the macro matters). Printed: entries, fields compared, field
errors (all of them, and those left once ADS's own defects are set apart), errors per 100 fields,
entry types that differ, month/number/pages present where ADS has them, and the median time to
build the 32 entries.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pybtex.database  # noqa: E402

from astro_cli.research.bibtex.export import from_metadata  # noqa: E402
from astro_cli.research.library.service import Library  # noqa: E402
from astro_cli.research.sources.ads import doc_to_record  # noqa: E402
from tests.bibtex_compare import Comparison, compare, fields_of, recorded_pairs  # noqa: E402
from tests.library_support import make_app  # noqa: E402
from tests.research.bibtex.test_bibtex_ads import KNOWN_ADS_DEFECTS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--show", action="store_true", help="print every differing field")
    args = parser.parse_args()
    pairs = recorded_pairs()
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp) / "ws")
        try:
            library = Library.of(app)
            papers = [library.upsert_paper(doc_to_record(doc)) for doc, _ in pairs]
            result = Comparison()
            present = wanted = 0
            for (doc, theirs), paper in zip(pairs, papers):
                ours = pybtex.database.parse_string(from_metadata(paper), "bibtex").entries[doc["bibcode"]]
                compare(ours, theirs, doc["bibcode"], result)
                mine = fields_of(ours)
                for name in ("month", "number", "pages"):
                    if name in theirs.fields:
                        wanted += 1
                        present += mine.get(name) == fields_of(theirs)[name]
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                for paper in papers:
                    from_metadata(paper)
                times.append(time.perf_counter() - started)
        finally:
            app.close()
    defects = [e for e in result.errors if tuple(e.split(":")[0].split(" ")) in KNOWN_ADS_DEFECTS]
    ours_wrong = len(result.errors) - len(defects)
    print(f"entries: {result.entries}, fields ADS writes (compared): {result.fields}")
    print(f"entry types that differ: {len(result.type_errors)}")
    print(f"field errors, all: {len(result.errors)} ({result.per_100:.2f} per 100 fields)")
    print(f"field errors where ADS's own entry is right: {ours_wrong} "
          f"({100 * ours_wrong / result.fields:.2f} per 100 fields); set apart as ADS defects: {len(defects)}")
    print(f"month/number/pages ADS writes that astro writes the same: {present}/{wanted}")
    print(f"fields only astro writes (url, adsurl, note not counted): {len(result.extra)}")
    print(f"build the {len(papers)} entries: median {1000 * statistics.median(times):.2f} ms")
    if args.show:
        for line in result.type_errors + result.errors + result.extra:
            print("  " + line)


if __name__ == "__main__":
    main()
