"""Stop 51 (issue 43): numbers a passage gives only in a subscript, numbers in words, uncertainties in prose.
Each rule is checked on real passages of the development half (benchmarks/data/claims_set.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astro_cli.citations.claims import split_claims
from astro_cli.citations.support import check_support

SET = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "claims_set.json"


def passage(handle: str) -> str:
    """A passage of the labelled set: astro's own chunk of the paper."""
    return str(json.loads(SET.read_text())["passages"][handle])


def status(claim_text: str, passage: str) -> str:
    [claim], _ = split_claims(claim_text)
    return check_support(claim, passage).status


@pytest.mark.parametrize(("claim", "expected"), [
    ("The brightest and quietest G and K dwarfs were selected with a CDPP over 7.5 hours of at most 1000 ppm [1607.08237:c15].", "supported"),
    ("The brightest and quietest G and K dwarfs were selected with a CDPP over 6.5 hours of at most 1000 ppm [1607.08237:c15].", "unsupported"),
    # the subscript's number belongs to its symbol: a claim about another quantity does not get it
    ("The brightest and quietest dwarfs were selected with a duty cycle over 7.5 hours [1607.08237:c15].", "unsupported"),
])
def test_a_number_only_in_a_subscript_counts_for_a_claim_naming_its_symbol(claim, expected):
    # Foreman-Mackey et al. 2016 (dfm/peerless, MIT): `$\\mathrm{CDPP}_{7.5{\\,\\mathrm{hrs}}} \\le 1000{\\,\\mathrm{ppm}}$`
    assert status(claim, passage("1607.08237:c15")) == expected
