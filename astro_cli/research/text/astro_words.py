"""Words of astronomy that the general English list (pyspellchecker) lacks, so that a line-end
hyphen inside one is taken out (`super-massive` -> `supermassive`) by the same rule as for any
English word: the joined form is a word. Only words written closed in the literature belong here;
a compound astronomers write with a hyphen (`semi-major`, `non-zero`) does not, and a paper that
writes its own spelling elsewhere decides first (hyphens.py)."""

from __future__ import annotations

_WORDS = """
asteroseismic asteroseismology astrometric astroseismology blazar blazars blueshift blueshifted
blueshifts chromospheric circumbinary circumgalactic circumplanetary circumstellar eigenfrequencies
eigenfrequency eigenfunctions eigenmode eigenmodes exomoon exomoons exoplanet exoplanetary exoplanets
intracloud intracluster lightcurve lightcurves magnetar magnetars magnetohydrodynamic
magnetohydrodynamical magnetohydrodynamics metallicities metallicity microlensing microquasar
microquasars multiwavelength nonthermal nucleosynthesis overdense overdensities overdensity
photodissociation photoevaporation photoevaporative photoionisation photoionised photoionization
photoionized protocluster protoclusters protoplanet protoplanetary protoplanets protostar protostars
protostellar redshifted spectrophotometric spectropolarimetric spectropolarimetry starburst
starbursts starspot starspots subarcsecond subcluster subclusters subdwarf subdwarfs subgiant
subgiants subhalo subhaloes subhalos submillimeter submillimetre subpixel subpixels subsamples
substellar superflare superflares superluminal supermassive supersolar underdense underdensities
underdensity
"""
ASTRONOMY_WORDS = frozenset(_WORDS.split())
