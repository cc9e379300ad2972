"""Journal names as NASA ADS writes them in BibTeX: the AASTeX macro (`\\apj`, `\\mnras`, `\\aap`...).

ADS picks the macro by the paper's bibstem (ApJ, MNRAS, A&A...). A record from ADS carries its
bibstem; arXiv gives only the author's free text (`ActaAstron.`, `Astrophys. J.`, `Mon. Not. Roy.
Astron. Soc.`, `A&A`), so that text is normalised (case, dots and spaces dropped) and looked up
among the names the field writes for each journal. A name that is not known is kept as written:
it is never replaced by a guess.

The macro list is ADS's own (adsabs/export_service config.py, EXPORT_SERVICE_AASTEX_JOURNAL_MACRO),
the journals AASTeX and the MNRAS and A&A classes define.
"""

from __future__ import annotations

import re

AASTEX_MACROS: dict[str, str] = {
    "AJ": r"\aj", "ApJ": r"\apj", "AcA": r"\actaa", "ARA&A": r"\araa", "ApJL": r"\apjl", "ApJS": r"\apjs",
    "ApOpt": r"\ao", "Ap&SS": r"\apss", "A&A": r"\aap", "A&ARv": r"\aapr", "A&AS": r"\aaps", "AZh": r"\azh",
    "BAAS": r"\baas", "ChA&A": r"\caa", "ChJAA": r"\cjaa", "Icar": r"\icarus", "JCAP": r"\jcap",
    "JRASC": r"\jrasc", "MmRAS": r"\memras", "MNRAS": r"\mnras", "NewA": r"\na", "NewAR": r"\nar",
    "PhRvA": r"\pra", "PhRvB": r"\prb", "PhRvC": r"\prc", "PhRvD": r"\prd", "PhRvE": r"\pre", "PhRvL": r"\prl",
    "PASA": r"\pasa", "PASP": r"\pasp", "PASJ": r"\pasj", "RMxAA": r"\rmxaa", "QJRAS": r"\qjras",
    "S&T": r"\skytel", "SoPh": r"\solphys", "SvA": r"\sovast", "SSRv": r"\ssr", "ZA": r"\zap", "Natur": r"\nat",
    "IAUC": r"\iaucirc", "ApL": r"\aplett", "ASPRv": r"\apspr", "BAN": r"\bain", "FCPh": r"\fcp",
    "GeCoA": r"\gca", "GeoRL": r"\grl", "JChPh": r"\jcp", "JGR": r"\jgr", "JQSRT": r"\jqsrt", "MmSAI": r"\memsai",
    "NuPhA": r"\nphysa", "PhR": r"\physrep", "PhyS": r"\physscr", "P&SS": r"\planss", "SPIE": r"\procspie",
    "JAVSO": r"\jaavso", "PSJ": r"\psj", "M&PS": r"\maps", "AAS": r"\aas", "DPS": r"\dps",
}

# What authors type in arXiv's journal_ref for each bibstem (compared after `_squash`), and the
# full name ADS writes for journals without a macro.
NAMES: dict[str, tuple[str, ...]] = {
    "AJ": ("AJ", "Astron. J.", "Astronomical Journal", "The Astronomical Journal"),
    "ApJ": ("ApJ", "Astrophys. J.", "Astrophysical Journal", "The Astrophysical Journal", "Ap. J."),
    "ApJL": ("ApJL", "ApJ Lett.", "ApJ Letters", "Astrophys. J. Lett.", "Astrophys. J. Letters",
             "Astrophysical Journal Letters", "The Astrophysical Journal Letters", "ApJLett"),
    "ApJS": ("ApJS", "ApJ Suppl.", "ApJ Supp.", "Astrophys. J. Suppl.", "Astrophys. J. Supp.",
             "Astrophys. J. Suppl. Ser.", "Astrophysical Journal Supplement", "The Astrophysical Journal Supplement",
             "Astrophysical Journal Supplement Series", "The Astrophysical Journal Supplement Series"),
    "AcA": ("AcA", "Acta Astron.", "Acta Astronomica", "ActaA"),
    "ARA&A": ("ARA&A", "Ann. Rev. Astron. Astrophys.", "Annu. Rev. Astron. Astrophys.",
              "Annual Review of Astronomy and Astrophysics"),
    "Ap&SS": ("Ap&SS", "Astrophys. Space Sci.", "Astrophysics and Space Science"),
    "A&A": ("A&A", "Astron. Astrophys.", "Astronomy and Astrophysics", "Astronomy & Astrophysics", "AA"),
    "A&ARv": ("A&ARv", "Astron. Astrophys. Rev.", "Astronomy and Astrophysics Review"),
    "A&AS": ("A&AS", "Astron. Astrophys. Suppl.", "Astron. Astrophys. Suppl. Ser."),
    "BAAS": ("BAAS", "Bull. Am. Astron. Soc.", "Bulletin of the American Astronomical Society"),
    "Icar": ("Icarus",),
    "JCAP": ("JCAP", "J. Cosmol. Astropart. Phys.", "J. Cosmology Astropart. Phys.",
             "Journal of Cosmology and Astroparticle Physics"),
    "MNRAS": ("MNRAS", "Mon. Not. R. Astron. Soc.", "Mon. Not. Roy. Astron. Soc.", "Mon. Not. Royal Astron. Soc.",
              "Monthly Notices of the Royal Astronomical Society", "MNRAS Lett.", "MNRAS Letters",
              "Mon. Not. R. Astron. Soc. Lett."),
    "NewA": ("NewA", "New Astron.", "New Astronomy"),
    "NewAR": ("NewAR", "New Astron. Rev.", "New Astronomy Reviews"),
    "PhRvA": ("Phys. Rev. A", "Physical Review A", "PRA"),
    "PhRvB": ("Phys. Rev. B", "Physical Review B", "PRB"),
    "PhRvC": ("Phys. Rev. C", "Physical Review C", "PRC"),
    "PhRvD": ("Phys. Rev. D", "Physical Review D", "PRD"),
    "PhRvE": ("Phys. Rev. E", "Physical Review E", "PRE"),
    "PhRvL": ("Phys. Rev. Lett.", "Physical Review Letters", "PRL"),
    "PASA": ("PASA", "Publ. Astron. Soc. Aust.", "Publ. Astron. Soc. Austral.",
             "Publications of the Astronomical Society of Australia"),
    "PASP": ("PASP", "Publ. Astron. Soc. Pac.", "Publ. Astron. Soc. Pacific",
             "Publications of the Astronomical Society of the Pacific"),
    "PASJ": ("PASJ", "Publ. Astron. Soc. Jpn.", "Publ. Astron. Soc. Japan",
             "Publications of the Astronomical Society of Japan"),
    "RMxAA": ("RMxAA", "Rev. Mex. Astron. Astrofis.", "Revista Mexicana de Astronomia y Astrofisica"),
    "SoPh": ("SoPh", "Sol. Phys.", "Solar Physics", "Solar Phys."),
    "SSRv": ("SSRv", "Space Sci. Rev.", "Space Science Reviews"),
    "Natur": ("Nature",),
    "GeCoA": ("Geochim. Cosmochim. Acta", "Geochimica et Cosmochimica Acta"),
    "GeoRL": ("Geophys. Res. Lett.", "Geophysical Research Letters", "GRL"),
    "JQSRT": ("JQSRT", "J. Quant. Spectrosc. Radiat. Transf.", "J. Quant. Spectrosc. Radiat. Transfer"),
    "MmSAI": ("MmSAI", "Mem. Soc. Astron. Ital.", "Mem. Soc. Astron. Italiana"),
    "PhR": ("Phys. Rep.", "Physics Reports", "Phys. Rept."),
    "P&SS": ("P&SS", "Planet. Space Sci.", "Planetary and Space Science"),
    "SPIE": ("Proc. SPIE", "SPIE", "Proceedings of SPIE", "Proc. of SPIE"),
    "PSJ": ("PSJ", "Planet. Sci. J.", "The Planetary Science Journal", "Planetary Science Journal"),
    "M&PS": ("M&PS", "Meteorit. Planet. Sci.", "Meteoritics and Planetary Science"),
    "JAVSO": ("JAVSO", "J. Am. Assoc. Var. Star Obs."),
    # Journals without a macro: ADS writes their full name.
    "PhRvX": ("Phys. Rev. X", "Physical Review X", "PRX"),
    "Sci": ("Science",),
    "NatAs": ("Nat. Astron.", "Nature Astronomy"),
    "CQGra": ("Class. Quantum Grav.", "Class. Quant. Grav.", "Classical and Quantum Gravity", "CQG"),
    "RNAAS": ("RNAAS", "Res. Notes AAS", "Research Notes of the AAS", "Research Notes of the American "
              "Astronomical Society"),
    "AN": ("Astron. Nachr.", "Astronomische Nachrichten", "AN"),
    "Galax": ("Galaxies",),
    "OJAp": ("OJAp", "Open J. Astrophys.", "The Open Journal of Astrophysics"),
    "JOSS": ("JOSS", "J. Open Source Softw.", "Journal of Open Source Software"),
    "LRR": ("Living Rev. Relativ.", "Living Rev. Rel.", "Living Reviews in Relativity"),
    "EPJC": ("Eur. Phys. J. C", "European Physical Journal C"),
}
FULL_NAMES: dict[str, str] = {
    "PhRvX": "Physical Review X", "Sci": "Science", "NatAs": "Nature Astronomy",
    "CQGra": "Classical and Quantum Gravity", "RNAAS": "Research Notes of the American Astronomical Society",
    "AN": "Astronomische Nachrichten", "Galax": "Galaxies", "OJAp": "The Open Journal of Astrophysics",
    "JOSS": "The Journal of Open Source Software", "LRR": "Living Reviews in Relativity",
    "EPJC": "European Physical Journal C",
}


def _squash(name: str) -> str:
    """'Mon. Not. Roy. Astron. Soc.' -> 'monnotroyastronsoc': case, dots, spaces and a leading 'the' dropped."""
    text = re.sub(r"^the\s+", "", name.strip().lower())
    return re.sub(r"[^a-z&]", "", text.replace(" and ", "&"))


_BY_NAME: dict[str, str] = {_squash(name): stem for stem, names in NAMES.items() for name in names}


def bibstem_of(journal: str | None, page: str | None = None) -> str | None:
    """The ADS bibstem a journal name stands for; None when the name is not known.

    An ApJ article whose page is a letter (L12) is ApJL, as ADS files it.
    """
    stem = _BY_NAME.get(_squash(journal or ""))
    if stem == "ApJ" and str(page or "").upper().startswith("L"):
        return "ApJL"
    return stem


def journal_field(bibstem: str | None, name: str | None) -> str | None:
    """What ADS writes as `journal`: the macro, else the journal's full name, else the name as given."""
    if bibstem and bibstem in AASTEX_MACROS:
        return AASTEX_MACROS[bibstem]
    if bibstem and bibstem in FULL_NAMES and (not name or _BY_NAME.get(_squash(name)) == bibstem):
        return FULL_NAMES[bibstem]
    return name or None
