"""BibTeX for the papers a session's answers cited: `astro sessions cite ID --bibtex` and `/cite`.

In order of first citation, one entry per paper (a paper cited by its arXiv id in one answer and
by its bibcode in another is one entry). Verified and resolved citations are exported; the
unverified ones are left out and named in a note. A paper in the library is exported from its
row; one that is not (a search result cited without downloading it) from the metadata stored
with its citation, completed from arXiv (one request for all of them: full author list, journal
reference, DOI) when it has an arXiv id. The entries themselves come from research/bibtex/export.py
(NASA ADS's export with a token, checked; otherwise built as ADS writes them, bibtex_entry.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.research.identifiers import keys_of

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.research.library.service import Library
    from astro_cli.research.records import Paper
    from astro_cli.slash import SlashContext


class NothingCited(Exception):
    """The session's answers cite no paper that could be checked."""


def _keys(row: dict[str, Any]) -> set[tuple[str, str]]:
    record = row.get("record") or {}
    values = [row.get("paper"), record.get("arxiv_id"), record.get("bibcode"), record.get("doi")]
    if row["kind"] != "author-year":
        values.append(row["ident"])
    return {(k, v.lower()) for value in values if value for k, v in keys_of(str(value))} | (
        {("paper", str(row["paper"]))} if row.get("paper") else set())


def cited_rows(app: AppContext, session_id: str) -> list[dict[str, Any]]:
    """The session's checked citations (checked now, without network, for sessions older than the check)."""
    from astro_cli.citations.store import CitationStore

    rows = CitationStore(app.db).for_session(session_id)
    if rows:
        return rows
    from astro_cli.citations.check import check_answer
    from astro_cli.citations.ledger import CitationLedger

    ledger = CitationLedger()
    ledger.load_session(app, session_id)
    out: list[dict[str, Any]] = []
    for stored in app.sessions.messages(session_id):
        message = stored.message
        if message.get("role") == "assistant" and stored.kind == "message" and not message.get("tool_calls"):
            for c in check_answer(app, ledger, str(message.get("content") or ""), False, 0.0).citations:
                out.append({**c.as_dict(), "ident": c.cited.ident, "record": c.record})
    return out


def papers_of(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """(one metadata record per cited paper, in order of first citation; labels of unverified ones)."""
    groups: list[tuple[set[tuple[str, str]], dict[str, Any]]] = []
    unverified: list[str] = []
    for row in rows:
        if row["status"] not in ("verified", "resolved"):  # unverified or malformed: no entry
            label = f"arXiv:{row['ident']}" if row["kind"] == "arxiv" else row["ident"]
            if label not in unverified:
                unverified.append(label)
            continue
        keys = _keys(row)
        group = next((g for g in groups if g[0] & keys), None)
        record = {**(row.get("record") or {})}
        if row["kind"] != "author-year":
            kind = {"arxiv": "arxiv_id", "bibcode": "bibcode", "doi": "doi"}[row["kind"]]
            record.setdefault(kind, row["ident"])
        record.setdefault("title", row.get("title"))
        if group is None:
            groups.append((keys, record))
        else:
            group[0].update(keys)
            for name, value in record.items():
                group[1].setdefault(name, value)
    return [record for _, record in groups], unverified


def _complete(library: Library, papers: list[dict[str, Any]], notes: list[str]) -> list[Paper]:
    """Library rows where the library has the paper; arXiv's full record for the others."""
    from astro_cli.research.records import Paper
    from astro_cli.research.sources import arxiv
    from astro_cli.research.sources.http import ServiceError

    out: list[Paper] = []
    fetch: list[int] = []
    for paper in papers:
        row = next((r for r in (library.knows(str(paper[k])) for k in ("id", "arxiv_id", "bibcode", "doi")
                                if paper.get(k)) if r is not None), None)
        if row is not None:
            out.append(row)
            continue
        out.append(Paper.of(paper))
        if paper.get("arxiv_id"):
            fetch.append(len(out) - 1)
    if fetch:
        try:
            records = {r.arxiv_id: r.as_record() for r in arxiv.fetch(library.web, [str(out[i].arxiv_id) for i in fetch])}
        except ServiceError as exc:
            notes.append(f"arXiv could not complete the papers outside the library ({exc}); their entries use "
                         "what the session stored (the first authors).")
            records = {}
        for index in fetch:
            partial = out[index]
            record = records.get(partial.arxiv_id)
            if record:  # only papers outside the library were fetched
                known = {k: v for k, v in record.items() if v not in (None, "", [])}
                out[index] = Paper.of({**partial.as_dict(), **known,
                                       "primary_class": record.get("primary_category") or partial.primary_class})
    return out  # a record with only its first authors keeps n_authors: the entry ends "and others"


def session_bibtex(app: AppContext, session_id: str) -> tuple[str, list[str]]:
    """(BibTeX, notes) for the papers the session's answers cited; NothingCited when there are none."""
    from astro_cli.research.bibtex.export import export
    from astro_cli.research.library.service import Library

    rows = cited_rows(app, session_id)
    papers, unverified = papers_of(rows)
    notes: list[str] = []
    if unverified:
        notes.append(f"left out {len(unverified)} unverified citation{'s' if len(unverified) > 1 else ''}: "
                     f"{', '.join(unverified)}.")
    if not papers:
        raise NothingCited("The answers of this session cite no paper that could be checked"
                           + (f" ({notes[0]})" if notes else "."))
    library = Library.of(app)
    text, export_notes = export(library, _complete(library, papers, notes))
    from astro_cli.catalog.credits import bibtex_comment, session_credits

    owed = bibtex_comment(session_credits(app, session_id))  # what the catalogues queried ask for
    return (text.rstrip("\n") + "\n\n" + owed if owed else text), notes + export_notes


def slash_cite(ctx: SlashContext, args: str) -> None:
    """/cite prints the BibTeX of this session's cited papers; /cite FILE writes it to FILE."""
    from rich.text import Text

    from astro_cli.research.sources.http import ServiceError
    from astro_cli.security.visible import visible

    if ctx.session is None:
        return
    try:
        text, notes = session_bibtex(ctx.app, ctx.session.session_id)
    except NothingCited as exc:
        ctx.console.print(Text(visible(str(exc)), style="yellow"))
        return
    except ServiceError as exc:
        ctx.console.print(Text(f"error: {visible(str(exc))}", style="red"))
        return
    target = args.strip()
    if target:
        path = Path(target).expanduser()
        path = path if path.is_absolute() else ctx.app.workspace.root / path
        from astro_cli.security.writer import write_file

        write_file(path, text)  # the file the researcher named (a link at that name is replaced, not followed)
        count = text.count("\n@") + (1 if text.startswith("@") else 0)
        ctx.console.print(Text(f"wrote {count} BibTeX entr{'y' if count == 1 else 'ies'} to {visible(str(path))}", style="green"))
    else:
        ctx.console.print(Text(visible(text.rstrip())), soft_wrap=True)
    for note in notes:
        ctx.console.print(Text(f"note: {visible(note)}", style="dim"))
