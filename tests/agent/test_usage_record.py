"""The Usage record (issue 27): a request's tokens and cost, added up by the turn; an unknown price
keeps the sum unknown instead of silently under-reporting it."""

from __future__ import annotations

from astro_cli.agent.stream import usage_of
from astro_cli.usage import Usage


def test_a_sum_with_an_unpriced_request_has_an_unknown_cost():
    priced = Usage(input_tokens=100, output_tokens=20, cost_usd=0.01)
    unpriced = Usage(input_tokens=50, output_tokens=5, cost_usd=None)
    total = priced + unpriced
    assert (total.input_tokens, total.output_tokens, total.cost_usd) == (150, 25, None)
    assert (priced + priced).cost_usd == 0.02
    assert total.context_tokens == 175


def test_a_request_without_reported_tokens_is_nothing_to_record():
    assert not Usage()
    assert Usage(cache_read_input_tokens=3)


def test_litellms_usage_objects_and_dicts_read_alike():
    openai_style = {"prompt_tokens": 120, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 100}}
    assert usage_of(openai_style) == Usage(input_tokens=120, output_tokens=7, cache_read_input_tokens=100)
    assert usage_of(None) == Usage()
    assert usage_of(openai_style).to_dict() == {
        "input_tokens": 120, "output_tokens": 7, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0,
        "cost_usd": 0.0}
