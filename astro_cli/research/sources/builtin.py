"""The built-in paper sources (arXiv, NASA ADS, Crossref) as `PaperSource`s, registered by the research
feature like any plugin's source.

Each is a thin face on its client module (arxiv.py, ads.py, crossref.py): which identifiers it resolves,
how it searches. What the three do together stays where it was: `search_papers` with `source=all` merges
ADS and arXiv (ADS syntax translated for arXiv, DOIs through Crossref without a token), and
`resolve.resolve` enriches an arXiv record with ADS's bibcode and Crossref's notices.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from astro_cli.extensions import PaperFiles, SearchAnswer
from astro_cli.research.found import FoundPaper
from astro_cli.research.identifiers import BIBCODE
from astro_cli.research.sources.http import ServiceError

if TYPE_CHECKING:
    from astro_cli.extensions import ExtensionPoints, SearchRequest
    from astro_cli.research.sources.web import Web

DOI_FORM = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)


def plain_doi(identifier: str) -> str | None:
    match = DOI_FORM.match(identifier.strip())
    return match.group(1) if match else None


def _plan(request: SearchRequest) -> Any:
    from astro_cli.research.sources.arxiv_query import plan_of

    return plan_of(request.text, request.year_from, request.year_to)


class ArxivSource:
    """arXiv: e-prints by id; searches ADS syntax translated into arXiv's (arxiv_query.py)."""

    name = "arxiv"
    label = "arXiv"
    query_language = "ads"
    searches = True

    def recognises(self, identifier: str) -> bool:
        from astro_cli.research.sources.arxiv import id_and_version

        return id_and_version(identifier) is not None

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        from astro_cli.research.sources import arxiv

        known = arxiv.id_and_version(identifier)
        if known is None:
            return None
        found = [r for r in arxiv.fetch(web, [known[0] + known[1]]) if r.arxiv_id == known[0]]
        return found[0] if found else None

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        from astro_cli.research.sources import arxiv

        plan = _plan(request)
        total, records = arxiv.answer(web, plan, request.rows, request.sort)
        return SearchAnswer(total, records, list(plan.notes()))

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        """Every e-print's PDF and its e-print archive (the LaTeX source, when the authors sent one)."""
        arxiv_id = record.arxiv_id
        if not arxiv_id:
            return None
        base = web.settings.typed["arxiv_pdf_url"].rstrip("/")
        return PaperFiles(f"{base}/pdf/{arxiv_id}{version}", f"{base}/e-print/{arxiv_id}{version}", "arXiv")


class AdsSource:
    """NASA ADS (needs a token): bibcodes and DOIs to records with their arXiv version; searches its own syntax."""

    name = "ads"
    label = "NASA ADS"
    query_language = "ads"
    searches = True

    def recognises(self, identifier: str) -> bool:
        return plain_doi(identifier) is not None or bool(BIBCODE.match(identifier.strip()))

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        from astro_cli.research.sources import ads

        clean = plain_doi(identifier) or identifier.strip()
        if not ads.has_token(web):
            kind = "DOI" if plain_doi(identifier) else "bibcode"
            raise ServiceError(
                f"Finding the arXiv version of the {kind} '{clean}' needs NASA ADS: set ADS_API_TOKEN (or keep a "
                "token with `astro keys set ads`), or give the arXiv id instead."
            )
        return ads.lookup(web, clean)

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        from astro_cli.research.sources import ads

        total, records = ads.search(web, _plan(request).ads_text, request.rows, request.sort,
                                    request.year_from, request.year_to)
        return SearchAnswer(total, records)

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        return None  # ADS links to arXiv and publishers; the open files come from arXiv


class CrossrefSource:
    """Crossref: a DOI's record (no arXiv version: its role is metadata and retraction notices); no search."""

    name = "crossref"
    label = "Crossref"
    query_language = "doi"
    searches = False

    def recognises(self, identifier: str) -> bool:
        return plain_doi(identifier) is not None

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        from astro_cli.research.sources import crossref

        doi = plain_doi(identifier)
        return crossref.work(web, doi) if doi else None

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        raise ServiceError("Crossref only looks up DOIs here; search NASA ADS or arXiv instead.")

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        return None


def register_builtin(points: ExtensionPoints) -> None:
    """Crossref before ADS: when both recognise a DOI, the later (ADS, which knows arXiv versions) resolves it."""
    for source in (CrossrefSource(), AdsSource(), ArxivSource()):
        points.add_paper_source(source)


def builtin_points() -> ExtensionPoints:
    """A registry of the built-in sources alone, for callers without an app (tests, scripts)."""
    from astro_cli.extensions import ExtensionPoints

    points = ExtensionPoints()
    register_builtin(points)
    return points
