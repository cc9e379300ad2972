"""Helpers for the library tests: an AppContext on a temporary workspace, and the fixture papers
placed under papers/ as download_paper would leave them (simulated download: the PDF or LaTeX
copied in, the row written with Library.upsert_paper)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from astro_cli.app import AppContext
from astro_cli.config import load_settings
from astro_cli.research.library.service import Library
from astro_cli.workspace import AstroHome, Workspace
from tests.paths import FIXTURES_DIR

PAPERS = FIXTURES_DIR / "papers"
COWAN_PDF = PAPERS / "arXiv_1001.0012v2_astro-ph.EP.pdf"
MURRAY_PDF = PAPERS / "arXiv_1111.2011v2_cond-mat.pdf"
EMCEE_TEX = PAPERS / "emcee_2013PASP_ms.tex"

META = {
    "1001.0012": {
        "id": "1001.0012", "arxiv_id": "1001.0012",
        "title": "The Statistics of Albedo and Heat Recirculation on Hot Exoplanets",
        "authors": ["Nicolas B. Cowan", "Eric Agol"], "year": 2010, "url": "https://arxiv.org/abs/1001.0012",
    },
    "1111.2011": {
        "id": "1111.2011", "arxiv_id": "1111.2011",
        "title": "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit",
        "authors": ["James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic"], "year": 2011,
    },
    "1202.3665": {
        "id": "1202.3665", "arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F", "doi": "10.1086/670067",
        "title": "emcee: The MCMC Hammer", "authors": ["Daniel Foreman-Mackey", "David W. Hogg"], "year": 2013,
    },
}
FILES = {"1001.0012": ("pdf_path", COWAN_PDF), "1111.2011": ("pdf_path", MURRAY_PDF),
         "1202.3665": ("source_path", EMCEE_TEX)}
# Issue 29's three other real papers; issue 30's held-out search questions on papers not tuned on ask about them.
META.update({
    "1604.08036": {
        "id": "1604.08036", "arxiv_id": "1604.08036", "year": 2016, "authors": ["Gregory A. Feiden"],
        "title": "Magnetic inhibition of convection and the fundamental properties of low-mass stars III. "
                 "A consistent 10 Myr age for the Upper Scorpius OB association",
    },
    "1703.09710": {
        "id": "1703.09710", "arxiv_id": "1703.09710", "year": 2017,
        "authors": ["Daniel Foreman-Mackey", "Eric Agol", "Sivaram Ambikasaran", "Ruth Angus"],
        "title": "Fast and scalable Gaussian process modeling with applications to astronomical time series",
    },
    "1905.09831": {
        "id": "1905.09831", "arxiv_id": "1905.09831", "year": 2019, "authors": ["Benjamin J. S. Pope"],
        "title": "The Kepler Smear Campaign: light curves for 102 very bright stars",
    },
})
FILES.update({"1604.08036": ("source_path", PAPERS / "feiden_2016AA_ms.tex"),
              "1703.09710": ("pdf_path", PAPERS / "celerite_2017AJ_ms.pdf"),
              "1905.09831": ("pdf_path", PAPERS / "smear_2019ApJS_ms.pdf")})


def make_app(root: Path, **settings: Any) -> AppContext:
    """An AppContext on root. Vectors are off unless a test names a model (or passes
    `library.embedding_model=None` for astro's default, the local model): tests written before
    issue 30 expect keyword search."""
    root.mkdir(parents=True, exist_ok=True)
    settings.setdefault("library.embedding_model", "off")
    app = AppContext(load_settings([], env={}, flags=settings), Workspace(root.resolve()), AstroHome(root / ".home"))
    return app


def add_paper(app: AppContext, paper_id: str, **extra: Any) -> dict[str, Any]:
    """Put a fixture paper under papers/ and record it, as a finished download would."""
    key, source = FILES[paper_id]
    papers = app.workspace.papers_dir
    papers.mkdir(parents=True, exist_ok=True)
    target = papers / (paper_id + source.suffix)
    shutil.copyfile(source, target)
    return Library.of(app).upsert_paper({**META[paper_id], key: str(target), **extra})


def parse_emcee(root: Path) -> tuple[AppContext, Any, list[dict[str, Any]]]:
    """A library at `root` holding emcee (1202.3665) parsed from its LaTeX: the app, the parse report and
    its chunks in order. The caller closes the app."""
    from astro_cli.research.library.parse import parse_paper

    app = make_app(root)
    add_paper(app, "1202.3665")
    report = parse_paper(Library.of(app), "1202.3665")
    rows = list(app.db.query("SELECT * FROM chunks WHERE paper_id = '1202.3665' ORDER BY ord"))
    return app, report, rows


def section_text(rows: list[dict[str, Any]], name: str) -> str:
    """The text of one section's chunks, joined."""
    return "\n".join(r["text"] for r in rows if r["section"] == name)
