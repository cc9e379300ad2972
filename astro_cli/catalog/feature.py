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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.tools.base import Tool, ToolError, ToolResult, object_schema
from astro_cli.tools.context import ToolContext
from astro_cli.tools.written import SessionWrites

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.catalog.services import Service

RETRIES_PER_TURN = 1


@dataclass
class CatalogState:
    """Rejections in a row per (turn, service) of one session: the retry budget of each service."""

    rejected: dict[tuple[int, str], int] = field(default_factory=dict)


def _text(args: dict[str, Any], name: str) -> str | None:
    value = args.get(name)
    if value in (None, ""):
        return None
    if not isinstance(value, (str, int, float)):
        raise ToolError(f"{name} must be text, not {type(value).__name__}.")
    return str(value).strip() or None


def _rows(args: dict[str, Any]) -> int | None:
    value = args.get("max_rows")
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ToolError(f"max_rows must be a whole number, not {value!r}.") from None


def _service(ctx: ToolContext, name: str) -> tuple[Service, str]:
    """The named service, or a TAP URL; a URL not yet allowed reaches here only after the researcher
    answered yes to the permission question (Tool.widens), so it is remembered in their config."""
    from astro_cli.catalog.allowed import allow, normalised, not_yet_allowed
    from astro_cli.catalog.services import service_named

    note = ""
    if not_yet_allowed(ctx.settings, name) is not None:
        allow(ctx.app, name)
        note = (f"\nThe researcher allowed {normalised(name)}; it is remembered in their config "
                "(`astro catalog services` lists it).")
    return service_named(ctx.settings, name), note


def query_catalog_tool(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from astro_cli.catalog.errors import CatalogError, QueryRejected
    from astro_cli.catalog.research_link import agent
    from astro_cli.catalog.run import Request, limits, run_query

    if _text(args, "links"):
        return _fetch_product(ctx, args)
    state = ctx.state(CatalogState)
    request = Request(
        service=_text(args, "service") or "", adql=_text(args, "adql"), target=_text(args, "target"),
        radius=_text(args, "radius"), table=_text(args, "table"), columns=_text(args, "columns"),
        ra_column=_text(args, "ra_column"), dec_column=_text(args, "dec_column"), max_rows=_rows(args),
        save_as=_text(args, "save_as"), async_job=args.get("async_job") is True, upload=_text(args, "upload"),
        fresh=args.get("fresh") is True,
    )
    try:
        service, allowed_note = _service(ctx, request.service)
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    budget = (ctx.turn, service.key)
    if state.rejected.get(budget, 0) > RETRIES_PER_TURN:
        raise ToolError(f"{service.title} ({service.key}) rejected two queries in a row this turn; tell the "
                        "researcher what it said instead of retrying (list the table's columns with "
                        "catalog_tables first next time).")
    replace = args.get("replace") is True  # permission_when asked the researcher for it
    written = ctx.state(SessionWrites)
    try:
        outcome = run_query(ctx.app, service, request, limits(ctx.app), agent(ctx.app), ctx.confinement.place,
                            lambda path: replace or written.may_replace(path))
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


def _fetch_product(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """query_catalog with links=: one DataLink product of that source downloaded into data/."""
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.products import fetch_product
    from astro_cli.catalog.research_link import agent

    replace = args.get("replace") is True  # permission_when asked the researcher for it
    written = ctx.state(SessionWrites)
    ident = _text(args, "links") or ""
    try:
        service, _ = _service(ctx, _text(args, "service") or "")
        fetched = fetch_product(service, ident, _text(args, "product"), _text(args, "save_as"),
                                float(ctx.settings.typed["catalog.timeout"]), agent(ctx.app), ctx.confinement.place,
                                lambda path: replace or written.may_replace(path))
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    written.add(fetched.path)
    ctx.touched(fetched.path)
    return ToolResult(fetched.summary(" ".join(ident.split()), service))


def catalog_tables_tool(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    from astro_cli.catalog.discover import describe_table, list_tables
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.registry import REGISTRY, search_registry
    from astro_cli.catalog.research_link import agent

    name = _text(args, "service") or ""
    search, table, links = _text(args, "search"), _text(args, "table"), _text(args, "links")
    timeout = float(ctx.settings.typed["catalog.timeout"])
    note = ""
    try:
        if name.lower() == REGISTRY and not links:
            lines = search_registry(ctx.settings, search or "", timeout, agent(ctx.app))
        else:
            service, note = _service(ctx, name)
            if links:
                from astro_cli.catalog.datalink import list_links

                lines = list_links(service, links, timeout, agent(ctx.app))
            elif args.get("examples") is True:
                from astro_cli.catalog.stated import list_examples

                lines = list_examples(service, timeout, agent(ctx.app))
            elif table:
                lines = describe_table(service, table, timeout, agent(ctx.app))
            else:
                lines = list_tables(service, timeout, agent(ctx.app), search)
    except CatalogError as exc:
        raise ToolError(str(exc)) from None
    return ToolResult("\n".join(lines) + note)


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

    service = {"type": "string", "description": "gaia, vizier, simbad, irsa, ned, mast, one from config "
               "catalog.services, or a TAP service's URL (https://...; the researcher is asked the first time)."}

    def widens(arguments: dict[str, Any]) -> str | None:
        """A TAP URL the researcher has not allowed: asked, never pre-approved (allowed.py)."""
        from astro_cli.catalog.allowed import not_yet_allowed

        return not_yet_allowed(app.settings, str(arguments.get("service") or ""))

    app.tools.register(Tool(
        name="query_catalog",
        description=QUERY_DESCRIPTION,
        parameters=object_schema({
            "service": service,
            "adql": {"type": "string", "description": "An ADQL SELECT, e.g. SELECT source_id, parallax FROM "
                     "gaiadr3.gaia_source WHERE source_id = 123."},
            "target": {"type": "string", "description": "Cone centre: object name or 'ra dec' in degrees."},
            "radius": {"type": "string", "description": "Cone radius, e.g. '30arcsec', '2arcmin' (default 2arcmin)."},
            "table": {"type": "string", "description": "Table for the cone (default: the service's main table)."},
            "columns": {"type": "string", "description": "Columns for the cone, comma-separated (default: useful ones)."},
            "ra_column": {"type": "string", "description": "RA column of table= (default ra)."},
            "dec_column": {"type": "string", "description": "Dec column of table= (default dec)."},
            "max_rows": {"type": "integer", "description": "Row limit (default config catalog.max_rows)."},
            "upload": {"type": "string", "description": "A table file of the workspace (ECSV, CSV, FITS, VOTable) "
                       "sent as TAP_UPLOAD.targets: cross-match a target list in one query by joining it in adql."},
            "async_job": {"type": "boolean", "description": "Run as an asynchronous job: for a query that needs "
                          "longer than the synchronous timeout (large or slow ones)."},
            "save_as": {"type": "string", "description": "File name under data/, e.g. m67_gaia, m67.fits, m67.vot or "
                        "m67.parquet."},
            "replace": {"type": "boolean", "description": "Replace an existing save_as file (asks the researcher)."},
            "fresh": {"type": "boolean", "description": "Ask the service even if the same query was answered "
                      "recently (by default that saved answer is reused, and the summary says so)."},
            "links": {"type": "string", "description": "A source's identifier: download its DataLink product to "
                      "data/ instead."},
            "product": {"type": "string", "description": "With links: number in catalog_tables' listing, or "
                        "semantics (default this)."},
        }, ["service"]),
        run=query_catalog_tool, read_only=False, key_argument="service", timeout=900,
        permission_when=beyond_limit, widens=widens,
    ))
    app.tools.register(Tool(
        name="catalog_tables",
        description=TABLES_DESCRIPTION,
        parameters=object_schema({
            "service": service,
            "search": {"type": "string", "description": "A word to filter table names and descriptions."},
            "table": {"type": "string", "description": "A table whose columns to list."},
            "links": {"type": "string", "description": "One source's identifier, e.g. 'Gaia DR3 4583627001381815936': "
                      "list its DataLink products."},
            "examples": {"type": "boolean", "description": "List the example queries the service's authors publish "
                         "(its /examples): real ADQL against its own tables."},
        }, ["service"]),
        run=catalog_tables_tool, key_argument="service", timeout=300, widens=widens,
    ))
