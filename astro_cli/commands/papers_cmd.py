"""`astro papers refs|cited-by|similar ID`: a paper's citation trail without a model.

It prints what the paper_graph tool gives the model, for a person (or, with --json, a script).
The research modules are imported inside the commands, so `astro --help` stays fast.
"""

from __future__ import annotations

from typing import Any

import typer

from astro_cli.bootstrap import EXIT_FAILED, EXIT_USAGE, UserError, build_app, user_errors
from astro_cli.commands.defaults import listing_group
from astro_cli.security.visible import one_line, visible, visible_json

app = listing_group()  # `astro papers` alone lists its sub-commands

ROWS = typer.Option(20, "--rows", "-n", help="Neighbours per page (1-50).")
START = typer.Option(0, "--start", help="Index of the first neighbour (paging).")
AS_JSON = typer.Option(False, "--json", help="Print JSON.")
REFERENCE_SHOWN = 400  # characters of a reference as the paper printed it (one line)


@app.command("refs")
def refs(paper: str = typer.Argument(..., help="Bibcode, arXiv id or DOI."), rows: int = ROWS, start: int = START,
         as_json: bool = AS_JSON) -> None:
    """The papers this paper cites (ADS; without a token, its own parsed bibliography)."""
    _show(paper, "refs", rows, start, as_json)


@app.command("cited-by")
def cited_by(paper: str = typer.Argument(..., help="Bibcode, arXiv id or DOI."), rows: int = ROWS,
             start: int = START, as_json: bool = AS_JSON) -> None:
    """The papers citing this paper (needs ADS_API_TOKEN)."""
    _show(paper, "cited-by", rows, start, as_json)


@app.command("similar")
def similar(paper: str = typer.Argument(..., help="Bibcode, arXiv id or DOI."), rows: int = ROWS,
            start: int = START, as_json: bool = AS_JSON) -> None:
    """Papers whose text resembles this one (needs ADS_API_TOKEN)."""
    _show(paper, "similar", rows, start, as_json)


def _show(paper: str, direction: str, rows: int, start: int, as_json: bool) -> None:
    from astro_cli.research.library.service import Library
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.paper_graph import check, paper_graph

    with user_errors():
        try:
            check(direction, rows, start)
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_USAGE) from None
        context = build_app()
        try:
            page = paper_graph(Library.of(context), paper, direction, rows, start)
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        if as_json:
            payload = {"paper": page.paper, "direction": direction, "total": page.total, "start": page.start,
                       "source": page.source, "notes": page.notes,
                       "results": [{**n.record.as_record(), "in_library": n.in_library, "reference": n.text or None}
                                   for n in page.neighbours]}
            typer.echo(visible_json(payload, indent=2))
            return
        _print(page)


def _print(page: Any) -> None:
    """Titles, authors and reference texts are other people's: printed through visible(), never as markup."""
    from rich.console import Console
    from rich.text import Text

    from astro_cli.research.sources.paper_graph import TITLES
    from astro_cli.research.sources.remote_search import authors_line, ids_line

    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    shown = len(page.neighbours)
    console.print(Text(visible(f"{TITLES[page.direction]} {page.paper} ({page.source}): ")
                       + (f"{page.start + 1:d}-{page.start + shown:d} of {page.total:,}" if shown else "none")))
    for number, neighbour in enumerate(page.neighbours, start=page.start + 1):
        record = neighbour.record
        title = visible(record.title) if record.title else one_line(neighbour.text or "(untitled)",
                                                                                   REFERENCE_SHOWN)
        console.print(Text.assemble((visible(f"{number}. {title}"), "bold"),
                                    *([(" (in library)", "green")] if neighbour.in_library else [])))
        if record.title:
            console.print(Text("   " + visible(authors_line(list(record.authors)))))
        console.print(Text("   " + visible(ids_line(record) or "not resolved to an identifier"), style="dim"))
    if page.start + shown < page.total:
        err.print(Text(f"more: --start {page.start + shown:d}", style="dim"))
    for note in page.notes:
        err.print(Text.assemble(("note:", "yellow"), " ", visible(note)))
