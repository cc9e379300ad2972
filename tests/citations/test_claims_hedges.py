"""Stop 52 (issue 43): hedged credits to the literature are claims; the paper's own statements are not
(credits.py). Sentences written for this stop (development material, also benchmarks/data/claims_hedges.json)."""

from __future__ import annotations

import json

import pytest

from astro_cli.citations.claims import split_claims
from tests.paths import REPO_ROOT

HEDGES = json.loads((REPO_ROOT / "benchmarks" / "data" / "claims_hedges.json").read_text())


@pytest.mark.parametrize("sentence", HEDGES["literature"])
def test_a_hedged_credit_to_the_literature_is_a_claim(sentence):
    [claim], _ = split_claims(sentence)
    assert not claim.cited and claim.attributed


@pytest.mark.parametrize("sentence", HEDGES["own"])
def test_the_papers_own_statement_or_the_models_is_no_literature_claim(sentence):
    assert split_claims(sentence)[0] == []
