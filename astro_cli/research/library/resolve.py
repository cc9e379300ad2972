"""An identifier to the record of a paper and its arXiv version: arXiv ids decoded without asking
anyone, anything else through the registered paper source that recognises it (extensions.PaperSource:
bibcodes and DOIs through NASA ADS, INSPIRE records through INSPIRE-HEP), the arXiv record filled with
what that source and ADS know, and Crossref's retraction notices attached.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from astro_cli.research.found import FoundPaper, found_from_source
from astro_cli.research.identifiers import ARXIV_BIBCODE, ARXIV_DOI, BIBCODE
from astro_cli.research.sources import ads, arxiv, crossref
from astro_cli.research.sources.http import ServiceError

if TYPE_CHECKING:
    from astro_cli.extensions import ExtensionPoints
    from astro_cli.research.sources.web import Web


def classify(identifier: str) -> str:
    """'arxiv', 'doi' or 'bibcode' for what the user typed; a ServiceError sentence otherwise."""
    text = identifier.strip()
    if arxiv.looks_like_arxiv_id(text) or ARXIV_BIBCODE.match(text) or ARXIV_DOI.match(text):
        return "arxiv"
    if re.match(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?10\.\d{4,9}/\S+$", text, re.IGNORECASE):
        return "doi"
    if BIBCODE.match(text):
        return "bibcode"
    raise ServiceError(
        f"'{identifier}' is not an arXiv id (1001.0012, astro-ph/0601001), a DOI (10.xxxx/...) "
        "or an ADS bibcode (2013PASP..125..306F)."
    )


def _kind(identifier: str) -> str:
    """'DOI', 'bibcode' or 'record' for the sentences of a failed resolution."""
    try:
        return {"doi": "DOI"}.get(classify(identifier), classify(identifier))
    except ServiceError:
        return "record"


def arxiv_id_of(identifier: str) -> tuple[str, str] | None:
    """(id, version) when the identifier itself names an arXiv e-print, without asking anyone."""
    return arxiv.id_and_version(identifier)


def resolve(web: Web, identifier: str, sources: ExtensionPoints | None = None) -> tuple[FoundPaper, str]:
    """(the paper as the services found it, arXiv version or '') for an arXiv id or any identifier a
    registered source resolves (bibcode, DOI, an INSPIRE record...). The files come from arXiv, so the
    record must name an arXiv version. arXiv's record comes first and ADS's fills it (research/found.py's
    rule), but for the published version's DOI, which ADS knows and arXiv may not."""
    from astro_cli.research.sources.builtin import builtin_points

    points = sources or builtin_points()
    ads_record: FoundPaper | None = None
    extra: FoundPaper | None = None
    known = arxiv_id_of(identifier)
    if known is None:
        source = points.source_for(identifier.strip())
        if source is None:
            classify(identifier)  # the sentence naming the forms astro reads
            raise ServiceError(f"No paper source recognises '{identifier}'.")
        clean = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", identifier.strip(), flags=re.IGNORECASE)
        found = found_from_source(source.resolve(web, identifier.strip()), source.label)
        kind = _kind(identifier)
        if found is None:
            raise ServiceError(f"{source.label} does not know the {kind} '{clean}'.")
        if not found.arxiv_id:
            raise ServiceError(
                f"{source.label} lists no arXiv version of '{found.title or clean}' ({clean}), so there is "
                "no open PDF to fetch; get it from the publisher."
            )
        if source.name == "ads":
            ads_record = found
        else:
            extra = found
        known = (found.arxiv_id, "")
    arxiv_id, version = known
    records = [r for r in arxiv.fetch(web, [arxiv_id + version]) if r.arxiv_id == arxiv_id]
    record = records[0] if records else FoundPaper(arxiv_id, arxiv_id)
    if ads_record is None and ads.has_token(web):
        try:
            ads_record = ads.lookup(web, f"arXiv:{arxiv_id}")
        except ServiceError:
            ads_record = None  # the bibcode is a bonus; the paper itself comes from arXiv
    if ads_record:
        record = record + ads_record
        if ads_record.journal and ads_record.doi:
            record = record.but(doi=ads_record.doi)  # the journal's DOI rather than arXiv's own
    if extra:  # the resolving source's record fills what arXiv and ADS left empty (not its own page)
        record = record + extra.but(url=None)
    record = record.but(id=arxiv_id, arxiv_id=arxiv_id, url=record.url or f"https://arxiv.org/abs/{arxiv_id}")
    return crossref.attach_updates(web, record), version  # retracted or corrected: marked in the library
