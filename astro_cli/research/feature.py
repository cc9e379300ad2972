"""The network research tools: search_papers (ADS + arXiv), download_paper, query_target (SIMBAD).

Each tool turns a ServiceError into a ToolError (one sentence the model can act on) and lists
the papers or objects it returned in ToolResult.data["sources"], which the REPL's /sources shows.
Installing costs nothing: the service modules are imported when a tool first runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from astro_cli.extensions import ExtensionPoints
from astro_cli.research.library.feature import library_tool
from astro_cli.research.library.service import Library
from astro_cli.research.sources.web import Web
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from astro_cli.app import AppContext

PROGRESS_EVERY = 0.25  # seconds between progress events, so a fast download does not flood renderers


@tool(name="search_papers", key_argument="query", timeout=180, needs=(Web, ExtensionPoints))
def search_papers_tool(ctx: ToolContext, web: Web, sources: ExtensionPoints, query: str, source: str = "all", rows: int = 10,
                       sort: Literal["relevance", "date", "citations"] = "relevance", year_from: int | None = None,
                       year_to: int | None = None) -> ToolResult:
    """Search NASA ADS and arXiv for papers. Each result has bibcode, arXiv id, title, first authors, year,
    citation count and an abstract snippet; results from both services are merged without duplicates. ADS
    query syntax passes through (author:"Agol, E" abs:"hot Jupiter" year:2010-2015 property:refereed).
    Without an ADS token only arXiv is searched (no citation counts), and a DOI is looked up in Crossref.
    ADS operators (citations(), references(), similar()) go to ADS alone; paper_graph follows a paper's
    citations.

    Args:
        query: Words, or ADS query syntax (fields, quotes, boolean).
        source: Default all.
        rows: Results wanted, 1-50 (default 10).
        sort: Default relevance.
        year_from: First publication year to include.
        year_to: Last publication year to include.
    """
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.remote_search import format_for_model, result_data, search_papers

    try:
        outcome = search_papers(web, query, source=source, rows=rows or 10, sort=sort,
                                year_from=year_from, year_to=year_to, sources=sources)
    except ServiceError as exc:
        raise ToolError(str(exc)) from None
    return ToolResult(format_for_model(outcome), data=result_data(outcome.records).as_dict(), framed=True)


@tool(name="paper_graph", key_argument="id", timeout=120, needs=Library)
def paper_graph_tool(ctx: ToolContext, library: Library, id: str, direction: Literal["refs", "cited-by", "similar"] = "refs",  # noqa: A002 - the model's name
                     rows: int = 20, start: int = 0) -> ToolResult:
    """Follow a paper's citation trail: what it cites, who cites it, what is similar. From NASA ADS, paged
    (rows, start): refs, cited-by or similar, each with ids, year, citation count and whether it is already
    in the library. Without an ADS token only refs, from the bibliography of a paper in the library.

    Args:
        id: Bibcode, arXiv id or DOI (or a library paper's id).
        direction: Default refs.
        rows: Neighbours per page, 1-50 (default 20).
        start: Index of the first neighbour (paging; default 0).
    """
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.paper_graph import format_for_model, paper_graph, sources_data

    try:
        page = paper_graph(library, id, direction=direction, rows=rows or 20, start=start)
    except ServiceError as exc:
        raise ToolError(str(exc)) from None
    return ToolResult(format_for_model(page), data=sources_data(page).as_dict(), framed=True)


@tool(name="download_paper", read_only=False, key_argument="id", timeout=900, needs=Library)
def download_paper_tool(ctx: ToolContext, library: Library, id: str, source: bool = True) -> ToolResult:  # noqa: A002 - the model's name
    """Download a paper (arXiv id, bibcode or DOI) into the local library. Stores its arXiv PDF and, when arXiv
    offers it, its LaTeX source under papers/ with its metadata. Run parse_paper afterwards to index the
    text.

    Args:
        id: arXiv id (1001.0012, astro-ph/0601001), bibcode or DOI.
        source: Also fetch the LaTeX source (default true).
    """
    from astro_cli.agent.events import Notice
    from astro_cli.research.library.download import DownloadProgress
    from astro_cli.research.sources.http import ServiceError

    identifier = id.strip()
    if not identifier:
        raise ToolError("Give the paper's arXiv id, bibcode or DOI.")
    last = {"at": 0.0}

    def progress(label: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last["at"] >= PROGRESS_EVERY or (total is not None and done >= total):
            last["at"] = now
            ctx.emit(DownloadProgress(label=label, done=done, total=total))

    try:
        result = library.add(identifier, with_source=source,
                          progress=progress, cancel=ctx.cancel,
                          on_wait=lambda text: ctx.emit(Notice(level="info", text=text)))
    except ServiceError as exc:
        raise ToolError(str(exc)) from None
    paper = result.paper
    ctx.touched(result.pdf)
    where = _relative(ctx, result.pdf)
    title = paper.title or "untitled"
    if result.already:
        lines = [f"{paper.id} ({title}) is already in the library: {where}."]
    else:
        size = result.pdf.stat().st_size
        lines = [f"Downloaded {paper.id} ({title}) to {where} ({size / 1024:.0f} kB)."]
    if result.source is not None:
        lines.append(f"LaTeX source: {_relative(ctx, result.source)}.")
    lines += result.notes
    ids = [f"arXiv:{paper.arxiv_id}" if paper.arxiv_id else "", paper.bibcode or "", paper.doi or ""]
    lines.append("Identifiers: " + ", ".join(i for i in ids if i) + ".")
    if not paper.parsed_at:
        lines.append(f"Next: parse_paper(id='{paper.id}') indexes its text for rag_search and get_paper_content.")
    return ToolResult("\n".join(lines), data={"sources": [Library.source_entry(paper).as_dict()]})


def _relative(ctx: ToolContext, path: Any) -> str:
    try:
        return str(path.relative_to(ctx.workspace_root))
    except ValueError:
        return str(path)


@tool(name="query_target", key_argument="target", timeout=120, needs=Web)
def query_target_tool(ctx: ToolContext, web: Web, target: str, radius: str | None = None, limit: int = 20) -> ToolResult:
    """Look up an object in SIMBAD by name, or list the objects around a position. By name (M 31, HD 209458,
    Sgr A*): main identifier, object type, ICRS coordinates, magnitudes, redshift or radial velocity,
    spectral type and number of references; with coordinates or a radius: a cone search, nearest first.

    Args:
        target: Object name, or coordinates: '10.6847 41.2690' (deg) or '00:42:44.3 +41:16:09'.
        radius: Cone radius such as '2arcmin' or '30arcsec'; with a name, also lists the objects around it
            (default for coordinates: 2arcmin).
        limit: Most objects a cone search lists (default 20).
    """
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.simbad import describe_lookup, look_up

    try:
        found = look_up(web, target, radius, limit or 20)
    except ServiceError as exc:
        raise ToolError(str(exc)) from None
    lines, sources = describe_lookup(found)
    return ToolResult("\n".join(lines), data={"sources": [s.as_dict() for s in sources]})


def install(app: AppContext) -> None:
    from astro_cli.extensions import extension_points
    from astro_cli.research.sources.builtin import register_builtin
    from astro_cli.research.sources.inspire import InspireSource

    app.services.provide(Web, lambda: Web.of(app))  # for the tools that declare needs=Web (and Library)
    app.services.provide(Library, lambda: Library.of(app))
    points = extension_points(app)  # the paper sources, as a plugin adds one (hooks/plugins.py)
    register_builtin(points)
    points.add_paper_source(InspireSource())
    search = as_tool(search_papers_tool)
    search.parameters["properties"]["source"]["enum"] = points.search_choices()  # the registry's live list
    app.tools.register(search)
    for function in (paper_graph_tool, query_target_tool):
        app.tools.register(as_tool(function))
    app.tools.register(as_tool(download_paper_tool, wrap=library_tool))
