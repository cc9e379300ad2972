"""BibTeX for papers: NASA ADS's own export when a token is set, else built from stored metadata.

ADS entries are what journals expect (journal macros, ADS keys), so every paper with a bibcode
goes to the export service when a token is available, and its entry is kept byte for byte. ADS
is checked, not trusted: a bibcode that did not come back gets the metadata entry and a note.

Without ADS the entry must still be right. A paper arXiv lists as published (its journal_ref,
"Phys. Rev. B 85, 115117 (2012)", or ADS's journal, volume and page stored at download) is
exported as the published article (journal, volume, pages or eid, year, doi) with its `eprint`,
`archivePrefix` and `primaryClass`; only a paper with no published version stays an
`arXiv e-prints` entry. Titles are braced whole, as ADS does, so every capital survives any style.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from astro_cli.research import ads
from astro_cli.research.bibtex_text import ascii_word, author_field, latex_text, surname
from astro_cli.research.http import ServiceError
from astro_cli.research.identifiers import doi_key
from astro_cli.research.journal_ref import parse_journal_ref

if TYPE_CHECKING:
    from astro_cli.app import AppContext

FIELD_ORDER = ("author", "title", "journal", "year", "volume", "eid", "pages", "doi", "archivePrefix", "eprint",
               "primaryClass", "url")
ENTRY_START = re.compile(r"(?m)^@")
ENTRY_KEY = re.compile(r"^@\s*\w+\s*\{\s*([^,\s]+)\s*,")
FIELD_VALUE = r"(?im)^\s*{name}\s*=\s*[{{\"]+([^}}\"]+)"


def entry_key(paper: dict[str, Any]) -> str:
    """The bibcode when known (ADS's key), else Surname + year + _ + arXiv id (or DOI), without '/'."""
    if paper.get("bibcode"):
        return str(paper["bibcode"])
    authors = paper.get("authors") or []
    last = ascii_word(surname(authors[0])) if authors else ""
    year = published_version(paper).get("year") or paper.get("year") or ""
    ident = str(paper.get("arxiv_id") or paper.get("doi") or paper.get("id") or "").replace("/", "")
    return re.sub(r"[^A-Za-z0-9.:_-]", "", f"{last or 'Anonymous'}{year}_{ident}")


def published_version(paper: dict[str, Any]) -> dict[str, Any]:
    """journal, volume, page, last_page, year of the published paper; {} for a preprint.

    ADS's structured fields (stored at download) win; arXiv's free-text journal_ref is parsed
    otherwise.
    """
    if paper.get("journal"):
        return {"journal": paper["journal"], "volume": paper.get("volume"), "page": paper.get("page"),
                "last_page": None, "year": paper.get("pub_year") or paper.get("year"),
                "article_id": _is_article_id(paper.get("page"))}
    ref = parse_journal_ref(paper.get("journal_ref"))
    if ref is None:
        return {}
    return {"journal": ref.journal, "volume": ref.volume, "page": ref.page, "last_page": ref.last_page,
            "year": ref.year or paper.get("year"), "article_id": ref.is_article_id}


def _is_article_id(page: Any) -> bool:
    text = str(page or "")
    return bool(text) and (not text.isdigit() or len(text) >= 5)


def from_metadata(paper: dict[str, Any]) -> str:
    """One entry from stored metadata: the published article when there is one, else the e-print."""
    arxiv_id = paper.get("arxiv_id")
    published = published_version(paper)
    fields: dict[str, str] = {}
    if paper.get("authors"):
        fields["author"] = "{" + author_field(list(paper["authors"])) + "}"
    fields["title"] = '"{' + latex_text(paper.get("title") or "Untitled") + '}"'
    if published:
        fields["journal"] = "{" + latex_text(published["journal"]) + "}"
        if published.get("volume"):
            fields["volume"] = "{" + str(published["volume"]) + "}"
        page = published.get("page")
        if page and published.get("article_id"):
            fields["eid"] = fields["pages"] = "{" + str(page) + "}"
        elif page:
            last = published.get("last_page")
            fields["pages"] = "{" + str(page) + (f"--{last}" if last else "") + "}"
    elif arxiv_id:
        fields["journal"] = "{arXiv e-prints}"
        fields["eid"] = fields["pages"] = f"{{arXiv:{arxiv_id}}}"
    year = published.get("year") or paper.get("year")
    if year:
        fields["year"] = str(year)
    if paper.get("doi"):
        fields["doi"] = "{" + str(paper["doi"]) + "}"
    if arxiv_id:
        fields["archivePrefix"] = "{arXiv}"
        fields["eprint"] = "{" + str(arxiv_id) + "}"
        if paper.get("primary_class"):
            fields["primaryClass"] = "{" + str(paper["primary_class"]) + "}"
    url = paper.get("url") or (f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None)
    if url:
        fields["url"] = "{" + str(url).replace("%", "\\%") + "}"
    kind = "ARTICLE" if published or arxiv_id else "MISC"
    lines = [f"{name:>13} = {fields[name]}" for name in FIELD_ORDER if name in fields]
    return f"@{kind}{{{entry_key(paper)},\n" + ",\n".join(lines) + "\n}\n"


# --- ADS's export, checked ---------------------------------------------------------------------
def split_entries(text: str) -> list[str]:
    """The entries of a BibTeX text, each exactly as written (without the blank lines between)."""
    starts = [m.start() for m in ENTRY_START.finditer(text)]
    return [text[a:b].rstrip() for a, b in zip(starts, [*starts[1:], len(text)])]


def _entry_names(entry: str) -> set[str]:
    """The names an ADS entry can be matched by: its key, and its eprint and DOI."""
    names: set[str] = set()
    key = ENTRY_KEY.match(entry)
    if key:
        names.add(key.group(1))
    for field_name in ("eprint", "doi"):
        value = re.search(FIELD_VALUE.format(name=field_name), entry)
        if value:
            names.add(value.group(1).strip() if field_name == "eprint" else "doi:" + value.group(1).strip().lower())
    return names


def _match_ads_entries(papers: list[dict[str, Any]], entries: list[str]) -> dict[int, str]:
    """{paper index: its ADS entry}: by key (the bibcode), else by its eprint or DOI."""
    named = [(entry, _entry_names(entry)) for entry in entries]
    found: dict[int, str] = {}
    for index, paper in enumerate(papers):
        wanted = [str(paper["bibcode"])]
        wanted += [str(paper["arxiv_id"])] if paper.get("arxiv_id") else []
        wanted += [f"doi:{doi_key(paper['doi'])}"] if paper.get("doi") else []
        for name in wanted:
            entry = next((e for e, names in named if name in names), None)
            if entry is not None:
                found[index] = entry
                break
    return found


def export(app: AppContext, papers: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(BibTeX text, notes), one entry per paper in the order given.

    Papers with a bibcode come from the ADS export service (one request) when a token is set,
    each entry byte for byte; any bibcode ADS did not send back, and every other paper, gets the
    entry built from the stored metadata, and the notes say so.
    """
    notes: list[str] = []
    by_ads: dict[int, str] = {}
    with_bibcode = [i for i, p in enumerate(papers) if p.get("bibcode")]
    if with_bibcode and ads.has_token():
        bibcodes = list(dict.fromkeys(str(papers[i]["bibcode"]) for i in with_bibcode))
        try:
            entries = split_entries(ads.export_bibtex(app, bibcodes))
        except ServiceError as exc:
            notes.append(f"{exc} The entries were built from the stored metadata instead.")
        else:
            by_ads = _match_ads_entries([papers[i] for i in with_bibcode], entries)
            by_ads = {with_bibcode[i]: entry for i, entry in by_ads.items()}
            missing = [str(papers[i]["bibcode"]) for i in with_bibcode if i not in by_ads]
            if missing:
                notes.append(f"NASA ADS sent no entry for {', '.join(missing)}; "
                             f"{'its entry was' if len(missing) == 1 else 'their entries were'} built from the "
                             "stored metadata.")
    elif papers and not ads.has_token():
        notes.append("No ADS_API_TOKEN is set, so the entries were built from the stored metadata "
                     "(arXiv's journal reference gives the published version).")
    out: list[str] = []
    for index, paper in enumerate(papers):
        entry = by_ads.get(index) or from_metadata(paper).rstrip()
        if entry not in out:
            out.append(entry)
    return ("\n\n".join(out) + "\n") if out else "", notes
