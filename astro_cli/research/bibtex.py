"""BibTeX for library papers: NASA ADS's own export when a token is set, else built from arXiv metadata.

ADS entries are what journals expect (abbreviated journal macros, ADS keys), so they are used for
every paper that has a bibcode when a token is available. Papers without a bibcode, or every paper
when there is no token, get an @ARTICLE entry in the style ADS uses for arXiv e-prints.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from astro_cli.research import ads
from astro_cli.research.http import ServiceError

if TYPE_CHECKING:
    from astro_cli.app import AppContext

SPECIAL = re.compile(r"(?<!\\)([&%#_])")
FIELD_ORDER = ("author", "title", "journal", "year", "eid", "pages", "archivePrefix", "eprint", "doi", "url")


def _escape(text: str) -> str:
    """Escape what BibTeX/LaTeX would misread, and drop braces that do not balance."""
    text = SPECIAL.sub(r"\\\1", " ".join(text.split()))
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "").replace("}", "")
    return text


def _split_name(name: str) -> tuple[str, str]:
    """('Cowan', 'Nicolas B.') from 'Nicolas B. Cowan' or 'Cowan, Nicolas B.'."""
    name = " ".join(name.split())
    if "," in name:
        last, _, first = name.partition(",")
        return last.strip(), first.strip()
    parts = name.split(" ")
    particles = {"van", "von", "de", "der", "del", "da", "di", "le", "la", "du", "den", "ter"}
    cut = len(parts) - 1
    while cut > 0 and parts[cut - 1].lower() in particles:
        cut -= 1
    return " ".join(parts[cut:]), " ".join(parts[:cut])


def _author_field(authors: list[str]) -> str:
    names = []
    for author in authors:
        last, first = _split_name(author)
        names.append(f"{{{_escape(last)}}}, {_escape(first)}" if first else f"{{{_escape(last)}}}")
    return " and ".join(names)


def entry_key(paper: dict[str, Any]) -> str:
    """The bibcode when known (what ADS uses), else FirstAuthorYear_arXivid."""
    if paper.get("bibcode"):
        return str(paper["bibcode"])
    authors = paper.get("authors") or []
    last = _split_name(authors[0])[0] if authors else "anon"
    ascii_last = unicodedata.normalize("NFKD", last).encode("ascii", "ignore").decode() or "anon"
    ident = paper.get("arxiv_id") or paper.get("doi") or paper.get("id") or ""
    return re.sub(r"[^A-Za-z0-9.:_-]", "", f"{ascii_last}{paper.get('year') or ''}_{ident}")


def from_metadata(paper: dict[str, Any]) -> str:
    """An @ARTICLE entry from stored metadata, in ADS's style for arXiv e-prints."""
    arxiv_id = paper.get("arxiv_id")
    fields: dict[str, str] = {}
    if paper.get("authors"):
        fields["author"] = "{" + _author_field(list(paper["authors"])) + "}"
    fields["title"] = f'"{{{_escape(paper.get("title") or "Untitled")}}}"'
    if arxiv_id:
        fields["journal"] = "{arXiv e-prints}"
    if paper.get("year"):
        fields["year"] = str(paper["year"])
    if arxiv_id:
        fields["eid"] = f"{{arXiv:{arxiv_id}}}"
        fields["pages"] = f"{{arXiv:{arxiv_id}}}"
        fields["archivePrefix"] = "{arXiv}"
        fields["eprint"] = f"{{{arxiv_id}}}"
    if paper.get("doi"):
        fields["doi"] = f"{{{paper['doi']}}}"
    url = paper.get("url") or (f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None)
    if url:
        fields["url"] = f"{{{url}}}"
    kind = "ARTICLE" if arxiv_id or paper.get("doi") else "MISC"
    lines = [f"{name:>13} = {fields[name]}" for name in FIELD_ORDER if name in fields]
    return f"@{kind}{{{entry_key(paper)},\n" + ",\n".join(lines) + "\n}\n"


def export(app: AppContext, papers: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(BibTeX text, notes): ADS export for papers with a bibcode when a token is set, metadata otherwise."""
    notes: list[str] = []
    via_ads = [p for p in papers if p.get("bibcode")] if ads.has_token() else []
    ads_text = ""
    if via_ads:
        try:
            ads_text = ads.export_bibtex(app, [p["bibcode"] for p in via_ads])
        except ServiceError as exc:
            notes.append(f"{exc} The entries were built from the stored metadata instead.")
            via_ads = []
    exported = {id(p) for p in via_ads}
    built = [from_metadata(p) for p in papers if id(p) not in exported]
    if papers and not ads.has_token():
        notes.append("No ADS_API_TOKEN is set, so the entries were built from the stored arXiv metadata.")
    parts = [ads_text.strip()] if ads_text.strip() else []
    parts += [entry.strip() for entry in built]
    return "\n\n".join(parts) + ("\n" if parts else ""), notes
