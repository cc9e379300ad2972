"""Units as papers and answers write them, and the factor between two of them.

A unit after a number is read from a closed list (`K`, `nm`, `μm`, `GHz`, `pc`, `M_Jup`, `M_⊙`, `days`,
`km/s`, `dex`, `ppm` ...), each spelling mapped to one key. Two keys that differ but measure the same kind of thing
(two lengths, two times) are compared through astropy.units, imported only then (about 0.26 s of CPU, once
per process; the check of an answer whose units agree never imports it); units of different kinds (nm and
GHz: no spectral equivalence is assumed) are a mismatch without it.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

log = logging.getLogger(__name__)

# key: (astropy name or None when astropy has none, spellings). Longer spellings are tried first.
_UNITS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "K": ("K", ("K", "kelvin")), "mK": ("mK", ("mK",)),
    "degC": ("deg_C", ("°C", "℃", "degrees Celsius")), "degF": ("deg_F", ("°F", "℉", "degrees Fahrenheit")),
    "eV": ("eV", ("eV",)), "keV": ("keV", ("keV",)), "MeV": ("MeV", ("MeV",)), "GeV": ("GeV", ("GeV",)),
    "TeV": ("TeV", ("TeV",)),
    "Hz": ("Hz", ("Hz",)), "kHz": ("kHz", ("kHz",)), "MHz": ("MHz", ("MHz",)), "GHz": ("GHz", ("GHz",)),
    "THz": ("THz", ("THz",)), "uHz": ("uHz", ("μHz", "µHz", "uHz")), "mHz": ("mHz", ("mHz",)),
    "nHz": ("nHz", ("nHz",)),
    "nm": ("nm", ("nm",)), "um": ("um", ("μm", "µm", "um", "microns", "micron")), "mm": ("mm", ("mm",)),
    "cm": ("cm", ("cm",)), "km": ("km", ("km",)), "m": ("m", ("m",)),
    "AA": ("Angstrom", ("Å", "Angstroms", "Angstrom", "angstroms", "angstrom")),
    "mAA": ("mAngstrom", ("mÅ", "mA˚", "milliangstroms", "milli-Angstroms")),
    "pc": ("pc", ("pc", "parsecs", "parsec")), "kpc": ("kpc", ("kpc",)), "Mpc": ("Mpc", ("Mpc",)),
    "Gpc": ("Gpc", ("Gpc",)), "AU": ("AU", ("AU", "au")), "ly": ("lyr", ("ly", "light years", "light-years")),
    "s": ("s", ("seconds", "second", "sec", "s")), "ms": ("ms", ("ms",)),
    "min": ("min", ("minutes", "minute", "mins", "min")), "h": ("h", ("hours", "hour", "hrs", "hr", "h")),
    "d": ("d", ("days", "day", "d")), "yr": ("yr", ("years", "year", "yrs", "yr")),
    "kyr": ("kyr", ("kyr", "thousand years")), "Myr": ("Myr", ("Myrs", "Myr", "million years")),
    "Gyr": ("Gyr", ("Gyrs", "Gyr", "billion years")),
    "Jy": ("Jy", ("Jy",)), "mJy": ("mJy", ("mJy",)), "uJy": ("uJy", ("μJy", "µJy", "uJy")),
    "mag": (None, ("mag",)), "dex": (None, ("dex",)), "ppm": (None, ("ppm", "parts per million")),
    "ppb": (None, ("ppb", "parts per billion")),
    "sigma": (None, ("σ", "sigma")),
    "deg": ("deg", ("°", "◦", "deg", "degrees", "degree")), "arcsec": ("arcsec", ("arcsec", "″", "\"")),  # `$<1"$`: a double quote after a number
    "arcmin": ("arcmin", ("arcmin", "′")), "mas": ("mas", ("mas",)), "uas": ("uas", ("μas", "µas", "uas")), "rad": ("rad", ("rad",)),
    "km/s": ("km/s", ("km/s", "km s^-1", "km s-1", "kms^-1")), "m/s": ("m/s", ("m/s", "m s^-1", "m s-1")),
    "cm/s": ("cm/s", ("cm/s", "cm s^-1", "cm s-1")),
    "g/cm3": ("g/cm3", ("g/cm^3", "g cm^-3", "g/cc")), "mg/cm3": ("mg/cm3", ("mg/cm^3", "mg cm^-3")),
    "kg/m3": ("kg/m3", ("kg/m^3", "kg m^-3")),
    "M_sun": ("M_sun", ("M_⊙", "M⊙", "M_sun", "Msun", "M_Sun", "solar masses", "solar mass")),
    "R_sun": ("R_sun", ("R_⊙", "R⊙", "R_sun", "Rsun", "R_Sun", "solar radii", "solar radius")),
    "L_sun": ("L_sun", ("L_⊙", "L⊙", "L_sun", "Lsun", "L_Sun", "solar luminosities")),
    "M_jup": ("M_jup", ("M_Jup", "M_jup", "MJup", "M_J", "Jupiter masses", "Jupiter mass")),
    "R_jup": ("R_jup", ("R_Jup", "R_jup", "RJup", "R_J", "Jupiter radii")),
    "M_earth": ("M_earth", ("M_⊕", "M⊕", "M_Earth", "M_earth", "Earth masses")),
    "R_earth": ("R_earth", ("R_⊕", "R⊕", "R_Earth", "R_earth", "Earth radii")),
    "erg": ("erg", ("erg",)), "erg/s": ("erg/s", ("erg/s", "erg s^-1", "erg s-1")), "W": ("W", ("W",)),
    "pix": ("pix", ("pixels", "pixel", "pix", "px")), "ct": ("ct", ("counts", "count", "cts", "ct")),
}
# SI prefixes on the base units papers prefix freely (`40 Mm` of a coronal loop is `40,000 km`, `2.5 MK` is
# `2.5 × 10^6 K`, `10 ks` of exposure): every prefixed form not listed above is read too. Not `W` (`MW`, `GW` are
# the Milky Way and gravitational waves) nor the single letters that make a word of a prefix (`Ms` aside).
_PREFIXED: set[str] = set()
_PREFIXES = {"k": "k", "M": "M", "G": "G", "m": "m", "μ": "u", "µ": "u", "n": "n"}
_LISTED = frozenset(s for _, spellings in _UNITS.values() for s in spellings)
for _base in ("m", "K", "s"):
    for _prefix, _astropy in _PREFIXES.items():
        _key = _astropy + _base
        if _prefix + _base not in _LISTED and (_key not in _UNITS or _key in _PREFIXED):
            _UNITS[_key] = (_key, (*_UNITS.get(_key, (None, ()))[1], _prefix + _base))
            _PREFIXED.add(_key)
# What a unit measures: two units of different kinds are never converted (and astropy is not imported for them).
# K, °C and °F differ by an offset astropy converts only with an equivalency, which is not given: never equal.
_KINDS = {
    "temperature": ("K", "mK", "kK", "MK", "GK", "uK", "nK", "degC", "degF"), "energy": ("eV", "keV", "MeV", "GeV", "TeV", "erg"),
    "frequency": ("Hz", "kHz", "MHz", "GHz", "THz", "uHz", "mHz", "nHz"),
    "length": ("nm", "um", "mm", "cm", "km", "m", "Mm", "Gm", "AA", "mAA", "pc", "kpc", "Mpc", "Gpc", "AU", "ly", "R_sun", "R_jup",
               "R_earth"),
    "time": ("s", "ms", "ks", "Ms", "Gs", "us", "ns", "min", "h", "d", "yr", "kyr", "Myr", "Gyr"), "flux density": ("Jy", "mJy", "uJy"),
    "angle": ("deg", "arcsec", "arcmin", "mas", "uas", "rad"), "speed": ("km/s", "m/s", "cm/s"),
    "mass": ("M_sun", "M_jup", "M_earth"), "density": ("g/cm3", "mg/cm3", "kg/m3"), "power": ("erg/s", "W", "L_sun"),
}
# A unit that says what the number is, not how it is scaled: a bare number of the passage is never one (a claim's
# `at 2σ` is not supported by the `2` of `2-dimensional` beside the passage's `1σ`).
ONLY_ITSELF = frozenset({"sigma", "order"})  # `2σ`, `third-order`: matched only by a confidence level, an order
_KIND = {key: kind for kind, keys in _KINDS.items() for key in keys}
_SPELLING = {spelling: key for key, (_, spellings) in _UNITS.items() for spelling in spellings}
# A unit ends where a word ends: `5 d` is days, `5 dwarfs` is not; `M_J` is not the start of `M_Jx`.
UNIT = re.compile("(?:" + "|".join(re.escape(s) for s in sorted(_SPELLING, key=len, reverse=True)) + r")(?![\w])")


def unit_key(spelling: str) -> str | None:
    return _SPELLING.get(spelling)


def compound_unit(numerator: str, denominator: str) -> str:
    """The key of `numerator` per `denominator`: a listed one (`cm` per `s` is `cm/s`), else the two read whole
    (`km/s/Mpc`), which equals only itself."""
    return f"{numerator}/{denominator}"


def same_kind(a: str | None, b: str | None) -> bool:
    """Whether two units measure the same thing (`hr` and `d`; no unit and no unit), without astropy."""
    return a == b or (a is not None and b is not None and _KIND.get(a) is not None and _KIND.get(a) == _KIND.get(b))


@lru_cache(maxsize=256)
def factor(source: str, target: str) -> float | None:
    """How many `target` one `source` is (24.0 from d to h); None when the two cannot be compared."""
    if source == target:
        return 1.0
    a, b = _UNITS.get(source, (None, ()))[0], _UNITS.get(target, (None, ()))[0]
    if a is None or b is None or _KIND.get(source) is None or _KIND.get(source) != _KIND.get(target):
        return None
    import astropy.units as u  # only when two different units must be compared

    try:
        return float(u.Unit(a).to(u.Unit(b)))
    except (u.UnitsError, ValueError) as exc:
        log.debug("units %s and %s cannot be compared: %s", source, target, exc)
        return None
