"""`astro search QUERY` and `astro target NAME`: NASA ADS / arXiv and SIMBAD without a model.

They print what the search_papers and query_target tools give the model, for a person (or, with
--json, for a script). The service modules are imported inside the commands, so `astro --help`
stays fast.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional

import typer

from astro_cli.bootstrap import EXIT_FAILED, EXIT_USAGE, UserError, build_app, user_errors
from astro_cli.security.visible import visible, visible_json


class Sort(str, Enum):
    relevance = "relevance"
    date = "date"
    citations = "citations"


def _years(raw: str | None) -> tuple[int | None, int | None]:
    """'2010-2015', '2010-', '-2015' or '2012' -> (from, to)."""
    if not raw:
        return None, None
    first, dash, last = raw.strip().partition("-")
    try:
        start = int(first) if first.strip() else None
        end = int(last) if last.strip() else (None if dash else start)
    except ValueError:
        raise UserError(f"--year takes a year or a range like 2010-2015, not '{raw}'.") from None
    return start, end


def search(
    query: str = typer.Argument(..., help="Words, or NASA ADS query syntax (it passes through)."),
    source: str = typer.Option("all", "--source", "-s", help="all (ADS and arXiv merged), or one registered source: "
                               "ads, arxiv, inspire, or a plugin's (a wrong name lists them)."),
    rows: int = typer.Option(10, "--rows", "-n", help="How many results (1-50)."),
    sort: Sort = typer.Option(Sort.relevance, "--sort", help="relevance, date or citations."),
    year: Optional[str] = typer.Option(None, "--year", help="A year or a range: 2010-2015, 2018-."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Search NASA ADS (with ADS_API_TOKEN) and arXiv; results merged without duplicates."""
    from astro_cli.extensions import extension_points
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.remote_search import check_arguments, search_papers
    from astro_cli.research.sources.web import Web

    with user_errors():
        year_from, year_to = _years(year)
        app = build_app()
        points = extension_points(app.install_features())  # the registered sources, a plugin's too
        try:
            check_arguments(source, rows, sort.value, year_from, year_to, points.search_choices())
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_USAGE) from None
        try:
            outcome = search_papers(Web.of(app), query, source, rows, sort.value, year_from, year_to, points)
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        if as_json:
            payload = {"query": query, "totals": outcome.totals, "notes": outcome.notes, "results": [r.as_record() for r in outcome.records]}
            typer.echo(visible_json(payload, indent=2))
            return
        _print_results(outcome)


def _print_results(outcome: Any) -> None:
    """Titles, authors and abstracts are other people's text: printed through visible(), never as markup."""
    from rich.console import Console
    from rich.text import Text

    from astro_cli.research.sources.remote_search import authors_line, ids_line, snippet

    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if not outcome.records:
        console.print(Text("No papers found for: " + visible(outcome.query)))
    for number, record in enumerate(outcome.records, start=1):
        console.print(Text(visible(f"{number}. {record.title or '(untitled)'}"), style="bold"))
        console.print(Text("   " + visible(authors_line(list(record.authors)))))
        console.print(Text("   " + visible(ids_line(record)), style="dim"))
        if record.url:
            console.print(Text("   " + visible(record.url), style="dim"))
        if record.abstract:
            console.print(Text("   " + visible(snippet(record.abstract, 240))))
    for note in outcome.notes:
        err.print(Text.assemble(("note:", "yellow"), " ", visible(note)))


def target(
    name: list[str] = typer.Argument(..., help="Object name (M 31) or coordinates (10.6847 41.2690, "
                                     "or \"00:42:44.3 +41:16:09\"; quote a negative declination)."),
    radius: Optional[str] = typer.Option(None, "--radius", "-r", help="Cone radius (2arcmin, 30arcsec): lists the "
                                         "objects around the position."),
    limit: int = typer.Option(20, "--limit", "-n", help="Most objects a cone search lists."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Look up an object in SIMBAD, or list the objects around a position."""
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.simbad import describe_lookup, look_up
    from astro_cli.research.sources.web import Web

    with user_errors():
        app = build_app()
        try:
            found = look_up(Web.of(app), " ".join(name), radius, limit)
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        if as_json:
            typer.echo(visible_json(found, indent=2, default=str))
            return
        lines, _ = describe_lookup(found)
        typer.echo(visible("\n".join(lines)))
