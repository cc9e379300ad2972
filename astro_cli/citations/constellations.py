"""Constellations as designations write them: the IAU abbreviation (`Peg`) or the Latin genitive (`Pegasi`),
and SIMBAD's three-letter Greek letters (`eps Eri`). names.py compares `51 Peg b` and `51 Pegasi b`,
`α Cen` and `alpha Centauri`, `eps Eri` and `ε Eridani` alike by writing every one in a single form.
"""

from __future__ import annotations

import re

# The 88 IAU constellations: abbreviation, genitive.
_GENITIVES = """And Andromedae|Ant Antliae|Aps Apodis|Aqr Aquarii|Aql Aquilae|Ara Arae|Ari Arietis|Aur Aurigae|
Boo Bootis|Cae Caeli|Cam Camelopardalis|Cnc Cancri|CVn Canum Venaticorum|CMa Canis Majoris|CMi Canis Minoris|
Cap Capricorni|Car Carinae|Cas Cassiopeiae|Cen Centauri|Cep Cephei|Cet Ceti|Cha Chamaeleontis|Cir Circini|
Col Columbae|Com Comae Berenices|CrA Coronae Australis|CrB Coronae Borealis|Crv Corvi|Crt Crateris|Cru Crucis|
Cyg Cygni|Del Delphini|Dor Doradus|Dra Draconis|Equ Equulei|Eri Eridani|For Fornacis|Gem Geminorum|Gru Gruis|
Her Herculis|Hor Horologii|Hya Hydrae|Hyi Hydri|Ind Indi|Lac Lacertae|Leo Leonis|LMi Leonis Minoris|Lep Leporis|
Lib Librae|Lup Lupi|Lyn Lyncis|Lyr Lyrae|Men Mensae|Mic Microscopii|Mon Monocerotis|Mus Muscae|Nor Normae|
Oct Octantis|Oph Ophiuchi|Ori Orionis|Pav Pavonis|Peg Pegasi|Per Persei|Phe Phoenicis|Pic Pictoris|Psc Piscium|
PsA Piscis Austrini|Pup Puppis|Pyx Pyxidis|Ret Reticuli|Sge Sagittae|Sgr Sagittarii|Sco Scorpii|Scl Sculptoris|
Sct Scuti|Ser Serpentis|Sex Sextantis|Tau Tauri|Tel Telescopii|Tri Trianguli|TrA Trianguli Australis|
Tuc Tucanae|UMa Ursae Majoris|UMi Ursae Minoris|Vel Velorum|Vir Virginis|Vol Volantis|Vul Vulpeculae"""
ABBREVIATION = {full.lower(): abbr.lower() for abbr, full in
                (entry.strip().split(" ", 1) for entry in _GENITIVES.split("|"))}
_GENITIVE = re.compile(r"\b(?:" + "|".join(re.escape(g) for g in sorted(ABBREVIATION, key=len, reverse=True))
                       + r")\b")
# SIMBAD's Greek letters, before another word: `eps Eri`, `alf Cen` (not `del` at the end: `gam Del`).
_SIMBAD_GREEK = {"alf": "alpha", "bet": "beta", "gam": "gamma", "del": "delta", "eps": "epsilon", "zet": "zeta",
                 "tet": "theta", "iot": "iota", "kap": "kappa", "lam": "lambda", "ksi": "xi", "omi": "omicron",
                 "sig": "sigma", "ups": "upsilon", "ome": "omega"}
_GREEK_ABBREVIATION = re.compile(r"\b(" + "|".join(_SIMBAD_GREEK) + r")(?=[\s-]+[a-z]{3})")


def one_form(lowered: str) -> str:
    """A lower-case text with constellations abbreviated and SIMBAD's Greek letters spelled out."""
    if _GENITIVE.search(lowered):
        lowered = _GENITIVE.sub(lambda m: ABBREVIATION[m.group(0)], lowered)
    if _GREEK_ABBREVIATION.search(lowered):
        lowered = _GREEK_ABBREVIATION.sub(lambda m: _SIMBAD_GREEK[m.group(1)], lowered)
    return lowered
