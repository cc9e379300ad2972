"""A cone's centre at the epoch of the catalogue it searches.

SIMBAD gives positions at epoch J2000; Gaia DR3 lists them at J2016.0. For a fast-moving star the
difference is larger than the cone: Barnard's Star moves 10.4"/yr, so its J2000 position lies
2.8' from where Gaia saw it. When SIMBAD gives a proper motion and the table's epoch is known,
the centre is moved there with astropy (`SkyCoord.apply_space_motion`, with SIMBAD's parallax and
radial velocity when it has them); when the epoch is unknown and the star moves fast, the summary
says so instead of staying silent.
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass

from astro_cli.catalog.research_link import Position

log = logging.getLogger(__name__)

SIMBAD_EPOCH = 2000.0
FAST_MAS_PER_YEAR = 100.0  # 1" a decade: beyond this an unknown epoch is worth a sentence


@dataclass(frozen=True)
class Centre:
    ra: float
    dec: float
    note: str  # what epoch the position is for, for the summary ("" when nothing needs saying)


def _motion(position: Position) -> float | None:
    if position.pmra is None or position.pmdec is None:
        return None
    return math.hypot(position.pmra, position.pmdec)


def at_epoch(position: Position, epoch: float | None) -> Centre:
    """The centre to search a table whose positions are at Julian `epoch` (None: not known)."""
    motion = _motion(position)
    if motion is None or position.name is None:  # typed coordinates, or SIMBAD gives no motion
        return Centre(position.ra, position.dec, "")
    if epoch is None:
        if motion < FAST_MAS_PER_YEAR:
            return Centre(position.ra, position.dec, "")
        return Centre(position.ra, position.dec,
                      f"The table's epoch is not known to astro, so this is SIMBAD's J2000 position; the object "
                      f"moves {motion / 1000:.3g}\"/yr, so the table may list it up to {motion / 100:.3g}\" away "
                      "per decade from J2000: widen the radius, or give coordinates at the table's epoch.")
    if epoch == SIMBAD_EPOCH:
        return Centre(position.ra, position.dec, f"Epoch J{epoch:.1f} (the table's and SIMBAD's).")
    ra, dec = _moved(position, epoch)
    shift = _separation_arcsec(position.ra, position.dec, ra, dec)
    return Centre(ra, dec, f"Epoch J{epoch:.1f}, the table's: SIMBAD's J2000 position moved by its proper motion "
                           f"({motion:.1f} mas/yr) by {shift:.3g}\".")


def _moved(position: Position, epoch: float) -> tuple[float, float]:
    import astropy.units as u
    from astropy.coordinates import Distance, SkyCoord
    from astropy.time import Time

    extra: dict[str, object] = {}
    if position.parallax is not None and position.parallax > 0:
        extra["distance"] = Distance(parallax=position.parallax * u.mas)
        if position.radial_velocity is not None:
            extra["radial_velocity"] = position.radial_velocity * u.km / u.s
    coord = SkyCoord(position.ra * u.deg, position.dec * u.deg, pm_ra_cosdec=position.pmra * u.mas / u.yr,
                     pm_dec=position.pmdec * u.mas / u.yr, obstime=Time(SIMBAD_EPOCH, format="jyear"), **extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        moved = coord.apply_space_motion(new_obstime=Time(epoch, format="jyear"))
    for warning in caught:  # ERFA's "distance overridden" without a parallax: expected, not for the user
        log.debug("propagating %s to J%s: %s", position.simbad_id, epoch, warning.message)
    return float(moved.ra.deg), float(moved.dec.deg)


def _separation_arcsec(ra1: float, dec1: float, ra2: float, dec2: float) -> float:
    """Haversine: exact for the milliarcseconds a slow star moves, where acos loses them."""
    a1, d1, a2, d2 = map(math.radians, (ra1, dec1, ra2, dec2))
    h = math.sin((d2 - d1) / 2) ** 2 + math.cos(d1) * math.cos(d2) * math.sin((a2 - a1) / 2) ** 2
    return math.degrees(2 * math.asin(math.sqrt(min(1.0, h)))) * 3600
