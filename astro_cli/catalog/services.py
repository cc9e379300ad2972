"""The TAP services astro may send ADQL to, and the catalogues whose use a result should cite.

The built-in list is short and known; config `catalog.services` adds services or replaces a
built-in's fields by name (a mirror, a test server on 127.0.0.1). ADQL goes only to a service
named here, or to a TAP URL the researcher allowed once (allowed.py): the model never widens that.
Each catalogue names the ADS bibcode its team asks users to cite, so a result's citation joins
the session's sources and BibTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from astro_cli.catalog.errors import CatalogError

if TYPE_CHECKING:
    from astro_cli.config import Settings


@dataclass(frozen=True)
class ConeTable:
    """A table a cone search uses by default: its position columns and the columns worth showing."""

    name: str
    ra: str = "ra"
    dec: str = "dec"
    columns: str = "*"


@dataclass(frozen=True)
class Service:
    key: str
    title: str
    url: str
    bibcode: str | None = None  # the service's own reference (VizieR, SIMBAD, NED), when it asks for one
    cone: ConeTable | None = None
    credit: str = ""  # the key of the acknowledgement it asks for (credits.ACKNOWLEDGEMENTS)
    datalink: str | None = None  # its DataLink links endpoint (datalink.py), when astro knows one


@dataclass(frozen=True)
class Catalogue:
    """A catalogue recognised in a query's tables, with the reference its team asks to cite."""

    pattern: str  # a regular expression matched against the table names of the query
    name: str
    title: str
    bibcode: str
    authors: tuple[str, ...] = field(default=())  # the first authors only: the entry ends "and others"
    year: int | None = None
    credit: str = ""  # the key of the acknowledgement its team asks for (credits.ACKNOWLEDGEMENTS)
    epoch: float | None = None  # the Julian epoch of its positions, when one epoch holds for all rows


GAIA_COLUMNS = "source_id, ra, dec, parallax, parallax_error, pmra, pmdec, phot_g_mean_mag, bp_rp, radial_velocity"
TWOMASS_COLUMNS = "designation, ra, dec, j_m, j_cmsig, h_m, h_cmsig, k_m, k_cmsig, ph_qual"

BUILTIN: dict[str, Service] = {s.key: s for s in (
    Service("gaia", "ESA Gaia archive", "https://gea.esac.esa.int/tap-server/tap",
            cone=ConeTable("gaiadr3.gaia_source", columns=GAIA_COLUMNS),
            datalink="https://gea.esac.esa.int/data-server/datalink/links"),
    Service("vizier", "CDS VizieR", "https://tapvizier.cds.unistra.fr/TAPVizieR/tap", "2000A&AS..143...23O",
            cone=ConeTable('"I/355/gaiadr3"', "RA_ICRS", "DE_ICRS"), credit="vizier"),
    Service("simbad", "CDS SIMBAD", "https://simbad.cds.unistra.fr/simbad/sim-tap", "2000A&AS..143....9W",
            cone=ConeTable("basic", columns="main_id, otype, ra, dec, sp_type, plx_value, rvz_redshift"),
            credit="simbad"),
    Service("irsa", "NASA/IPAC Infrared Science Archive", "https://irsa.ipac.caltech.edu/TAP",
            cone=ConeTable("fp_psc", columns=TWOMASS_COLUMNS), credit="irsa"),
    Service("ned", "NASA/IPAC Extragalactic Database", "https://ned.ipac.caltech.edu/tap", "1991ASSL..171...89H",
            cone=ConeTable("NEDTAP.objdir", columns="prefname, pretype, ra, dec, z"), credit="ned"),
    Service("mast", "MAST: TESS Input Catalog", "https://mast.stsci.edu/vo-tap/api/v0.1/tic",
            cone=ConeTable("dbo.CatalogRecord", columns="ID, ra, dec, Tmag, Vmag, Teff, plx, d")),
)}

GAIA_TABLES = r"gaia(?:dr[23]|edr3)\.|\bI/3(?:55|50|45)\b"

CATALOGUES: tuple[Catalogue, ...] = (
    Catalogue(r"gaiadr3\.|\bI/355\b", "Gaia DR3", "Gaia Data Release 3: Summary of the content and survey properties",
              "2023A&A...674A...1G", ("Gaia Collaboration", "Vallenari, A."), 2023, "gaia", 2016.0),
    Catalogue(r"gaiaedr3\.|\bI/350\b", "Gaia EDR3", "Gaia Early Data Release 3: Summary of the contents and survey "
              "properties", "2021A&A...649A...1G", ("Gaia Collaboration", "Brown, A. G. A."), 2021, "gaia", 2016.0),
    Catalogue(r"gaiadr2\.|\bI/345\b", "Gaia DR2", "Gaia Data Release 2: Summary of the contents and survey "
              "properties", "2018A&A...616A...1G", ("Gaia Collaboration", "Brown, A. G. A."), 2018, "gaia", 2015.5),
    # Every Gaia release asks for the mission paper beside its own.
    Catalogue(GAIA_TABLES, "Gaia mission", "The Gaia mission", "2016A&A...595A...1G",
              ("Gaia Collaboration", "Prusti, T."), 2016, "gaia"),
    Catalogue(r"\bfp_psc\b|\bfp_xsc\b|\bII/246\b|twomass|tmass", "2MASS", "The Two Micron All Sky Survey (2MASS)",
              "2006AJ....131.1163S", ("Skrutskie, M. F.",), 2006, "2mass"),
    Catalogue(r"allwise|\bII/328\b|\bwise_", "WISE", "The Wide-field Infrared Survey Explorer (WISE): Mission "
              "Description and Initial On-orbit Performance", "2010AJ....140.1868W", ("Wright, E. L.",), 2010),
    Catalogue(r"dbo\.catalogrecord|\bIV/39\b", "TIC", "The Revised TESS Input Catalog and Candidate Target List",
              "2019AJ....158..138S", ("Stassun, K. G.",), 2019),
)

_FIELDS = ("title", "url", "bibcode", "datalink_url")
_CONE_FIELDS = ("cone_table", "ra_column", "dec_column", "cone_columns")


def _configured(key: str, entry: Any, base: Service | None) -> Service:
    if not isinstance(entry, dict):
        raise CatalogError(f"config 'catalog.services.{key}' must be a mapping with at least 'url'.")
    unknown = sorted(set(entry) - set(_FIELDS) - set(_CONE_FIELDS))
    if unknown:
        raise CatalogError(f"config 'catalog.services.{key}' has unknown field {unknown[0]!r} "
                           f"(known: {', '.join(_FIELDS + _CONE_FIELDS)}).")
    url = str(entry.get("url") or (base.url if base else "")).strip()
    if not re.match(r"^https?://[^\s/]+", url):
        raise CatalogError(f"config 'catalog.services.{key}' needs a url starting with http:// or https://.")
    service = base or Service(key, str(entry.get("title") or key), url)
    cone = service.cone
    if entry.get("cone_table"):
        cone = ConeTable(str(entry["cone_table"]), str(entry.get("ra_column") or "ra"),
                         str(entry.get("dec_column") or "dec"), str(entry.get("cone_columns") or "*"))
    datalink = str(entry.get("datalink_url") or service.datalink or "").strip() or None
    if datalink and not re.match(r"^https?://[^\s/]+", datalink):
        raise CatalogError(f"config 'catalog.services.{key}.datalink_url' should start with http:// or https://.")
    return replace(service, url=url.rstrip("/"), title=str(entry.get("title") or service.title),
                   bibcode=entry.get("bibcode", service.bibcode) or None, cone=cone, datalink=datalink)


def services(settings: Settings) -> dict[str, Service]:
    """The built-in services with config `catalog.services` laid over them, by name."""
    found = dict(BUILTIN)
    for key, entry in (settings.typed["catalog.services"] or {}).items():
        name = str(key).strip().lower()
        found[name] = _configured(name, entry, BUILTIN.get(name))
    return found


def service_named(settings: Settings, name: str) -> Service:
    """The configured service `name`, or an allowed TAP URL (allowed.py); a sentence listing the known
    ones otherwise."""
    from astro_cli.catalog.allowed import is_url

    if is_url(name):
        return url_service(settings, name)
    known = services(settings)
    key = " ".join(str(name or "").split()).lower()
    if key in known:
        return known[key]
    raise CatalogError(f"'{name}' is not a configured catalogue service; use one of {', '.join(sorted(known))} "
                       "(add others under config 'catalog.services', or give a TAP URL: https://...).")


def url_service(settings: Settings, url: str) -> Service:
    """The Service for an allowed URL; a sentence saying how to allow it otherwise."""
    from astro_cli.catalog.allowed import allowed_urls, normalised

    wanted = normalised(url)
    if wanted not in allowed_urls(settings):
        raise CatalogError(f"{wanted} is not an allowed TAP service yet; allow it once with "
                           f"`astro catalog allow {wanted}` (or --allow-url on `astro catalog query`), or approve "
                           "the query when astro asks at the REPL.")
    host = urlsplit(wanted).hostname or "tap"
    key = re.sub(r"[^a-z0-9]+", "_", host.lower()).strip("_") or "tap"
    return Service(key, f"the TAP service at {wanted}", wanted)


def catalogues_in(table_names: list[str]) -> list[Catalogue]:
    """The known catalogues among a query's tables, each once, in the order of CATALOGUES."""
    text = " ".join(table_names)
    return [c for c in CATALOGUES if re.search(c.pattern, text, re.IGNORECASE)]
