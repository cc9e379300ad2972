"""SIMBAD through its TAP service (pyvo): one object by name, or a cone search around a position.

The service is config 'simbad_url' (a mirror, a test server), reached with pyvo's public
`TAPService` over a requests session that carries astro's User-Agent and timeout. The ADQL names
the columns directly, so a lookup is one synchronous request (astroquery's SimbadClass would
need its private attributes overridden to do the same, so astro calls pyvo itself).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import quote_plus

from astro_cli.exception_chain import exception_chain
from astro_cli.research.sources import fields
from astro_cli.research.sources.http import ServiceError, parse_reset, user_agent

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.research.source_entry import SourceEntry
    from astro_cli.research.sources.web import Web


class SimbadObject(TypedDict):
    """One object as SIMBAD describes it (an object, not a paper: its JSON is what `astro target --json` prints)."""

    main_id: str
    otype: str | None
    otype_label: str | None
    ra: float | None
    dec: float | None
    rvz_type: str | None
    redshift: float | None
    radial_velocity: float | None
    sp_type: str | None
    nbref: int | None
    parallax: float | None
    pmra: float | None  # mas/yr (pm in RA times cos Dec), for the J2000 position
    pmdec: float | None
    magnitudes: dict[str, float]
    distance_arcsec: float | None  # from the cone's centre (None for a lookup by name)
    url: str


class Cone(TypedDict):
    """A cone search: its centre and radius (deg) and the objects in it, nearest first."""

    ra: float
    dec: float
    radius_deg: float
    objects: list[SimbadObject]


class Lookup(TypedDict):
    """What `look_up` found: the object named (or None), the cone around it or the position (or None)."""

    target: str
    object: SimbadObject | None
    cone: Cone | None

SERVICE = "SIMBAD"
FILTERS = ("U", "B", "V", "R", "I", "J", "H", "K", "G")
MAX_ROWS = 1000  # far above what a lookup asks for (TOP 1, TOP limit <= 200)
OBJECT_COLUMNS = (
    "basic.main_id, basic.otype, otypedef.description AS otype_label, basic.ra, basic.dec, "
    "basic.rvz_type, basic.rvz_redshift, basic.rvz_radvel, basic.sp_type, basic.nbref, basic.plx_value, "
    "basic.pmra, basic.pmdec, "
    + ", ".join(f'allfluxes."{f}"' for f in FILTERS)
)
OBJECT_JOINS = (
    "LEFT JOIN otypedef ON basic.otype = otypedef.otype "
    "LEFT JOIN allfluxes ON basic.oid = allfluxes.oidref"
)
DEFAULT_RADIUS_ARCMIN = 2.0
MAX_RADIUS_DEG = 5.0


class NotFound(ServiceError):
    """SIMBAD answered, and it does not know the object."""


def simbad_service(web: Web) -> Any:
    """pyvo's TAPService for config 'simbad_url', with astro's User-Agent and timeout."""
    import requests
    from pyvo.dal import TAPService

    timeout = float(web.settings.typed["http.timeout"])

    class TimeoutSession(requests.Session):
        def request(self, *args: Any, **kwargs: Any) -> Any:  # pyvo sends sync queries without a timeout
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = timeout
            return super().request(*args, **kwargs)

    session = TimeoutSession()
    session.headers["User-Agent"] = user_agent(web)
    return TAPService(baseurl=web.settings.typed["simbad_url"].rstrip("/"), session=session)


def _adql_text(value: str) -> str:
    return value.replace("'", "''")


def _run(web: Web, query: str) -> Table:
    try:
        return simbad_service(web).search(query, maxrec=MAX_ROWS).to_table()
    except Exception as exc:  # noqa: BLE001 - pyvo/requests errors arrive under many names
        raise ServiceError(_describe(exc, web)) from None



def _describe(exc: BaseException, web: Web) -> str:
    import requests
    from pyvo.dal.exceptions import DALQueryError, DALRateLimitError, DALServiceError

    url = web.settings.typed["simbad_url"]
    chain = exception_chain(exc)
    if any(isinstance(e, requests.Timeout) for e in chain):
        return (f"{SERVICE} did not answer within {web.settings.typed['http.timeout']:g} s ({url}); "
                "try again later, or raise config 'http.timeout'.")
    if any(isinstance(e, requests.ConnectionError) for e in chain):
        return f"Could not reach {SERVICE} at {url}; check the network connection or config 'simbad_url'."
    for item in chain:
        if isinstance(item, DALRateLimitError):
            reset = parse_reset(str(getattr(item, "retry_after_raw", "") or ""))
            when = f"; try again after {reset:%H:%M} UTC" if reset else ""
            return f"{SERVICE} refused the request: too many requests{when}."
        if isinstance(item, DALServiceError) and (item.code or 0) >= 400:
            return f"{SERVICE} answered HTTP {item.code} for the query; try again later."
        if isinstance(item, DALQueryError):
            reason = " ".join(str(item.reason or "").split())[:200]
            return f"{SERVICE} rejected the query: {reason or 'no reason given'}."
    return f"{SERVICE} sent an answer astro could not read ({type(exc).__name__}); try again later."


# --- values ----------------------------------------------------------------------------------
def _value(row: Any, name: str) -> Any:
    """A plain Python value from a table cell; masked or empty cells become None."""
    import numpy as np

    if name not in row.colnames:
        return None
    value = row[name]
    if value is np.ma.masked or (hasattr(value, "mask") and bool(np.all(value.mask))):
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:  # NaN
        return None
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


def _number(row: Any, name: str) -> float | None:
    """A numeric cell; a cell of another type (a hostile or broken VOTable) reads as absent."""
    value = _value(row, name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _label(row: Any, name: str, limit: int = 200) -> str | None:
    """A text cell, bounded; a number where text belongs is written out."""
    return fields.optional_text(_value(row, name), limit)


def _row_to_object(row: Any) -> SimbadObject:
    main_id = _label(row, "main_id") or ""
    mags = {f: _number(row, f) for f in FILTERS}
    nbref = _number(row, "nbref")
    return {
        "main_id": main_id,
        "otype": _label(row, "otype"),
        "otype_label": _label(row, "otype_label"),
        "ra": _number(row, "ra"),
        "dec": _number(row, "dec"),
        "rvz_type": _label(row, "rvz_type"),
        "redshift": _number(row, "rvz_redshift"),
        "radial_velocity": _number(row, "rvz_radvel"),
        "sp_type": _label(row, "sp_type"),
        "nbref": int(nbref) if nbref is not None and abs(nbref) < 1e12 else None,
        "parallax": _number(row, "plx_value"),
        "pmra": _number(row, "pmra"),
        "pmdec": _number(row, "pmdec"),
        "magnitudes": {f: v for f, v in mags.items() if v is not None},
        "distance_arcsec": _number(row, "dist_arcsec"),
        "url": "https://simbad.cds.unistra.fr/simbad/sim-id?Ident=" + quote_plus(main_id),
    }


# --- queries ---------------------------------------------------------------------------------
def query_object(web: Web, name: str) -> SimbadObject:
    """The object SIMBAD knows under `name` (any of its identifiers); NotFound otherwise."""
    clean = " ".join(name.split())
    if not clean:
        raise ServiceError("Give an object name (e.g. 'M 31') or coordinates (e.g. '10.68 41.27').")
    query = (
        f"SELECT TOP 1 {OBJECT_COLUMNS} FROM basic JOIN ident ON basic.oid = ident.oidref {OBJECT_JOINS} "
        f"WHERE ident.id = '{_adql_text(clean)}'"
    )
    table = _run(web, query)
    if len(table) == 0:
        raise NotFound(
            f"SIMBAD does not know an object named '{clean}'; check the spelling, try another identifier "
            "(e.g. 'HD 209458', 'NGC 224'), or give coordinates."
        )
    return _row_to_object(table[0])


def query_region(web: Web, ra: float, dec: float, radius_deg: float, limit: int = 20) -> list[SimbadObject]:
    """Objects within `radius_deg` of (ra, dec), nearest first."""
    point = f"POINT('ICRS', {ra:.8f}, {dec:.8f})"
    query = (
        f"SELECT TOP {int(limit)} {OBJECT_COLUMNS}, "
        f"DISTANCE(POINT('ICRS', basic.ra, basic.dec), {point}) * 3600 AS dist_arcsec "
        f"FROM basic {OBJECT_JOINS} "
        f"WHERE CONTAINS(POINT('ICRS', basic.ra, basic.dec), CIRCLE('ICRS', {ra:.8f}, {dec:.8f}, {radius_deg:.8f})) = 1 "
        "ORDER BY dist_arcsec"
    )
    return [_row_to_object(row) for row in _run(web, query)]


# --- parsing what people type ----------------------------------------------------------------
_DEGREES = re.compile(r"^\s*([+-]?\d+(?:\.\d*)?)\s*[,\s]\s*([+-]?\d+(?:\.\d*)?)\s*$")
_SEXAGESIMAL = re.compile(r"^[\s\d.:hmsd°'\"+-]+$")


def parse_position(text: str) -> tuple[float, float] | None:
    """(ra, dec) in degrees when `text` is a position, None when it is a name."""
    match = _DEGREES.match(text)
    if match:
        ra, dec = float(match.group(1)), float(match.group(2))
        if 0 <= ra < 360 and -90 <= dec <= 90:
            return ra, dec
        raise ServiceError(f"'{text}' is outside the sky: RA must be in [0, 360) and Dec in [-90, 90] degrees.")
    if not _SEXAGESIMAL.match(text) or len(re.findall(r"\d+(?:\.\d+)?", text)) < 4:
        return None
    from astropy import units as u
    from astropy.coordinates import SkyCoord

    try:
        coord = SkyCoord(text, unit=(u.hourangle, u.deg), frame="icrs")
    except (ValueError, TypeError):
        raise ServiceError(
            f"'{text}' looks like coordinates but cannot be read; write e.g. '00:42:44.3 +41:16:09' "
            "or '10.6847 41.2690' (degrees)."
        ) from None
    return float(coord.ra.deg), float(coord.dec.deg)


def parse_radius(raw: str | float | None) -> float:
    """Radius in degrees from '2arcmin', '30 arcsec', '0.1 deg' or a bare number of arcminutes."""
    if raw in (None, ""):
        return DEFAULT_RADIUS_ARCMIN / 60
    from astropy import units as u
    from astropy.coordinates import Angle

    text = str(raw).strip()
    try:
        value = float(text)
        degrees = value / 60
    except ValueError:
        try:
            degrees = Angle(text).to(u.deg).value
        except (ValueError, TypeError, u.UnitsError):
            raise ServiceError(f"'{text}' is not a radius; write e.g. '2arcmin', '30arcsec' or '0.1deg'.") from None
    if not 0 < degrees <= MAX_RADIUS_DEG:
        raise ServiceError(f"The radius must be above 0 and at most {MAX_RADIUS_DEG:g} degrees.")
    return degrees


# --- text for people and the model -----------------------------------------------------------
def sexagesimal(ra: float, dec: float) -> str:
    from astropy import units as u
    from astropy.coordinates import Angle

    ra_text = Angle(ra, u.deg).to_string(unit=u.hour, sep=" ", precision=2, pad=True)
    dec_text = Angle(dec, u.deg).to_string(unit=u.deg, sep=" ", precision=1, pad=True, alwayssign=True)
    return f"{ra_text} {dec_text}"


def _velocity(obj: SimbadObject) -> str | None:
    z, v = obj.get("redshift"), obj.get("radial_velocity")
    if z is None and v is None:
        return None
    if obj.get("rvz_type") == "z" and z is not None:
        return f"redshift z = {z:.6g}" + (f" (cz = {v:.6g} km/s)" if v is not None else "")
    if v is not None:
        return f"radial velocity {v:.6g} km/s" + (f" (z = {z:.6g})" if z is not None else "")
    return f"redshift z = {z:.6g}"


def describe_object(obj: SimbadObject) -> list[str]:
    """The facts of one object, one per line (the tool and `astro target` print the same)."""
    lines = [f"main identifier: {obj['main_id']}"]
    if obj.get("otype"):
        label = f" ({obj['otype_label']})" if obj.get("otype_label") else ""
        lines.append(f"type: {obj['otype']}{label}")
    ra, dec = obj.get("ra"), obj.get("dec")
    if ra is not None and dec is not None:
        lines.append(f"ICRS coordinates: RA {ra:.6f} deg, Dec {dec:+.6f} deg ({sexagesimal(ra, dec)})")
    if obj.get("magnitudes"):
        lines.append("magnitudes: " + ", ".join(f"{f} {v:.2f}" for f, v in obj["magnitudes"].items()))
    velocity = _velocity(obj)
    if velocity:
        lines.append(velocity)
    if obj.get("sp_type"):
        lines.append(f"spectral type: {obj['sp_type']}")
    if obj.get("parallax") is not None:
        lines.append(f"parallax: {obj['parallax']:.4g} mas")
    if obj.get("nbref") is not None:
        lines.append(f"references in SIMBAD: {obj['nbref']}")
    lines.append(f"SIMBAD page: {obj['url']}")
    return lines


def describe_cone(objects: list[SimbadObject], ra: float, dec: float, radius_deg: float) -> list[str]:
    head = (f"{len(objects)} objects within {radius_deg * 60:.3g} arcmin of RA {ra:.6f}, Dec {dec:+.6f} "
            "(ICRS), nearest first:")
    if not objects:
        return [f"SIMBAD lists no object within {radius_deg * 60:.3g} arcmin of RA {ra:.6f}, Dec {dec:+.6f}."]
    lines = [head]
    for number, obj in enumerate(objects, start=1):
        parts = [obj["main_id"], obj.get("otype") or "?"]
        if obj.get("distance_arcsec") is not None:
            parts.append(f'{obj["distance_arcsec"]:.1f}" away')
        if obj.get("ra") is not None:
            parts.append(f"RA {obj['ra']:.5f} Dec {obj['dec']:+.5f}")
        mags = obj.get("magnitudes") or {}
        if "V" in mags:
            parts.append(f"V {mags['V']:.2f}")
        if obj.get("nbref") is not None:
            parts.append(f"{obj['nbref']} refs")
        lines.append(f"{number}. " + " | ".join(parts))
    return lines


def source_of(obj: SimbadObject) -> SourceEntry:
    """The object as a listed source (/sources shows it; the ledger knows it by its SIMBAD id)."""
    from astro_cli.research.records import PaperRef
    from astro_cli.research.source_entry import SourceEntry

    return SourceEntry(PaperRef(f"SIMBAD:{obj['main_id']}", f"SIMBAD entry for {obj['main_id']}", url=obj["url"]))



def look_up(web: Web, target: str, radius: str | float | None = None, limit: int = 20) -> Lookup:
    """An object by name, a cone around coordinates, or both around a named object."""
    text = " ".join(str(target or "").split())
    if not text:
        raise ServiceError("Give an object name (e.g. 'M 31') or coordinates (e.g. '10.6847 41.2690').")
    if not 1 <= limit <= 200:
        raise ServiceError("limit must be between 1 and 200.")
    result: Lookup = {"target": text, "object": None, "cone": None}
    position = parse_position(text)
    if position is None:
        obj = result["object"] = query_object(web, text)
        if radius in (None, "") or obj["ra"] is None or obj["dec"] is None:
            return result
        position = (obj["ra"], obj["dec"])
    radius_deg = parse_radius(radius)
    objects = query_region(web, position[0], position[1], radius_deg, limit)
    result["cone"] = {"ra": position[0], "dec": position[1], "radius_deg": radius_deg, "objects": objects}
    return result


def describe_lookup(result: Lookup) -> tuple[list[str], list[SourceEntry]]:
    """(lines, sources) for what look_up found."""
    lines: list[str] = []
    sources: list[SourceEntry] = []
    obj = result.get("object")
    if obj is not None:
        lines += [f"SIMBAD: {result['target']}", *describe_object(obj)]
        sources.append(source_of(obj))
    cone = result.get("cone")
    if cone is not None:
        if lines:
            lines.append("")
        lines += describe_cone(cone["objects"], cone["ra"], cone["dec"], cone["radius_deg"])
        seen = {s.ref.id for s in sources}
        sources += [source_of(o) for o in cone["objects"] if source_of(o).ref.id not in seen]
    return lines, sources
