"""`astro catalog services|query|cone|tables|find|allow`: catalogue queries over the Virtual Observatory without a model.

They do what the query_catalog and catalog_tables tools do, for a person: the table is written to
the workspace's data/ folder with its provenance and the summary the model would read is printed
(--json: the provenance and the file's path). The person typing the command is the researcher, so
--max-rows above config 'catalog.max_rows' needs no further question (the hard ceiling still holds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import typer

from astro_cli.bootstrap import EXIT_FAILED, EXIT_USAGE, UserError, build_app, user_errors
from astro_cli.commands.defaults import command_group
from astro_cli.security.visible import visible, visible_json

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.catalog.services import Service

app = command_group("services")  # `astro catalog` alone lists the services

SERVICE = typer.Argument(..., help="gaia, vizier, simbad, irsa, ned, mast, one from config catalog.services, or "
                         "a TAP service's URL (allowed once: --allow-url or the question).")
MAX_ROWS = typer.Option(None, "--max-rows", "-n", help="Row limit (default: config catalog.max_rows).")
SAVE_AS = typer.Option(None, "--save-as", "-o", help="File under data/: NAME, NAME.fits, NAME.csv, NAME.vot or "
                       "NAME.parquet (default: SERVICE_TABLE_TIME.ecsv).")
AS_JSON = typer.Option(False, "--json", help="Print the provenance and the file's path as JSON.")
ASYNC = typer.Option(False, "--async", help="Run as an asynchronous job (long queries; waits up to config "
                     "catalog.job_timeout, then deletes the job).")


ALLOW_URL = typer.Option(False, "--allow-url", help="SERVICE is a TAP URL you allow: remembered in your config "
                         "(config catalog.allowed_urls), so later queries and the model may use it.")
NO_CACHE = typer.Option(False, "--no-cache", help="Ask the service even if the same query was answered within "
                        "config catalog.cache_hours (else that saved table is the answer).")
REPLACE = typer.Option(False, "--replace", help="Replace an existing --save-as file (else the table goes to a "
                       "fresh name beside it).")


def _service(ctx: AppContext, name: str, allow_url: bool, code: int = EXIT_USAGE) -> Service:
    """The named service, or a TAP URL: one not yet allowed is allowed by --allow-url or a yes at the
    terminal's question (the person typing is the researcher), and remembered in their config."""
    import sys

    from astro_cli.catalog.allowed import allow, normalised, not_yet_allowed
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.services import service_named

    try:
        if not_yet_allowed(ctx.settings, name) is not None:
            url = normalised(name)
            if not allow_url and sys.stdin.isatty() and sys.stdout.isatty():
                allow_url = typer.confirm(f"Send queries to {url}, a TAP service you have not used with astro "
                                          "before (remembered in your config)?", default=False)
            if allow_url and allow(ctx, url):
                typer.echo(visible(f"Allowed {url} (config catalog.allowed_urls in {ctx.home.config_path})."),
                           err=True)
        return service_named(ctx.settings, name)
    except CatalogError as exc:
        raise UserError(str(exc), code) from None


def _run(request: object, as_json: bool, replace: bool = False, allow_url: bool = False) -> None:
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.research_link import agent
    from astro_cli.catalog.run import Request, limits, run_query

    assert isinstance(request, Request)
    with user_errors():
        ctx = build_app()
        service = _service(ctx, request.service, allow_url)
        try:
            outcome = run_query(ctx, service, request, limits(ctx), agent(ctx), ctx.confinement.place,
                                lambda path: replace)
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        if as_json:
            payload = {**outcome.provenance.meta(), "path": outcome.relative, "sources": outcome.sources}
            typer.echo(visible_json(payload, indent=2))
            return
        from astro_cli.security.visible import visible

        typer.echo(visible(outcome.summary))


@app.command("query")
def query(service: str = SERVICE, adql: str = typer.Argument(..., help="An ADQL SELECT (quote it)."),
          max_rows: Optional[int] = MAX_ROWS, save_as: Optional[str] = SAVE_AS, as_json: bool = AS_JSON,
          replace: bool = REPLACE, async_job: bool = ASYNC, allow_url: bool = ALLOW_URL, no_cache: bool = NO_CACHE,
          upload: Optional[str] = typer.Option(None, "--upload", help="A table file sent as TAP_UPLOAD.targets "
                                               "(join it in the ADQL to cross-match a target list).")) -> None:
    """Run an ADQL SELECT on a service; the table goes to data/, its summary to the screen."""
    from astro_cli.catalog.run import Request

    _run(Request(service, adql=adql, max_rows=max_rows, save_as=save_as, async_job=async_job, upload=upload,
                 fresh=no_cache), as_json, replace, allow_url)


@app.command("cone")
def cone(service: str = SERVICE,
         target: list[str] = typer.Argument(..., help="Object name (SIMBAD resolves it) or 'RA Dec' in degrees."),
         radius: str = typer.Option("2arcmin", "--radius", "-r", help="Cone radius: 30arcsec, 2arcmin, 0.1deg."),
         table: Optional[str] = typer.Option(None, "--table", help="Table (default: the service's main table)."),
         columns: Optional[str] = typer.Option(None, "--columns", help="Columns, comma-separated."),
         ra_column: Optional[str] = typer.Option(None, "--ra-column", help="RA column of --table (default ra)."),
         dec_column: Optional[str] = typer.Option(None, "--dec-column", help="Dec column of --table (default dec)."),
         max_rows: Optional[int] = MAX_ROWS, save_as: Optional[str] = SAVE_AS, as_json: bool = AS_JSON,
         replace: bool = REPLACE, allow_url: bool = ALLOW_URL, no_cache: bool = NO_CACHE) -> None:
    """The sources of a table within a radius of a named object or a position, nearest first."""
    from astro_cli.catalog.run import Request

    _run(Request(service, target=" ".join(target), radius=radius, table=table, columns=columns,
                 ra_column=ra_column, dec_column=dec_column, max_rows=max_rows, save_as=save_as, fresh=no_cache), as_json,
         replace, allow_url)


@app.command("tables")
def tables(service: str = SERVICE,
           table: Optional[str] = typer.Argument(None, help="A table whose columns to list."),
           search: Optional[str] = typer.Option(None, "--search", "-s", help="A word to filter tables by."),
           examples: bool = typer.Option(False, "--examples", help="The example queries the service publishes "
                                         "(its /examples) instead."),
           allow_url: bool = ALLOW_URL) -> None:
    """A service's tables (filtered by --search), or one table's columns with units and descriptions."""
    from astro_cli.catalog.discover import describe_table, list_tables
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.research_link import agent
    from astro_cli.security.visible import visible

    with user_errors():
        ctx = build_app()
        found = _service(ctx, service, allow_url, EXIT_FAILED)
        try:
            timeout = float(ctx.settings.typed["catalog.timeout"])
            if examples:
                from astro_cli.catalog.stated import list_examples

                lines = list_examples(found, timeout, agent(ctx))
            else:
                lines = (describe_table(found, table, timeout, agent(ctx)) if table
                         else list_tables(found, timeout, agent(ctx), search))
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        typer.echo(visible("\n".join(lines)))


@app.command("links")
def links(service: str = SERVICE,
          ident: list[str] = typer.Argument(..., help="One source's identifier, e.g. Gaia DR3 4583627001381815936."),
          fetch: Optional[str] = typer.Option(None, "--fetch", help="Download one product into data/: its number in "
                                              "the listing, or its semantics (e.g. this, epoch-photometry)."),
          save_as: Optional[str] = typer.Option(None, "--save-as", "-o", help="The downloaded file's name under data/ "
                                                "(default: from its URL, or the source and semantics)."),
          replace: bool = REPLACE) -> None:
    """The DataLink products of one source (epoch photometry, spectra), with their URLs; --fetch downloads one."""
    from astro_cli.catalog.datalink import list_links
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.products import fetch_product
    from astro_cli.catalog.research_link import agent
    from astro_cli.catalog.services import service_named

    with user_errors():
        ctx = build_app()
        timeout = float(ctx.settings.typed["catalog.timeout"])
        try:
            known = service_named(ctx.settings, service)
            if fetch is None:
                typer.echo(visible("\n".join(list_links(known, " ".join(ident), timeout, agent(ctx)))))
                return
            fetched = fetch_product(known, " ".join(ident), fetch, save_as, timeout, agent(ctx),
                                    ctx.confinement.place, lambda path: replace)
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        typer.echo(visible(fetched.summary(" ".join(" ".join(ident).split()), known)))  # names from the service


@app.command("send")
def send(file: str = typer.Argument(..., help="A .vot or .fits table of the workspace, e.g. data/m67.vot."),
         to: Optional[str] = typer.Option(None, "--to", help="The SAMP client's name, e.g. topcat (default: all).")
         ) -> None:
    """Send a table to TOPCAT, Aladin or another SAMP client through the running SAMP hub."""
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.samp import send_table
    from astro_cli.security.visible import visible

    with user_errors():
        ctx = build_app()
        try:
            typer.echo(visible(send_table(ctx, file, to, float(ctx.settings.typed["catalog.timeout"]))))
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None


@app.command("services")
def services_command(as_json: bool = AS_JSON) -> None:
    """The services catalogue queries may use (built-in and config catalog.services)."""
    from astro_cli.catalog.allowed import allowed_urls
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.services import services

    with user_errors():
        ctx = build_app()
        try:
            known = services(ctx.settings)
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_USAGE) from None
        urls = allowed_urls(ctx.settings)
        if as_json:
            typer.echo(visible_json({k: {"title": s.title, "url": s.url, "bibcode": s.bibcode,
                                         "cone_table": s.cone.name if s.cone else None} for k, s in known.items()}
                                    | ({"allowed_urls": urls} if urls else {}), indent=2))
            return
        for key, service in sorted(known.items()):
            cone = f"; cone: {service.cone.name}" if service.cone else ""
            cite = f"; cite {service.bibcode}" if service.bibcode else ""
            typer.echo(visible(f"{key:8} {service.title} <{service.url}>{cone}{cite}"))
        if urls:
            typer.echo("TAP URLs you allowed (config catalog.allowed_urls; give one in place of a service's name):")
            for url in urls:
                typer.echo(visible(f"  {url}"))


@app.command("allow")
def allow_command(url: str = typer.Argument(..., help="A TAP service's base URL, e.g. https://example.org/tap.")
                  ) -> None:
    """Allow a TAP URL once: astro and the model may then query it (remembered in your config)."""
    from astro_cli.catalog.allowed import allow, normalised
    from astro_cli.catalog.errors import CatalogError

    with user_errors():
        ctx = build_app()
        try:
            added, shown = allow(ctx, url), normalised(url)
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_USAGE) from None
        typer.echo(visible(f"{shown} {'allowed' if added else 'was allowed already'} (config catalog.allowed_urls "
                           f"in {ctx.home.config_path})."))


@app.command("find")
def find(words: list[str] = typer.Argument(..., help="Keywords, e.g. pulsar distance.")) -> None:
    """Search the VO registry (config catalog.registry_url) for catalogues with TAP services."""
    from astro_cli.catalog.errors import CatalogError
    from astro_cli.catalog.registry import search_registry
    from astro_cli.catalog.research_link import agent
    from astro_cli.security.visible import visible

    with user_errors():
        ctx = build_app()
        try:
            lines = search_registry(ctx.settings, " ".join(words), float(ctx.settings.typed["catalog.timeout"]),
                                    agent(ctx))
        except CatalogError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        typer.echo(visible("\n".join(lines)))
