"""The local-library tools: parse_paper, get_paper_content, rag_search, save_note.

They read and write only the workspace (its database, papers/ and notes/), so none needs the
user's permission: save_note writes Markdown inside notes/ and nowhere else. Paper text reaches
the model inside <paper-text> frames (research/textblock.py), and every tool that used papers
lists them in ToolResult.data["sources"] for the REPL's /sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Annotated, Any

from astro_cli.research.library.service import Library
from astro_cli.research.textblock import DATA_NOTE
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import Limits, as_tool, tool

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.research.records import Paper, Passage
    from astro_cli.research.search.passages import SearchResult


def library_tool(run: Callable[[ToolContext, dict[str, Any]], ToolResult]) -> Callable[[ToolContext, dict[str, Any]], ToolResult]:
    """A group library whose server is down (after one retry) is one sentence for the model; the
    session goes on (its messages are in the workspace's own file)."""

    @wraps(run)
    def guarded(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        from astro_cli.research.library.storage import LibraryUnavailable

        try:
            return run(ctx, args)
        except LibraryUnavailable as exc:
            raise ToolError(f"{exc} The library cannot be read or written until it is back.") from None

    return guarded


def _paper_or_error(ctx: ToolContext, library: Library, paper_id: str) -> Paper:
    if not paper_id.strip():
        raise ToolError("Give the paper's id (arXiv id, bibcode or DOI).")
    paper = library.get_paper(paper_id)
    if paper is None:
        local = workspace_file(ctx, paper_id)
        if local is not None:  # a small model's habit: a script or notes.md asked of the paper tools
            raise ToolError(f"{local} is a file of the project folder, not a paper: read it with "
                            f'read_file {{"path": "{local}"}}.')
        raise ToolError(unknown_paper(library, paper_id))
    return paper


LISTED_PAPERS = 12


def unknown_paper(library: Library, paper_id: str) -> str:
    """Why `paper_id` gives nothing, with the ids the library does hold: a small model guessed ids
    ("209458b", one made of the date) and then repeated the error as its answer (issue 48)."""
    papers = library.list_papers()[:LISTED_PAPERS]
    if not papers:
        return f"paper {paper_id} is not in the library; download it with download_paper first."
    held = "; ".join(f"{p.id} ({(p.title or 'untitled')[:70]})" for p in papers)
    return (f"paper {paper_id} is not in the library, which holds: {held}. Call again with one of these ids, "
            "or rag_search to search them all; download_paper adds a new paper.")


FILE_NAME = re.compile(r"[\w./-]*\w\.[A-Za-z][\w]{0,7}\b")


def workspace_file(ctx: ToolContext, name: str) -> str | None:
    """`name` relative to the workspace when it is a file there (never outside: the confinement
    decides), else None."""
    from astro_cli.security.paths import PathRefused

    try:
        path = ctx.resolve_path(name.strip(), must_exist=True)
    except (PathRefused, ToolError, OSError, ValueError):
        return None
    root = ctx.resolve_path(".")
    if not path.is_file() or not path.is_relative_to(root):  # an allowed folder outside: not "of the project"
        return None
    return path.relative_to(root).as_posix()


def files_named(ctx: ToolContext, phrasings: list[str]) -> list[str]:
    """The project-folder files a question names ("the mass in notes.md"), outside the library's
    notes/: rag_search does not search them, and the model is told where they are read."""
    found: list[str] = []
    for phrasing in phrasings:
        for name in FILE_NAME.findall(phrasing):
            local = workspace_file(ctx, name)
            if local is not None and not local.startswith("notes/") and local not in found:
                found.append(local)
    return found[:3]


def _sources(papers: list[Paper]) -> dict[str, Any]:
    return {"sources": [Library.source_entry(p).as_dict() for p in papers]}


@tool(name="parse_paper", key_argument="id", timeout=300, needs=Library)
def parse_paper_tool(ctx: ToolContext, library: Library, id: str, force: bool = False) -> ToolResult:  # noqa: A002 - the model's name
    """Index a downloaded paper so rag_search and get_paper_content can use it. Reads its LaTeX source when
    present (equations kept), else its PDF, split by section and page into chunks with a full-text index.
    Returns the outline, not the text; an indexed paper is not parsed again unless force.

    Args:
        id: Library id, arXiv id (e.g. 1001.0012), bibcode or DOI.
        force: Parse again even if already indexed (default false).
    """
    from astro_cli.research.library.parse import ParseError, describe

    paper = _paper_or_error(ctx, library, id)
    try:
        report = library.parse(paper, force=force)
    except ParseError as exc:
        raise ToolError(str(exc)) from None
    return ToolResult(describe(report), data=_sources([report.paper]))


@tool(name="get_paper_content", key_argument="id", timeout=300, needs=Library,
      description="Read a library paper's text by section or pages. A section is a number ('2', '3.1') or "
      "part of its name ('Introduction'); pages are '3', '2-4' or '1,3'; without either, the paper from the "
      f"start. Cut to a budget with a note of what was left. {DATA_NOTE}")
def get_paper_content_tool(ctx: ToolContext, library: Library, id: str,  # noqa: A002 - the model's name
                           section: str | None = None,
                           pages: str | None = None) -> ToolResult:
    """Args:
        id: Library id, arXiv id (e.g. 1001.0012), bibcode or DOI.
        section: Section number or part of its name.
        pages: Pages of the PDF: '3', '2-4' or '1,3,5-6'.
    """
    from astro_cli.research.library.content import ContentError
    from astro_cli.research.library.parse import ParseError

    paper = _paper_or_error(ctx, library, id)
    note = ""
    if not library.store.chunk_count(paper.id):  # reading a paper that was downloaded but never parsed: parse it now
        try:
            report = library.parse(paper, force=True)
        except ParseError as exc:
            raise ToolError(str(exc)) from None
        paper = report.paper
        note = f"Note: {report.warning}.\n\n" if report.warning else ""  # a limit hit, say, named once
    try:
        content = library.content(paper, section=section or None, pages=pages)
    except ContentError as exc:
        raise ToolError(str(exc)) from None
    data = {**_sources([paper]), "passages": [p.as_dict() for p in content.passages]}
    return ToolResult(note + content.text, data=data, framed=True)


RAG_DESCRIPTION = (
    "Search the library of papers and notes for passages that answer a question. Give the "
    "question in your words as query and, in queries, a second phrasing with the field's technical terms "
    "(the words a paper would use: 'acceptance fraction' for 'share of proposals kept'); up to four "
    "phrasings are ranked and fused. Returns ranked passages with paper id, section, page and score. "
    "Reference lists and acknowledgments are left out unless include_references. Cite the ids you use. "
    f"{DATA_NOTE}")
MAX_EXTRA_PHRASINGS = 3  # rag_search's `queries` (its schema's maxItems)


def distinct_phrasings(args: dict[str, Any]) -> dict[str, Any]:
    """`queries` without the phrasings that repeat `query` or each other (case and spacing aside),
    and the first MAX_EXTRA_PHRASINGS of them: a small model writes the question five times, or a
    list of near-copies until its token limit, which the schema's limit of three would refuse."""
    queries = args.get("queries")
    if not isinstance(queries, list):
        return args
    query = args.get("query")
    seen = {_folded(query)} if isinstance(query, str) else set()
    kept: list[Any] = []
    for phrasing in queries:
        if isinstance(phrasing, str):  # anything else is left for the schema to refuse
            if _folded(phrasing) in seen:
                continue
            seen.add(_folded(phrasing))
        kept.append(phrasing)
    if all(isinstance(phrasing, str) for phrasing in kept):
        kept = kept[:MAX_EXTRA_PHRASINGS]
    return {**args, "queries": kept} if len(kept) < len(queries) else args


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


@tool(name="rag_search", key_argument="query", needs=Library, tidy_arguments=distinct_phrasings,
      description=RAG_DESCRIPTION)
def rag_search_tool(ctx: ToolContext, library: Library, query: str,
                    queries: Annotated[list[str], Limits(max_items=MAX_EXTRA_PHRASINGS)] | None = None,
                    k: int = 8, papers: list[str] | None = None, include_references: bool = False) -> ToolResult:
    """Args:
        query: The question; "quoted phrases" match exactly.
        queries: Other phrasings of the same question, with the field's technical terms.
        k: How many passages (default 8, at most 50).
        papers: Only these papers (ids, arXiv ids, bibcodes or DOIs).
        include_references: Also search reference lists and acknowledgments (default false).
    """
    from astro_cli.research.search.passages import SearchError, format_hits, sources_of
    from astro_cli.research.search.rerank import POOL

    phrasings = [q for q in [query, *(queries or [])] if q.strip()]
    papers, widened = _known_papers(library, papers)
    k = k or 8
    rerank = str(ctx.settings.typed["library.rerank"] or "off")
    try:
        result = library.search(phrasings, k=k if rerank == "off" else max(k, POOL), papers=papers,
                                include_references=include_references)
    except SearchError as exc:
        raise ToolError(str(exc)) from None
    if rerank != "off":
        _rerank(ctx, rerank, phrasings, result, k)
    if widened:
        result.warning = f"{widened}; {result.warning}" if result.warning else widened
    text = format_hits(phrasings, result)
    rows, shown = _table_rows(library, phrasings, papers, result.hits)
    shown += [p for p in (hit.passage() for hit in result.hits) if p is not None]
    if rows:  # before the passages: a small model reads the top of a long result
        text = f"{rows}\n\n{text}"
    local = files_named(ctx, phrasings)
    if local:  # first, where a small model reads: the file it meant is not among these passages
        listed = ", ".join(local)
        text = (f"Note: {listed} {'is a file' if len(local) == 1 else 'are files'} of the project folder, which "
                f'rag_search does not search: read_file {{"path": "{local[0]}"}} reads it.\n\n{text}')
    return ToolResult(text, data={"sources": sources_of(result.hits), "passages": [p.as_dict() for p in shown]},
                      framed=True)


def _table_rows(library: Library, phrasings: list[str], papers: list[str] | None,
                hits: list[Any]) -> tuple[str, list[Passage]]:
    """The rows of the library's tables for the objects the question names (research/library/table_rows.py):
    each name is searched on its own, and the rows are taken from those passages and from the hits."""
    from astro_cli.research.library.table_rows import object_names, rows_block

    names = [name for phrasing in phrasings for name in object_names(phrasing)]
    names = list(dict.fromkeys(names))[:2]
    if not names:
        return "", []

    def search(name: str) -> list[Any]:
        return [*hits, *library.search(name, k=8, papers=papers).hits]

    return rows_block(names, search)


def _known_papers(library: Library, papers: Any) -> tuple[list[str] | None, str]:
    """The `papers` filter without the ids the library does not hold, and the sentence that says so.

    A model often fills the filter with an id it made up (a date, a paper it remembers): refusing
    the search left it nothing to answer from, so the search covers the papers that are there, or
    the whole library when none is, and says which ids were dropped."""
    if not papers:
        return None, ""
    names = [str(papers)] if isinstance(papers, str) else [str(name) for name in papers]
    known = [name for name in names if library.get_paper(name) is not None]
    unknown = [name for name in names if name not in known]
    if not unknown:
        return known, ""
    listed = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
    verb = "is" if len(unknown) == 1 else "are"
    if not known:
        return None, f"{listed} {verb} not in the library, so the whole library was searched"
    return known, f"{listed} {verb} not in the library, so the search covered {', '.join(known)} alone"


def _rerank(ctx: ToolContext, setting: str, phrasings: list[str], result: SearchResult, k: int) -> None:
    """The candidates re-ordered by the model (research/search/rerank.py); its tokens count in the turn."""
    from astro_cli.research.search.rerank import rerank
    from astro_cli.usage import Usage

    def complete(messages: list[dict[str, Any]]) -> tuple[str, Usage]:
        from astro_cli.agent.model import Model
        from astro_cli.agent.open_model import open_model

        # The session's model (so `/model` applies); a call outside a session has the configured one.
        model = ctx.states.find(Model)  # type: ignore[type-abstract]
        if model is None:
            from astro_cli.agent.factory import resolve_model

            # The app, on purpose: outside a session (a test, a script) no model was opened, and which one
            # the configuration names is the app's to say (agent/factory.py), until a Model port is handed in.
            model = open_model(resolve_model(ctx.app))
        reply = model.complete(messages, model=None if setting == "on" else setting)
        return reply.text or "", reply.usage

    reranked = rerank(complete, phrasings, result.hits, max(1, min(k, 50)))
    if reranked.usage:
        ctx.add_usage(reranked.usage)
    result.hits = reranked.hits
    result.reranked = reranked.note is None and len(reranked.hits) > 1
    if reranked.note:
        result.warning = f"{result.warning}; {reranked.note}" if result.warning else reranked.note


@tool(name="save_note", read_only=False, key_argument="title", needs=Library)
def save_note_tool(ctx: ToolContext, library: Library, title: str, content: str, tags: list[str] | None = None,
                   papers: list[str] | None = None) -> ToolResult:
    """Save a Markdown research note under notes/, indexed so rag_search finds it. A note of the same
    title is updated. Link the papers it draws on by id.

    Args:
        content: Markdown body.
        papers: Paper ids the note cites.
    """
    from astro_cli.research.library.notes import NoteError, save_note

    try:
        saved = save_note(library, title, content, tags or [], papers or [])
    except NoteError as exc:
        raise ToolError(str(exc)) from None
    ctx.touched(saved.path)
    verb = "Created" if saved.created else "Updated"
    text = f"{verb} {saved.relative} ({saved.chunks} chunk(s) indexed; rag_search finds it)."
    if saved.warning:
        text += f" Note: {saved.warning}."
    return ToolResult(text)


def install(app: AppContext) -> None:
    from astro_cli.extensions import extension_points
    from astro_cli.research.library.readers.latex import LatexReader
    from astro_cli.research.library.readers.markdown import MarkdownReader
    from astro_cli.research.library.readers.pdf import PdfReader

    app.services.provide(Library, lambda: Library.of(app))  # for the tools that declare needs=Library
    points = extension_points(app)  # the text readers, as a plugin adds one (hooks/plugins.py)
    for reader in (PdfReader(), LatexReader(), MarkdownReader()):
        points.add_text_reader(reader)
    app.tools.register(as_tool(parse_paper_tool, wrap=library_tool))
    app.tools.register(as_tool(get_paper_content_tool, wrap=library_tool))
    app.tools.register(as_tool(rag_search_tool, wrap=library_tool))
    app.tools.register(as_tool(save_note_tool, wrap=library_tool))
