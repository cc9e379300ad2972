"""Real-shaped documents a TAP service states about itself, for tests/adql_server.py.

Provenance: both are pyvo's own test data (pyvo 1.10, BSD licence), read from the installed package
rather than copied: `pyvo/dal/tests/data/tap/capabilities.xml` is the VOSI capabilities of GAVO's
data centre TAP service (http://dc.zah.uni-heidelberg.de/tap, DaCHS; TAPRegExt outputLimit default
20000 rows, hard 10000000), and `examples.htm` is HEASARC's DALI examples page (XHTML with RDFa,
five examples). A test changes only the numbers of the output limit.
"""

from __future__ import annotations

from pathlib import Path


def _data(name: str) -> bytes:
    import pyvo

    return (Path(pyvo.__file__).parent / "dal" / "tests" / "data" / "tap" / name).read_bytes()


def capabilities(default: int = 20000, hard: int = 10000000) -> bytes:
    """GAVO's capabilities with its output limit set to `default` and `hard` rows."""
    text = _data("capabilities.xml")
    stated = b'<default unit="row">20000</default>\n      <hard unit="row">10000000</hard>'
    assert stated in text, "pyvo's capabilities.xml changed: update tests/tap_documents.py"
    return text.replace(stated, f'<default unit="row">{default}</default>\n      <hard unit="row">{hard}</hard>'
                        .encode())


def examples() -> bytes:
    """HEASARC's DALI examples page, as pyvo's tests keep it."""
    return _data("examples.htm")
