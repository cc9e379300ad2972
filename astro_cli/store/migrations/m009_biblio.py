"""`papers.biblio`: what a BibTeX entry like NASA ADS's needs beyond the published version (issue 28).

A JSON object: ADS's doctype, bibstem, month, issue, page range, eid, e-print, keywords, the
publication and its raw text, a thesis's school, editors, series, publisher, version and the full
author count; arXiv's comment ("PhD thesis, ...") and the month it received the paper. One text
column rather than a dozen, so a fact added later needs no migration (research/bibtex/entry.py
reads it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute("ALTER TABLE papers ADD COLUMN biblio TEXT")
