"""The table formats astro writes, what each cannot hold, and astropy's warnings sent to the log.

Each format is refused up front, in one sentence naming the other formats, for what it cannot
hold: FITS text is ASCII (a non-ASCII name such as 'Barnard's Star ☉' would fail deep in astropy),
Parquet needs pyarrow. Warnings astropy raises while reading or writing a table (a unit FITS or
VOUnit cannot name, a long header card) are for the debug log: the researcher sees the summary.
"""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from astro_cli.catalog.errors import CatalogError

if TYPE_CHECKING:
    from astropy.table import Table

log = logging.getLogger(__name__)

FORMATS = {".ecsv": "ascii.ecsv", ".fits": "fits", ".csv": "ascii.csv", ".vot": "votable", ".parquet": "parquet"}
SIDECAR_FORMATS = ("ascii.csv", "votable")  # provenance in <file>.meta.json: astropy keeps no meta there
WRITES = ".ecsv, .fits, .csv, .vot or .parquet"


def other_formats(fmt: str) -> str:
    """The extensions of every format but `fmt`, for a hint that never names the one that failed."""
    others = [ext for ext, name in FORMATS.items() if name != fmt]
    return ", ".join(others[:-1]) + " or " + others[-1]


def check_format(table: Table, name: str, fmt: str) -> None:
    """CatalogError (one sentence) when `fmt` cannot hold `table`, before any file is made."""
    if fmt == "parquet":
        from importlib.util import find_spec

        if find_spec("pyarrow") is None:
            raise CatalogError(f"Writing {name} needs pyarrow (pip install pyarrow); save as "
                               f"{other_formats(fmt)} instead.")
    if fmt == "fits":
        for column in table.colnames:
            if table[column].dtype.kind != "U":
                continue
            values = [str(v) for v in table[column].tolist() if v is not None]
            odd = next((v for v in values if not v.isascii()), None)
            if odd is not None:
                raise CatalogError(f"FITS holds only ASCII text, and column '{column}' has {odd[:40]!r}; save as "
                                   f"{other_formats(fmt)} instead (they keep Unicode).")


@contextmanager
def warnings_to_log(what: str) -> Iterator[None]:
    """Every warning raised inside goes to the debug log (once per message, with a count), not stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = Counter(f"{w.category.__name__}: {w.message}" for w in caught)
    for message, count in seen.items():
        log.debug("%s: %s%s", what, message, f" (x{count})" if count > 1 else "")
