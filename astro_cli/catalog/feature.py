"""The catalogue tools: query_catalog (ADQL or a cone search, written to data/ and summarised) and
catalog_tables (a service's tables, or one table's columns).

Both are network tools like search_papers: they run without a question, except that a call asking
for more rows than config 'catalog.max_rows' needs the researcher's permission (Tool.permission_when),
as a write would, and so does replace=true (replacing a file this session did not write, as file_write
asks; without it a taken name sends the table to a fresh one beside it). A service's rejection of the
ADQL comes back in its own words. Each service has a retry budget per turn: after a rejection the
model may correct the query once; a second rejection in a row ends its attempts *on that service* for
the turn, and a success resets the budget, so one bad query never blocks a corrected one or another
service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool
from astro_cli.tools.written import SessionWrites

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.app import AppContext
    from astro_cli.catalog.run import Limits, Outcome, Request
    from astro_cli.catalog.services import Service
    from astro_cli.security.writer import Place

RETRIES_PER_TURN = 1


@dataclass
class CatalogState:
    """Rejections in a row per (turn, service) of one session: the retry budget of each service."""

    rejected: dict[tuple[int, str], int] = field(default_factory=dict)


QUERY_DESCRIPTION = (
    "Query a VO catalogue (Gaia, VizieR, IRSA, NED, MAST, SIMBAD) by ADQL or a cone. "
    "Either send an ADQL SELECT (read-only; TOP is added when missing), or give a target (a name SIMBAD "
    "resolves, or 'ra dec' in degrees) and a radius for a cone search of the service's main table (2MASS at irsa, "
    "gaiadr3.gaia_source at gaia) or table=. The result is written to data/<name>.ecsv (.fits/.csv/.vot/.parquet "
    "via save_as) "
    "with its provenance; you get a summary (rows, columns with units and statistics, first rows, what to cite), "
    "never the whole table: analyse the file with run_bash. A file of that name that this session did not write is kept: "
    "the table goes to a fresh name (replace=true replaces it, with the researcher's approval). Cite the bibcode the summary names. More rows than "
    "the configured limit need the researcher's approval."
)
TABLES_DESCRIPTION = (
    "List a catalogue service's tables, or one table's columns with their units. "
    "search= filters tables by a word; table= lists that table's columns with units, types and descriptions, so "
    "ADQL for query_catalog names real columns. service='registry' with search= finds catalogues in the whole "
    "Virtual Observatory by keywords. links= one source's identifier lists its DataLink products (Gaia epoch "
    "photometry, spectra) with their URLs. examples=true lists the service's own example queries."
)


@dataclass(frozen=True)
class CatalogDesk:
    """What the catalogue tools need of the app, handed in by the install (`CatalogDesk.of`): the
    User-Agent the services see, the configured limits, a query run against the app's cache and name
    resolver, and how a TAP URL the researcher allowed is remembered in their config."""

    agent: Callable[[], str]
    limits: Callable[[], Limits]
    run: Callable[[Service, Request, Limits, str, Callable[[str], Place], Callable[[Path], bool]], Outcome]
    allow: Callable[[str], bool]

    @staticmethod
    def of(app: AppContext) -> CatalogDesk:
        from astro_cli.catalog.allowed import allow
        from astro_cli.catalog.research_link import agent
        from astro_cli.catalog.run import limits, run_query

        return CatalogDesk(lambda: agent(app), lambda: limits(app),
                           lambda *args: run_query(app, *args), lambda url: allow(app, url))


def _clean(value: str | None) -> str | None:
    """A text argument without surrounding spaces; empty is not given."""
    return (value or "").strip() or None


def _service(ctx: ToolContext, desk: CatalogDesk, name: str) -> tuple[Service, str]:
    """The named service, or a TAP URL; a URL not yet allowed reaches here only after the researcher
    answered yes to the permission question (Tool.widens), so it is remembered in their config."""
    from astro_cli.catalog.allowed import normalised, not_yet_allowed
    from astro_cli.catalog.services import service_named

    note = ""
    if not_yet_allowed(ctx.settings, name) is not None:
        desk.allow(name)
        note = (f"\nThe researcher allowed {normalised(name)}; it is remembered in their config "
                "(`astro catalog services` lists it).")
    return service_named(ctx.settings, name), note


@tool(name="query_catalog", read_only=False, key_argument="service", timeout=900, needs=CatalogDesk,
      description=QUERY_DESCRIPTION)
def query_catalog_tool(ctx: ToolContext, desk: CatalogDesk, service: str, adql: str | None = None,
                       target: str | None = None, radius: str | None = None, table: str | None = None,
                       columns: str | None = None, ra_column: str | None = None, dec_column: str | None = None,
                       max_rows: int | None = None, upload: str | None = None, async_job: bool = False,
                       save_as: str | None = None, replace: bool = False, fresh: bool = False,
                       links: str | None = None, product: str | None = None) -> ToolResult:
    """Args:
        service: gaia, vizier, simbad, irsa, ned, mast, one from config catalog.services, or a TAP service's URL
            (https://...; the researcher is asked the first time).
        adql: An ADQL SELECT, e.g. SELECT source_id, parallax FROM gaiadr3.gaia_source WHERE source_id = 123.
        target: Cone centre: object name or 'ra dec' in degrees.
        radius: Cone radius, e.g. '30arcsec', '2arcmin' (default 2arcmin).
        table: Table for the cone (default: the service's main table).
        columns: Columns for the cone, comma-separated (default: useful ones).
        ra_column: RA column of table= (default ra).
        dec_column: Dec column of table= (default dec).
        max_rows: Row limit (default config catalog.max_rows).
        upload: A table file of the workspace (ECSV, CSV, FITS, VOTable) sent as TAP_UPLOAD.targets: cross-match
            a target list in one query by joining it in adql.
        async_job: Run as an asynchronous job: for a query that needs longer than the synchronous timeout
            (large or slow ones).
        save_as: File name under data/, e.g. m67_gaia, m67.fits, m67.vot or m67.parquet.
        replace: Replace an existing save_as file (asks the researcher).
        fresh: Ask the service even if the same query was answered recently (by default that saved answer is
            reused, and the summary says so).
        links: A source's identifier: download its DataLink product to data/ instead.
        product: With links: number in catalog_tables' listing, or semantics (default this).
    """
    from astro_cli.catalog.errors import CatalogError, QueryRejected
    from astro_cli.catalog.run import Request

    written = ctx.state(SessionWrites)
    may_replace: Callable[[Path], bool] = lambda path: replace or written.may_replace(path)  # noqa: E731 - asked
    if _clean(links):
        return _fetch_product(ctx, desk, service, _clean(links) or "", _clean(product), _clean(save_as), may_replace)
    state = ctx.state(CatalogState)
    request = Request(
        service=_clean(service) or "", adql=_clean(adql), target=_clean(target), radius=_clean(radius),
        table=_clean(table), columns=_clean(columns), ra_column=_clean(ra_column), dec_column=_clean(dec_column),
        max_rows=max_rows, save_as=_clean(save_as), async_job=async_job, upload=_clean(upload), fresh=fresh,
    )
    try:
        found, allowed_note = _service(ctx, desk, request.service)
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    budget = (ctx.turn, found.key)
    if state.rejected.get(budget, 0) > RETRIES_PER_TURN:
        raise ToolError(f"{found.title} ({found.key}) rejected two queries in a row this turn; tell the "
                        "researcher what it said instead of retrying (list the table's columns with "
                        "catalog_tables first next time).")
    try:
        outcome = desk.run(found, request, desk.limits(), desk.agent(), ctx.confinement.place, may_replace)
    except QueryRejected as exc:
        count = state.rejected.get(budget, 0) + 1
        state.rejected[budget] = count
        advice = (" Correct the ADQL and try once more." if count <= RETRIES_PER_TURN
                  else " Do not retry on this service this turn; tell the researcher.")
        raise ToolError(str(exc) + advice) from None
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    written.add(outcome.path)
    state.rejected.pop(budget, None)  # a success resets this service's budget
    ctx.touched(outcome.path)
    data = {"sources": outcome.sources, "catalog": {**outcome.provenance.meta(), "path": outcome.relative}}
    return ToolResult(outcome.summary + allowed_note, data=data)


def _fetch_product(ctx: ToolContext, desk: CatalogDesk, name: str, ident: str, product: str | None,
                   save_as: str | None, may_replace: Callable[[Path], bool]) -> ToolResult:
    """query_catalog with links=: one DataLink product of that source downloaded into data/."""
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.products import fetch_product

    try:
        service, _ = _service(ctx, desk, _clean(name) or "")
        fetched = fetch_product(service, ident, product, save_as, float(ctx.settings.typed["catalog.timeout"]),
                                desk.agent(), ctx.confinement.place, may_replace)
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    ctx.state(SessionWrites).add(fetched.path)
    ctx.touched(fetched.path)
    return ToolResult(fetched.summary(" ".join(ident.split()), service))


@tool(name="catalog_tables", key_argument="service", timeout=300, needs=CatalogDesk, description=TABLES_DESCRIPTION)
def catalog_tables_tool(ctx: ToolContext, desk: CatalogDesk, service: str, search: str | None = None,
                        table: str | None = None, links: str | None = None, examples: bool = False) -> ToolResult:
    """Args:
        service: gaia, vizier, simbad, irsa, ned, mast, one from config catalog.services, or a TAP service's URL
            (https://...; the researcher is asked the first time).
        search: A word to filter table names and descriptions.
        table: A table whose columns to list.
        links: One source's identifier, e.g. 'Gaia DR3 4583627001381815936': list its DataLink products.
        examples: List the example queries the service's authors publish (its /examples): real ADQL against
            its own tables.
    """
    from astro_cli.catalog.discover import describe_table, list_tables
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.registry import REGISTRY, search_registry

    name, search, table, links = _clean(service) or "", _clean(search), _clean(table), _clean(links)
    timeout = float(ctx.settings.typed["catalog.timeout"])
    note = ""
    try:
        if name.lower() == REGISTRY and not links:
            lines = search_registry(ctx.settings, search or "", timeout, desk.agent())
        else:
            found, note = _service(ctx, desk, name)
            if links:
                from astro_cli.catalog.datalink import list_links

                lines = list_links(found, links, timeout, desk.agent())
            elif examples:
                from astro_cli.catalog.stated import list_examples

                lines = list_examples(found, timeout, desk.agent())
            elif table:
                lines = describe_table(found, table, timeout, desk.agent())
            else:
                lines = list_tables(found, timeout, desk.agent(), search)
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    return ToolResult("\n".join(lines) + note)


def install(app: AppContext) -> None:
    from astro_cli.catalog.credits import slash_acknowledgements
    from astro_cli.catalog.run import wants_more_rows
    from astro_cli.slash import SlashCommand, slash_commands

    slash_commands(app).register(SlashCommand(
        "acknowledgements", "the acknowledgement texts this session's catalogue queries owe (Gaia, 2MASS, IRSA, "
        "NED, ...)", slash_acknowledgements))

    def beyond_limit(arguments: dict[str, Any]) -> bool:
        """More rows than config allows, or replacing a file: the researcher is asked."""
        return arguments.get("replace") is True or wants_more_rows(arguments, int(app.settings.typed["catalog.max_rows"]))

    def widens(arguments: dict[str, Any]) -> str | None:
        """A TAP URL the researcher has not allowed: asked, never pre-approved (allowed.py)."""
        from astro_cli.catalog.allowed import not_yet_allowed

        return not_yet_allowed(app.settings, str(arguments.get("service") or ""))

    app.services.provide(CatalogDesk, lambda: CatalogDesk.of(app))  # what both tools declare they need
    query = as_tool(query_catalog_tool)
    query.permission_when, query.widens = beyond_limit, widens  # they read the app's settings
    tables = as_tool(catalog_tables_tool)
    tables.widens = widens
    app.tools.register(query)
    app.tools.register(tables)
