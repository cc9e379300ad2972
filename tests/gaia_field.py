"""Gaia-like fields with sources at known places, for the executing TAP service's tests and benchmark
(tests/adql_server.py, benchmarks/bench_catalog_adql.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def offset(ra: float, dec: float, arcsec: float, angle_deg: float) -> tuple[float, float]:
    """The point `arcsec` from (ra, dec) at position angle `angle_deg` (astropy's directional_offset_by)."""
    import astropy.units as u
    from astropy.coordinates import SkyCoord

    moved = SkyCoord(ra * u.deg, dec * u.deg).directional_offset_by(angle_deg * u.deg, arcsec * u.arcsec)
    return float(moved.ra.deg), float(moved.dec.deg)


def gaia_table(points: list[tuple[float, float]], first_id: int = 1000) -> object:
    """A Gaia-like table (bench_catalog.gaia_like's columns and masks) with its sources at `points`."""
    from benchmarks.bench_catalog import gaia_like

    table = gaia_like(len(points))
    table["source_id"] = np.arange(first_id, first_id + len(points), dtype=np.int64)
    table["designation"] = [f"Gaia DR3 {i}" for i in table["source_id"]]
    table["ra"] = [p[0] for p in points]
    table["dec"] = [p[1] for p in points]
    return table


def crossmatch_field(workspace: Path, targets: int = 300, field: int = 0) -> dict[str, Any]:
    """300 targets in data/targets.csv; beside each a Gaia-like source 0.4" away (the match) and one 2" away
    (outside a 1" match); every third target has no 0.4" source; `field` more sources anywhere on the sky (a
    larger table to join). Returns the sources' positions ("points") and target name -> matching source_id
    ("expected")."""
    from astropy.table import Table

    rng = np.random.default_rng(47)
    names = [f"T{i:03d}" for i in range(targets)]
    ra, dec = rng.uniform(0, 360, targets), rng.uniform(-80, 80, targets)
    points, expected = [], {}
    for i, name in enumerate(names):
        if i % 3:
            expected[name] = 1000 + len(points)
            points.append(offset(ra[i], dec[i], 0.4, rng.uniform(0, 360)))
        points.append(offset(ra[i], dec[i], 2.0, rng.uniform(0, 360)))
    points += list(zip(rng.uniform(0, 360, field).tolist(), np.degrees(np.arcsin(rng.uniform(-1, 1, field))).tolist()))
    (workspace / "data").mkdir(exist_ok=True)
    Table({"name": names, "ra": ra, "dec": dec}).write(workspace / "data" / "targets.csv", format="ascii.csv")
    return {"points": points, "expected": expected}
