"""Issue 28, done-when: every literature claim tied to a passage astro read, and checked against it.

The scripted model (through the real litellm) reads the abstract of Cowan & Agol's paper (parsed
from the real PDF in tests/fixtures/papers) with get_paper_content, then answers with four claims:
one its passage supports, one with a changed number, one with no citation, and one citing a
passage of a paper no tool showed. Each status is asserted in the JSON result, the footer, the
single nudge, and /evidence in the REPL.
"""

from __future__ import annotations

import json

import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from tests.helpers import last_json
from tests.library_support import add_paper

READ = {"tool_calls": [{"name": "get_paper_content", "arguments": {"id": "1001.0012", "section": "Abstract"}}]}
SUPPORTED = ("Across 24 transiting exoplanets, low Bond albedos are favored (AB < 0.35 at 1σ confidence) "
             "[1001.0012:p1:c1].")
CHANGED = "The 6 planets with the greatest sub-stellar equilibrium temperatures (T > 2900 K) have low ε [1001.0012:p1:c2]."
UNCITED = "The Bond albedo of every hot Jupiter is exactly 0.42, as established by JWST in 2023."
UNREAD = "Heat recirculation on WASP-12b is below 0.1 [1011.0428:p3:c9]."
ANSWER = " ".join([SUPPORTED, CHANGED, UNCITED, UNREAD])


# The runs search by keywords (ASTRO_LIBRARY_EMBEDDING_MODEL=off in the tests' environment): the papers are
# parsed the same way, so no background process embeds them with the local model while the test runs.
KEYWORDS_ONLY = {"library.embedding_model": "off"}


@pytest.fixture
def library(workspace):
    app = build_app(KEYWORDS_ONLY, workspace=workspace)
    try:
        add_paper(app, "1001.0012")
        parse_paper(Library.of(app), "1001.0012")
    finally:
        app.close()
    return workspace


def user_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], str)]


def test_each_claim_gets_its_status_in_json_with_one_nudge(cli, fake, astro_env, library):
    fake.add(READ, {"text": ANSWER}, {"text": ANSWER})  # the model insists after the nudge
    result = cli(["run", "--output-format", "json", "What do hot Jupiter albedos look like?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["answer"] == ANSWER  # the stored answer keeps the handles
    claims = obj["claims"]
    assert [(c["status"], c["handle"]) for c in claims] == [
        ("supported", "1001.0012:p1:c1"), ("unsupported", "1001.0012:p1:c2"), ("uncited", None),
        ("not_read", "1011.0428:p3:c9")]
    assert "2900 is not in the passage" in claims[1]["reason"]
    assert claims[1]["passage"].startswith("The dimensionless quantity T_d/T_0")  # the passage it cites
    assert "evidence" not in obj  # passages were read
    # One nudge, in the third request; it names the three problems and not the supported claim.
    assert len(fake.requests) == 3
    nudges = [t for body in fake.bodies() for t in user_texts(body) if t.startswith("Claim check")]
    assert len(set(nudges)) == 1
    nudge = nudges[0]
    assert nudge.startswith("Claim check: 3 claims in your answer are not backed by a passage you read:")
    assert "T > 2900 K" in nudge and "(2900 is not in the passage)" in nudge
    assert "exactly 0.42" in nudge and "has no citation" in nudge
    assert "[1011.0428:p3:c9] whose text no tool showed you" in nudge
    assert "0.35 at 1σ" not in nudge


def test_text_mode_renders_handles_for_the_reader_and_prints_the_claims_footer(cli, fake, astro_env, library):
    fake.add(READ, {"text": ANSWER}, {"text": ANSWER})
    result = cli(["run", "What do hot Jupiter albedos look like?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert "(AB < 0.35 at 1σ confidence) (Cowan & Agol 2010, p. 1)." in result.stdout
    assert "[1001.0012:p1:c1]" not in result.stdout
    assert "claims: 1 supported, 1 unsupported, 1 uncited, 1 not read" in result.stderr
    assert "✗ \"The 6 planets with the greatest" in result.stderr and "2900 is not in the passage" in result.stderr
    assert '? uncited: "The Bond albedo of every hot Jupiter is exactly 0.42' in result.stderr
    assert '? not read: "Heat recirculation on WASP-12b is below 0.1 [1011.0428:p3:c9]." [1011.0428:p3:c9]' in result.stderr


def test_an_answer_from_memory_says_no_evidence_retrieved(cli, fake, astro_env):
    """The issue's first finding: no citation at all passed with `citations: []`, no nudge, no footer.
    A claim that credits the literature ("as established by JWST") is nudged once even with no tool
    used; the model insisting ends the turn with the claim reported."""
    fake.add({"text": UNCITED}, {"text": UNCITED})
    result = cli(["run", "--output-format", "json", "Albedo?"], env=astro_env)
    obj = last_json(result.stdout)
    assert [c["status"] for c in obj["claims"]] == ["uncited"] and obj["evidence"] == "no evidence retrieved"
    assert len(fake.requests) == 2
    nudges = [t for body in fake.bodies() for t in user_texts(body) if t.startswith("Claim check")]
    assert len(nudges) == 1 and "exactly 0.42" in nudges[0] and "has no citation" in nudges[0]
    fake.add({"text": UNCITED}, {"text": UNCITED})
    text = cli(["run", "Albedo?"], env=astro_env)
    assert "claims: 1 uncited · no evidence retrieved" in text.stderr


def test_a_number_from_memory_that_credits_no_one_is_reported_not_nudged(cli, fake, astro_env):
    """A number with no literature in the session and no attribution (arithmetic, the user's data) is
    reported in the footer, and the model is not asked to cite it."""
    fake.add({"text": "Half of 0.84 is 0.42."})
    result = cli(["run", "--output-format", "json", "Half of 0.84?"], env=astro_env)
    obj = last_json(result.stdout)
    assert [c["status"] for c in obj["claims"]] == ["uncited"] and len(fake.requests) == 1


def test_a_corrected_answer_passes_without_a_second_nudge(cli, fake, astro_env, library):
    fake.add(READ, {"text": ANSWER}, {"text": SUPPORTED})
    obj = last_json(cli(["run", "--output-format", "json", "Albedos?"], env=astro_env).stdout)
    assert [c["status"] for c in obj["claims"]] == ["supported"] and len(fake.requests) == 3


def test_the_repl_shows_each_claim_beside_its_passage(repl, fake):
    add_paper(repl.app, "1001.0012")
    parse_paper(Library.of(repl.app), "1001.0012")
    fake.add(READ, {"text": ANSWER}, {"text": ANSWER})
    output = repl.type_and_run("Albedos?\r/evidence\r\x04")
    assert "(Cowan & Agol 2010, p. 1)" in output
    assert "claims: 1 supported, 1 unsupported, 1 uncited, 1 not read" in output
    assert '1. [supported] "Across 24 transiting exoplanets' in output
    assert "[1001.0012:p1:c1] \"If both the day-side" in output
    assert '2. [unsupported] "The 6 planets' in output and "— 2900 is not in the passage" in output
    assert "3. [uncited]" in output and "no citation" in output
    assert "4. [not read]" in output and "whose text was not read in this session" in output


def test_stream_json_event_carries_the_claims(cli, fake, astro_env, library):
    fake.add(READ, {"text": SUPPORTED})
    result = cli(["run", "--output-format", "astro-events", "Albedos?"], env=astro_env)
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    checked = [e for e in events if e["type"] == "citations"]
    assert [c["status"] for c in checked[0]["claims"]] == ["supported"] and checked[0]["evidence_read"] is True


READ_EMCEE = {"tool_calls": [{"name": "get_paper_content", "arguments": {"id": "1202.3665", "section": "4"}}]}
# s4:c20 is section 4's chunk on initialising walkers (c18 before captions and algorithms became chunks of
# their own, issue 42).
VAGUE = "The emcee sampler uses Hamiltonian dynamics with gradient information to propose steps [1202.3665:s4:c20]."


@pytest.fixture
def emcee(workspace):
    app = build_app(KEYWORDS_ONLY, workspace=workspace)
    try:
        add_paper(app, "1202.3665")
        parse_paper(Library.of(app), "1202.3665")
    finally:
        app.close()
    return workspace


def test_the_model_judge_decides_what_the_cheap_check_cannot(cli, fake, astro_env, emcee):
    """`citations.judge: on`: one request with the undecided claim beside its passage; its verdict counts."""
    fake.add(READ_EMCEE, {"text": VAGUE}, {"text": "1: unsupported: the passage is about initialising walkers"},
             {"text": VAGUE})
    env = {**astro_env, "ASTRO_CITATIONS_JUDGE": "on"}
    obj = last_json(cli(["run", "--output-format", "json", "How does emcee propose steps?"], env=env).stdout)
    [claim] = obj["claims"]
    assert (claim["status"], claim["decided_by"]) == ("unsupported", "judge")
    assert claim["reason"] == "the passage is about initialising walkers"
    judged = fake.bodies()[2]["messages"]
    assert judged[0]["content"].startswith("You check whether quoted passages from papers support claims.")
    assert "1. Claim: The emcee sampler uses Hamiltonian dynamics" in judged[1]["content"]
    assert '<paper-text handle="1202.3665:s4:c20">' in judged[1]["content"]
    assert len(fake.requests) == 4  # read, answer, judge, the answer after the single nudge (no second judge)


def test_without_the_judge_an_undecided_claim_is_never_called_supported(cli, fake, astro_env, emcee):
    fake.add(READ_EMCEE, {"text": VAGUE}, {"text": VAGUE})
    obj = last_json(cli(["run", "--output-format", "json", "How does emcee propose steps?"], env=astro_env).stdout)
    [claim] = obj["claims"]
    assert (claim["status"], claim["decided_by"]) == ("unverified", "undecided")
    assert claim["reason"].startswith("could not be confirmed")


def test_a_judge_that_says_supported_ends_the_turn_without_a_nudge(cli, fake, astro_env, emcee):
    fake.add(READ_EMCEE, {"text": VAGUE}, {"text": "1: supported"})
    env = {**astro_env, "ASTRO_CITATIONS_JUDGE": "on"}
    obj = last_json(cli(["run", "--output-format", "json", "How?"], env=env).stdout)
    assert [(c["status"], c["decided_by"]) for c in obj["claims"]] == [("supported", "judge")]
    assert len(fake.requests) == 3
