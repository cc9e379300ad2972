"""Issue 27: imports that point from a lower layer up to a higher one, and import circles.

    .venv/bin/python benchmarks/import_layers.py [--package PATH/astro_cli] [--list] [--first-table]

The import graph is tests/structure/test_structure.py's (every `import` in a module, inside functions too, and
with the imports under `if TYPE_CHECKING:`); --package reads another checkout's astro_cli (one made
with `git archive COMMIT`). The layer table is tests/structure/test_structure_layers.py's, the test that holds
it. Counted: module pairs whose importer sits in a lower layer than what it imports, and the same
between folders (one arrow per pair of folders or top-level modules).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.structure import test_structure, test_structure_layers  # noqa: E402
from tests.structure.test_structure_layers import room  # noqa: E402

# The first table (RESULTS.md, issue 27's closing figures) put features.py and doctor/ with the features.
FIRST_TABLE_MOVES = {"features": 4, "doctor": 4}


def layer(module: str, first_table: bool = False) -> int:
    if first_table and room(module) in FIRST_TABLE_MOVES:
        return FIRST_TABLE_MOVES[room(module)]
    return test_structure_layers.layer(module)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", help="an astro_cli folder of another checkout")
    parser.add_argument("--list", action="store_true", help="print each upward import")
    parser.add_argument("--first-table", action="store_true",
                        help="features.py and doctor/ in the feature layer, as first measured")
    args = parser.parse_args()
    if args.package:
        test_structure.PACKAGE = Path(args.package).resolve()
    graph = test_structure.import_graph(types_too=True)
    upward = sorted((a, b) for a, targets in graph.items() for b in targets
                    if layer(a, args.first_table) < layer(b, args.first_table))
    rooms = sorted({(room(a), room(b)) for a, b in upward if room(a) != room(b)})
    print(f"modules {len(graph)}, imports {sum(map(len, graph.values()))}")
    print(f"upward imports (module pairs): {len(upward)}")
    print(f"upward arrows between folders/top-level modules: {len(rooms)}")
    print(f"import circles (imports that run): {len(test_structure.circles(test_structure.import_graph()))}")
    print(f"import circles (annotations too): {len(test_structure.circles(graph))}")
    if args.list:
        for a, b in upward:
            print(f"  {a} -> {b}")


if __name__ == "__main__":
    main()
