"""One catalogue query, from what the tool or command was given to the file and its summary.

`Request` is what a caller asks (ADQL, or a cone around a target); `Limits` what config allows;
`run_query` checks the ADQL, sends it to the named service only, writes the table with its
provenance and returns the summary and the citations (`Outcome`). The caller decides where the
file may go (`place`) and whether an existing file there may be replaced (`may_replace`): a name
taken by a file nobody allowed astro to replace sends the table to a fresh name beside it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from astro_cli.catalog import adql as adql_rules
from astro_cli.catalog.cone import cone_adql, cone_table
from astro_cli.catalog.credits import credits_for
from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.results import Provenance, default_stem, now_utc, relative_target, write
from astro_cli.catalog.services import Catalogue, Service, catalogues_in
from astro_cli.catalog.stated import OutputLimits, output_limits
from astro_cli.catalog.summary import summarize
from astro_cli.catalog.tap import run_async, run_sync
from astro_cli.catalog.upload import UPLOAD_NAME, UPLOAD_TABLE, read_upload

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.app import AppContext
    from astro_cli.security.writer import Place

HARD_MAX_ROWS = 2_000_000  # even with the researcher's approval: beyond this, use the archive's async jobs


@dataclass(frozen=True)
class Request:
    service: str
    adql: str | None = None
    target: str | None = None
    radius: str | None = None
    table: str | None = None
    columns: str | None = None
    ra_column: str | None = None
    dec_column: str | None = None
    max_rows: int | None = None
    save_as: str | None = None
    async_job: bool = False  # an asynchronous (UWS) job instead of a synchronous query
    upload: str | None = None  # a workspace table sent as TAP_UPLOAD.targets (upload.py)
    fresh: bool = False  # ask the service even when an earlier answer is cached (cache.py)


@dataclass(frozen=True)
class Limits:
    max_rows: int  # config 'catalog.max_rows': beyond it the researcher is asked
    timeout: float
    job_timeout: float = 1800.0  # config 'catalog.job_timeout': how long an asynchronous job may run
    cache_hours: float = 0.0  # config 'catalog.cache_hours': how long an answer is reused (cache.py)


@dataclass
class Outcome:
    path: Path
    relative: str
    summary: str
    rows: int
    limited: bool
    provenance: Provenance
    sources: list[dict[str, Any]] = field(default_factory=list)


def limits(app: AppContext) -> Limits:
    return Limits(int(app.settings.typed["catalog.max_rows"]), float(app.settings.typed["catalog.timeout"]),
                  float(app.settings.typed["catalog.job_timeout"]), float(app.settings.typed["catalog.cache_hours"]))


def within_stated(checked: adql_rules.Checked, stated: OutputLimits, rows: int, asked: bool,
                  name: str) -> adql_rules.Checked:
    """The query within the hard row limit the service states (its /capabilities): astro's default
    TOP lowered to it; rows asked for beyond it (max_rows, or the query's own TOP) refused."""
    hard = stated.hard
    if hard is None or checked.top <= hard:
        return checked
    if asked or checked.top != rows or f"TOP {rows} " not in checked.text:
        raise CatalogError(f"max_rows must be between 1 and {hard:,}: {name} states a hard limit of {hard:,} rows "
                           "(its /capabilities) and returns no more; narrow the query or split it.")
    return adql_rules.Checked(checked.text.replace(f"TOP {rows} ", f"TOP {hard} ", 1), hard, checked.tables)


def row_limit(request: Request, allowed: Limits) -> int:
    """The rows this request may return: max_rows when given (approved beyond the config's), else the config's."""
    wanted = request.max_rows if request.max_rows is not None else allowed.max_rows
    if not 1 <= wanted <= HARD_MAX_ROWS:
        raise CatalogError(f"max_rows must be between 1 and {HARD_MAX_ROWS:,}; for more, use the archive's own "
                           "bulk download.")
    return wanted


def wants_more_rows(arguments: dict[str, Any], configured: int) -> bool:
    """Would these tool arguments go beyond the configured row limit (so the researcher must approve)?"""
    try:
        asked = int(arguments.get("max_rows") or 0)
    except (TypeError, ValueError):
        asked = 0
    top = adql_rules.requested_top(str(arguments.get("adql") or "")) or 0
    return max(asked, top) > configured


def source_of(catalogue: Catalogue) -> dict[str, Any]:
    """The catalogue's reference as a session source (it joins /sources and the BibTeX)."""
    # The first authors only, so the BibTeX entry says "and others" (ADS's full list needs a token).
    return {"id": catalogue.bibcode, "bibcode": catalogue.bibcode, "title": catalogue.title,
            "authors": [*catalogue.authors, "others"], "year": catalogue.year, "arxiv_id": None,
            "url": f"https://ui.adsabs.harvard.edu/abs/{quote(catalogue.bibcode, safe='')}",
            "catalogue": catalogue.name}


def _service_source(service: Service) -> dict[str, Any] | None:
    if not service.bibcode:
        return None
    return {"id": service.bibcode, "bibcode": service.bibcode, "title": f"{service.title} (the service)",
            "arxiv_id": None, "url": f"https://ui.adsabs.harvard.edu/abs/{quote(service.bibcode, safe='')}"}


def build_query(app: AppContext, service: Service, request: Request, rows: int) -> tuple[str, str | None]:
    """(ADQL, a line about the cone's centre) for an ADQL request or a cone around a target."""
    from astro_cli.catalog.epoch import at_epoch
    from astro_cli.catalog.research_link import locate, radius_degrees

    if request.adql and request.target:
        raise CatalogError("Give either adql or a target for a cone search, not both.")
    if request.adql:
        return request.adql, None
    if not request.target:
        raise CatalogError("Give adql (an ADQL SELECT) or a target (a name or coordinates) with a radius.")
    table = cone_table(service, request.table, request.ra_column, request.dec_column, request.columns)
    radius = radius_degrees(request.radius)
    where = locate(app, request.target)
    epoch = next((c.epoch for c in catalogues_in([table.name]) if c.epoch is not None), None)
    at = at_epoch(where, epoch)
    named = f"{where.name} (SIMBAD: {where.simbad_id}) at " if where.name else ""
    centre = (f"Cone: {named}RA {at.ra:.6f}, Dec {at.dec:+.6f} (ICRS), radius {radius * 3600:.4g} arcsec, "
              f"table {table.name}." + (f" {at.note}" if at.note else ""))
    return cone_adql(table, at.ra, at.dec, radius, rows), centre


def taken(place: Place) -> bool:
    """Is the table's name, or its side file's, taken (by a file, a folder or a link)?"""
    from astro_cli.catalog.results import side_name
    from astro_cli.security import writer

    side = side_name(place.name)
    return writer.lexists(place) or bool(side and writer.lexists(place.sibling(side)))


def fresh(place: Place) -> Place:
    """`data/members_2.csv`, `_3`, ... : the first name beside `place` not taken."""
    stem, ext = os.path.splitext(place.name)
    for number in range(2, 10_000):
        candidate = place.sibling(f"{stem}_{number}{ext}")
        if not taken(candidate):
            return candidate
    raise CatalogError(f"data/ holds {stem}_2 to {stem}_9999 already; choose another save_as.")


def _write_somewhere(table: Table, target: Place, provenance: Provenance,
                     may_replace: Callable[[Path], bool]) -> tuple[Place, str | None]:
    """Write to `target`, or beside it when its name is taken by a file that may not be replaced
    (the researcher's own): never lose a file nobody allowed astro to replace. Returns where, and why
    elsewhere."""
    from astro_cli.security.writer import NameTaken

    wanted = target
    for _ in range(20):  # a name taken between the look and the write: the next free one
        replace = taken(target) and may_replace(target.path)
        if taken(target) and not replace:
            target = fresh(target)
            continue
        try:
            write(table, target, provenance, replace=replace)
        except NameTaken:
            continue
        return target, (None if target == wanted else wanted.path.name)
    raise CatalogError(f"Could not find a free name beside {wanted.path.name}; choose another save_as.")


def run_query(app: AppContext, service: Service, request: Request, allowed: Limits, agent: str,
              place: Callable[[str], Place], may_replace: Callable[[Path], bool]) -> Outcome:
    """Check, send, write and summarise one query; CatalogError (one sentence) for every failure.
    `place` says where a relative file may go (refused before anything is sent); `may_replace`
    whether an existing file there may be replaced (else the table goes to a fresh name beside it)."""
    from astro_cli.catalog import cache

    asked = {"adql": " ".join((request.adql or "").split()), "target": request.target, "radius": request.radius,
             "table": request.table, "columns": request.columns, "ra": request.ra_column, "dec": request.dec_column,
             "rows": request.max_rows if request.max_rows is not None else allowed.max_rows}
    key = None if request.upload else cache.request_key(service.url, asked)
    hit = cache.lookup(app, key, allowed.cache_hours) if key and not request.fresh else None
    stated, centre, uploads = OutputLimits(), None, None
    if hit is None:
        rows = row_limit(request, allowed)  # astro's own checks first: a query refused here is never sent
        text, centre = build_query(app, service, request, rows)
        checked = adql_rules.check(text, rows)
    else:  # the earlier answer's query, as it was sent
        checked = adql_rules.Checked(str(hit.meta.get("query") or ""), max(len(hit.table), 1),
                                     adql_rules.tables_of(str(hit.meta.get("query") or "")))
    reuse = hit is not None and not request.save_as  # the earlier file is the answer: nothing written
    relative = hit.relative if hit is not None and reuse else relative_target(
        request.save_as, default_stem(service.key, checked.tables))
    target = place(relative)  # refused before anything is sent when the file may not go there
    if hit is not None:
        table, limited, seconds = hit.table, bool(hit.meta.get("limited")), 0.0
        retrieved = str(hit.meta.get("time") or now_utc())
    else:
        uploads = {UPLOAD_NAME: read_upload(app, request.upload, checked.text)} if request.upload else None
        stated = output_limits(service, allowed.timeout, agent)  # asked only of a query fit to send
        checked = within_stated(checked, stated, rows, request.max_rows is not None,
                                f"{service.title} ({service.key})")
        if request.async_job:
            answer = run_async(service, checked.text, checked.top, allowed.timeout, allowed.job_timeout, agent,
                               uploads)
        else:
            answer = run_sync(service, checked.text, checked.top, allowed.timeout, agent, uploads)
        table, seconds, retrieved = answer.table, answer.seconds, now_utc()
        limited = answer.overflow or len(table) >= checked.top
        if len(table) > checked.top:
            table = table[: checked.top]
    catalogues = catalogues_in(checked.tables)
    provenance = Provenance(service.key, service.url, checked.text, retrieved, len(table), limited,
                            ", ".join(c.name for c in catalogues),
                            ", ".join(c.bibcode for c in catalogues) or (service.bibcode or ""))
    instead_of: str | None = None
    if reuse:
        written = target
    else:
        written, instead_of = _write_somewhere(table, target, provenance, may_replace)
        relative = relative[: len(relative) - len(target.name)] + written.name
        if key and hit is None:
            cache.remember(app, key, relative, provenance.meta())
    path = written.path
    if hit is not None:
        first = (f"{len(table)} rows, {len(table.colnames)} columns from {service.title} ({service.key}), answered "
                 f"from the cache: the same query was answered at {retrieved} and saved in {hit.relative}; the "
                 "service was not asked again (fresh=true, or the command's --no-cache, asks it)"
                 + ("." if reuse else f"; copied to {relative}."))
    else:
        first = (f"{len(table)} rows, {len(table.colnames)} columns from {service.title} ({service.key}) in "
                 f"{seconds:.1f} s{' (an asynchronous job, deleted after)' if request.async_job else ''}; written "
                 f"to {relative} (read it with astropy.table.Table.read('{relative}')).")
    header = [first, *([centre] if centre else []),
              *([f"Uploaded {len(uploads[UPLOAD_NAME]):,} rows of {request.upload} as {UPLOAD_TABLE}."]
                if uploads else []),
              f"Query: {checked.text if len(checked.text) <= 500 else checked.text[:500] + ' …'}"]
    if instead_of:
        header.append(f"{instead_of} already exists and astro did not write it in this session, so the table went "
                      f"to {written.name}; to replace {instead_of} instead, query again with replace=true (the "
                      "researcher is asked; the command's --replace).")
    if limited and stated.hard is not None and checked.top >= stated.hard:
        header.append(f"The service's own hard limit ({stated.hard:,} rows, stated in its /capabilities) may have "
                      "cut this result: it returns no more. Narrow the query or split it.")
    elif limited:
        header.append(f"The row limit ({checked.top:,}) may have cut this result: the service has more rows. "
                      f"Narrow the query, or pass max_rows (above {allowed.max_rows:,} the researcher is asked).")
    sources = [source_of(c) for c in catalogues]
    service_source = _service_source(service)
    if service_source and all(s["id"] != service_source["id"] for s in sources):
        sources.append(service_source)
    if sources:
        header.append("Cite: " + "; ".join(f"{s.get('catalogue') or s['title']} ({s['bibcode']})" for s in sources))
    owed = credits_for(service.key, [c.name for c in catalogues], app.settings)
    if owed:
        header.append(f"Acknowledge: {', '.join(c.name for c in owed)} (their texts: /acknowledgements, and the "
                      "end of the session's BibTeX).")
    if not len(table):
        header.append("No rows matched.")
    return Outcome(path, relative, summarize(table, header), len(table), limited, provenance, sources)
