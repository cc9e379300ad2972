"""An identifier to the record of a paper and its arXiv version: arXiv ids decoded without asking
anyone, anything else through the registered paper source that recognises it (extensions.PaperSource:
bibcodes and DOIs through NASA ADS, INSPIRE records through INSPIRE-HEP), the arXiv record filled with
what that source and ADS know, and Crossref's retraction notices attached.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

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


def resolve(web: Web, identifier: str, sources: ExtensionPoints | None = None) -> tuple[dict[str, Any], str]:
    """(metadata record, arXiv version or '') for an arXiv id or any identifier a registered source
    resolves (bibcode, DOI, an INSPIRE record...). The files come from arXiv, so the record must name
    an arXiv version."""
    from astro_cli.research.sources.builtin import builtin_points

    points = sources or builtin_points()
    ads_record: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None
    known = arxiv_id_of(identifier)
    if known is None:
        source = points.source_for(identifier.strip())
        if source is None:
            classify(identifier)  # the sentence naming the forms astro reads
            raise ServiceError(f"No paper source recognises '{identifier}'.")
        clean = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", identifier.strip(), flags=re.IGNORECASE)
        found = source.resolve(web, identifier.strip())
        kind = _kind(identifier)
        if found is None:
            raise ServiceError(f"{source.label} does not know the {kind} '{clean}'.")
        if not found.get("arxiv_id"):
            raise ServiceError(
                f"{source.label} lists no arXiv version of '{found.get('title') or clean}' ({clean}), so there is "
                "no open PDF to fetch; get it from the publisher."
            )
        if source.name == "ads":
            ads_record = found
        else:
            extra = found
        known = (found["arxiv_id"], "")
    arxiv_id, version = known
    records = [r for r in arxiv.fetch(web, [arxiv_id + version]) if r.get("arxiv_id") == arxiv_id]
    record = dict(records[0]) if records else {"id": arxiv_id, "arxiv_id": arxiv_id, "url": None, "sources": []}
    if ads_record is None and ads.has_token(web):
        try:
            ads_record = ads.lookup(web, f"arXiv:{arxiv_id}")
        except ServiceError:
            ads_record = None  # the bibcode is a bonus; the paper itself comes from arXiv
    if ads_record:
        for key in ("bibcode", "citation_count", "doi", "title", "authors", "year", "abstract"):
            if ads_record.get(key) and (key in ("bibcode", "citation_count") or not record.get(key)):
                record[key] = ads_record[key]
        for key in ("journal", "volume", "page", "pub_year"):  # the published version, when there is one
            record[key] = ads_record.get(key)
        record["biblio"] = {**(record.get("biblio") or {}), **(ads_record.get("biblio") or {})}
        record["primary_class"] = record.get("primary_category") or ads_record.get("primary_class")
        if ads_record.get("journal") and ads_record.get("doi"):
            record["doi"] = ads_record["doi"]  # the journal's DOI rather than arXiv's own
    if extra:  # the resolving source's record fills what arXiv and ADS left empty
        for key, value in extra.items():
            if value and not record.get(key) and key not in ("id", "url", "sources"):
                record[key] = value
    record["id"] = arxiv_id
    record["arxiv_id"] = arxiv_id
    record["url"] = record.get("url") or f"https://arxiv.org/abs/{arxiv_id}"
    crossref.attach_updates(web, record)  # retracted or corrected: marked in the library and the footer
    return record, version
