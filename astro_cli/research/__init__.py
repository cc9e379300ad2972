"""Research: papers (search, download, parsing, the local library), notes and SIMBAD."""
