"""Catalogue queries over the Virtual Observatory (issue 33): TAP/ADQL on configured services, cone
searches by name or position, table discovery, results written as tables with provenance.

Modules: services (the endpoints and the catalogues' citations), adql (read-only checks and row
limits), tap (pyvo's TAPService with a timeout, failures as one sentence), research_link (the one
place that uses astro's SIMBAD code), cone, discover, results (files with provenance), summary
(what the model reads), run (one query from arguments to outcome), feature (the tool).
"""
