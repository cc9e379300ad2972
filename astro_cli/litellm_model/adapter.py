"""The Model port's litellm adapter: streaming, tool calls, retries, usage, cost, cache marks.

`import litellm` costs about 4 s and 200 MB: loader.py imports it, lazily, only when a model is
about to be called. Callers hold it as an agent.model.Model, made by agent.model.open_model.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from astro_cli.agent.call_schema import answer_of, call_response_format, cut_answer_of, offers_answer
from astro_cli.agent.current_model import CurrentModel
from astro_cli.agent.first_step import REQUIRED
from astro_cli.agent.model import Cancelled, LLMReply
from astro_cli.agent.provider import (
    LLMConfig,
    ProviderError,
    connection_failure,
    describe_error,
)
from astro_cli.agent.retry import WaitTooLong, plan_retry
from astro_cli.agent.stream import FORGET_EVERY, StreamAccumulator
from astro_cli.litellm_model.compat import forget_chunks
from astro_cli.litellm_model.loader import load_litellm
from astro_cli.litellm_model.provider_checks import accepts_tool_choice, check_credentials, retryable
from astro_cli.usage import Usage

log = logging.getLogger(__name__)

CACHE_MARK = {"type": "ephemeral"}
NO_KEY = "no-key"  # what a server at api_base gets when no key is set for it
CONTINUE_TEXT = (
    "Your reply was cut off at the output token limit. Continue exactly where it stopped, without "
    "repeating anything and without any preamble."
)


def is_anthropic(model: str) -> bool:
    """Providers that take Anthropic cache marks; the others get clean requests."""
    lowered = model.lower()
    return lowered.startswith(("anthropic/", "claude")) or (
        lowered.startswith(("bedrock/", "vertex_ai/")) and "claude" in lowered
    )


def mark_cache_breakpoints(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], breakpoint_index: int | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copy messages and tools with Anthropic cache marks on the system prompt, the last tool and
    the last stored message before the environment message."""
    messages = copy.deepcopy(messages)
    tools = copy.deepcopy(tools)
    if messages and messages[0]["role"] == "system" and isinstance(messages[0]["content"], str):
        messages[0]["content"] = [{"type": "text", "text": messages[0]["content"], "cache_control": CACHE_MARK}]
    if tools:
        tools[-1]["cache_control"] = CACHE_MARK
    if breakpoint_index is not None and 0 < breakpoint_index < len(messages):
        _mark_message(messages[breakpoint_index])
    return messages, tools


def _mark_message(message: dict[str, Any]) -> None:
    role = message["role"]
    if role == "tool":
        message["cache_control"] = CACHE_MARK
    elif role == "assistant" and message.get("tool_calls"):
        message["tool_calls"][-1]["cache_control"] = CACHE_MARK
    elif isinstance(message.get("content"), str) and message["content"]:
        message["content"] = [{"type": "text", "text": message["content"], "cache_control": CACHE_MARK}]
    elif isinstance(message.get("content"), list) and message["content"]:
        message["content"][-1]["cache_control"] = CACHE_MARK


def cost_of(model: str, usage: Usage) -> float | None:
    """Cost in USD from litellm's price table; None when litellm has no price for the model."""
    litellm = load_litellm()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=usage.input_tokens,
            completion_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cache_read_input_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens,
        )
    except Exception:  # noqa: BLE001 - unknown model or price: cost is simply unknown
        log.debug("no price for %s: the cost is unknown", model, exc_info=True)
        return None
    return float(prompt_cost + completion_cost)


class LLM:
    """Calls a model through litellm with streaming, retries and usage accounting.

    Its model is `current` (agent/current_model.py), read at each request: a holder of this LLM
    (a subagent, the citation judge, compaction) follows `/model` without being told.
    """

    def __init__(self, config: LLMConfig | CurrentModel) -> None:
        self.current = config if isinstance(config, CurrentModel) else CurrentModel(config)
        self._credentials_checked: set[str] = set()
        self.api_seconds = 0.0  # time spent inside model requests, for duration_api_ms and benchmarks
        self._on_progress: Callable[[int, int, int], None] | None = None  # this request's (complete())
        self._call_tools: list[dict[str, Any]] | None = None  # likewise: the tools a required call may be

    @property
    def config(self) -> LLMConfig:
        return self.current.config

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        on_text: Callable[[str], None] = lambda text: None,
        on_retry: Callable[[int, int, float, str, bool], None] = lambda attempt, total, delay, error, limited: None,
        cancel: threading.Event | None = None,
        cache_index: int | None = None,
        model: str | None = None,
        tool_choice: str | None = None,
        on_progress: Callable[[int, int, int], None] | None = None,
        call_tools: list[dict[str, Any]] | None = None,
    ) -> LLMReply:
        """`on_progress(total, cached, processed)`: a local server's prompt processing, where it says.
        `call_tools`: with a required call, the tool schemas it may be, perhaps narrowed (agent/first_step.py);
        None: any offered."""
        litellm = load_litellm()
        self._on_progress = on_progress
        self._call_tools = call_tools
        wanted = model or self.config.model
        if wanted not in self._credentials_checked:
            check_credentials(litellm, dataclasses.replace(self.config, model=wanted))
            self._credentials_checked.add(wanted)
        started = time.monotonic()
        try:
            reply = self._complete(litellm, messages, tools, on_text, on_retry, cancel, cache_index, model, tool_choice)
            continued = 0
            while reply.finish_reason == "length" and not reply.tool_calls and continued < self.config.max_continuations:
                # Cut at the output token limit: ask for the rest and join the parts into one reply.
                continued += 1
                asked = [*messages, {"role": "assistant", "content": reply.text}, {"role": "user", "content": CONTINUE_TEXT}]
                try:
                    more = self._complete(litellm, asked, tools, on_text, on_retry, cancel, cache_index, model, tool_choice)
                except ProviderError:
                    break  # keep what was written; the reply stays marked as cut
                reply = reply.joined(more)
            reply.continuations = continued
            return reply
        finally:
            self.api_seconds += time.monotonic() - started

    def _complete(
        self,
        litellm: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        on_text: Callable[[str], None],
        on_retry: Callable[[int, int, float, str, bool], None],
        cancel: threading.Event | None,
        cache_index: int | None,
        model: str | None,
        tool_choice: str | None,
    ) -> LLMReply:
        model = model or self.config.model
        tools = tools or []
        if is_anthropic(model):
            messages, tools = mark_cache_breakpoints(messages, tools, cache_index)
        attempts = self.config.num_retries + 1
        for attempt in range(1, attempts + 1):
            streamed: list[str] = []
            log.debug("request %d/%d to %s: %d messages, %d tools", attempt, attempts, model, len(messages), len(tools))
            try:
                return self._stream(litellm, model, messages, tools, on_text, streamed, cancel, tool_choice)
            except Cancelled:
                raise
            except (KeyboardInterrupt, ProviderError):
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                log.debug("request to %s failed", model, exc_info=True)
                error = describe_error(exc, self.config, model)
                # A refused connection is retried once (a server just starting), not num_retries times.
                unreachable = connection_failure(exc) is not None
                if streamed or not retryable(litellm, exc) or attempt == attempts or (unreachable and attempt > 1):
                    raise ProviderError(error) from None
                try:
                    plan = plan_retry(exc, attempt, self.config.retry_backoff, self.config.retry_max_wait)
                except WaitTooLong as too_long:
                    raise ProviderError(f"{error}; {too_long}") from None
                delay = plan.delay
                on_retry(attempt, 1 if unreachable else attempts - 1, delay, error, plan.rate_limited)
                if cancel is not None and cancel.wait(delay):
                    raise Cancelled() from None
                if cancel is None:
                    time.sleep(delay)
        raise ProviderError("the provider did not answer")  # pragma: no cover

    def _progress_reader(self) -> Callable[[dict[str, Any]], None] | None:
        report = self._on_progress
        if report is None:
            return None

        def read(progress: dict[str, Any]) -> None:
            total = _count(progress, "total")
            if total:
                report(total, _count(progress, "cache"), _count(progress, "processed"))

        return read

    def _stream(
        self,
        litellm: Any,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None],
        streamed: list[str],
        cancel: threading.Event | None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": max(self.config.timeout, self.config.first_token_timeout or 0),
            "num_retries": 0,
        }
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            kwargs["max_tokens"] = self.config.max_tokens
        if tools:
            kwargs["tools"] = tools
            if tool_choice == REQUIRED and not accepts_tool_choice(litellm, model):
                tool_choice = None  # the provider would refuse or ignore it (agent/first_step.py)
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
            if tool_choice == REQUIRED and self.config.server_kind == "llama.cpp":
                # llama.cpp ignores tool_choice for some chat templates; a schema it does enforce
                # (agent/call_schema.py).
                schema = call_response_format(self._call_tools or tools)
                if schema is not None:
                    kwargs["response_format"] = schema
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if self.config.server_kind == "llama.cpp":
            # llama.cpp's server then reports its prompt processing in the stream (prompt_progress).
            kwargs["extra_body"] = {"return_progress": True}
        api_key = self.config.api_key
        if not api_key:
            found = self.config.credential(model)
            if found is not None and found.from_store:  # keys in the environment litellm reads itself
                api_key = found.value
        if api_key:
            kwargs["api_key"] = api_key
        elif self.config.api_base and self.config.credential(model) is None:
            # A local or proxy server (llama.cpp, vLLM, a LiteLLM proxy) often needs no key, but the
            # provider's client will not start without one: a placeholder, sent only to api_base.
            kwargs["api_key"] = NO_KEY
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:
            if "response_format" not in kwargs or getattr(exc, "status_code", None) != 400:
                raise
            # A schema this server cannot turn into a grammar: the request as it was before, unconstrained.
            log.debug("the server refused the tool-call schema; asked again without it", exc_info=True)
            del kwargs["response_format"]
            response = litellm.completion(**kwargs)
        # The answer written as the schema's answer branch (agent/call_schema.py) is shown once, unwrapped.
        wrapped = "response_format" in kwargs and offers_answer(self._call_tools)
        reply = StreamAccumulator(streamed, (lambda text: None) if wrapped else on_text, self._progress_reader())
        first_at: float | None = None
        try:
            for count, chunk in enumerate(response, start=1):
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                reply.add(chunk)
                if first_at is None and reply.produced:
                    # The first token, not the first chunk: llama.cpp's server sends the role (and
                    # prompt progress) before its prefill, which may take minutes on a CPU.
                    first_at = time.monotonic()
                limit = self.config.writing_timeout
                if self.config.first_token_timeout and first_at is not None and time.monotonic() - first_at > limit:
                    # The wait for the first token has a limit of its own; the rest has `writing_timeout`.
                    setting = "timeout" if limit == self.config.timeout else "first_token_timeout"
                    raise ProviderError(
                        f"{model} was still writing {limit:g} s after its first token; raise `{setting}` (config "
                        f"or ASTRO_{setting.upper()}) for long answers from a slow model")
                if count % FORGET_EVERY == 0:
                    forget_chunks(response)
        except (Cancelled, KeyboardInterrupt):
            return LLMReply(text=reply.text, usage=reply.usage, finish_reason="interrupted", interrupted=True)
        usage = reply.usage.priced(cost_of(model, reply.usage)) if reply.usage else reply.usage
        text = reply.text
        # An answer cut inside its string at the reply limit: the text so far, marked as cut.
        answer = (answer_of(text) or cut_answer_of(text)) if wrapped else None
        if wrapped:
            text = answer if answer is not None else text
            on_text(text)
        return LLMReply(text=text, tool_calls=reply.tool_calls(), usage=usage, finish_reason=reply.finish)


def _count(progress: dict[str, Any], key: str) -> int:
    value = progress.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
