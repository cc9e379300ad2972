"""The one place the catalogue code uses astro's research services: SIMBAD resolves names, and
positions, radii and the User-Agent are read as query_target reads them.

Keeping these imports here means a move of research/ changes this module alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from astro_cli.catalog.errors import CatalogError

if TYPE_CHECKING:
    from astro_cli.app import AppContext


@dataclass(frozen=True)
class Position:
    """Where a cone is centred, and what the researcher called it (a name SIMBAD resolved, or None)."""

    ra: float
    dec: float
    name: str | None = None
    simbad_id: str | None = None
    # SIMBAD's motion of the object, for moving its J2000 position to a catalogue's epoch (epoch.py).
    pmra: float | None = None  # mas/yr, times cos Dec
    pmdec: float | None = None  # mas/yr
    parallax: float | None = None  # mas
    radial_velocity: float | None = None  # km/s


def agent(app: AppContext) -> str:
    from astro_cli.research.sources.http import user_agent
    from astro_cli.research.sources.web import Web

    return user_agent(Web.of(app))


def radius_degrees(raw: str | float | None) -> float:
    """'30arcsec', '2 arcmin', '0.1deg' or a bare number of arcminutes, in degrees."""
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.simbad import parse_radius

    try:
        return parse_radius(raw)
    except ServiceError as exc:
        raise CatalogError(str(exc)) from None


def locate(app: AppContext, target: str) -> Position:
    """Coordinates as given, or the position SIMBAD gives for a name (one sentence when it knows none)."""
    from astro_cli.research.sources.http import ServiceError
    from astro_cli.research.sources.simbad import parse_position, query_object
    from astro_cli.research.sources.web import Web

    text = " ".join(str(target or "").split())
    if not text:
        raise CatalogError("Give a target: an object name (e.g. 'M 31') or coordinates (e.g. '10.6847 41.2690').")
    try:
        found = parse_position(text)
        if found is not None:
            return Position(found[0], found[1])
        obj = query_object(Web.of(app), text)
    except ServiceError as exc:
        raise CatalogError(str(exc)) from None
    ra, dec = obj.get("ra"), obj.get("dec")
    if ra is None or dec is None:
        raise CatalogError(f"SIMBAD knows '{text}' as {obj.get('main_id')} but gives it no position; "
                           "give coordinates instead.")
    def number(key: str) -> float | None:
        value = obj.get(key)
        return float(value) if isinstance(value, (int, float)) else None

    return Position(float(ra), float(dec), text, str(obj.get("main_id") or text), number("pmra"),
                    number("pmdec"), number("parallax"), number("radial_velocity"))
