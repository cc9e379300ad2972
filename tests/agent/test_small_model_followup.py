"""Issue 48, stop 53 follow-up: what Qwen2.5-Coder-1.5B wrote on the held-out half
(benchmarks/data/local_model_stop53/held_out_53_*.json, development material now), replayed by the
scripted model through the real `astro run` and litellm (llama.cpp listing: calls sent as a JSON schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}


def _run(run_astro, env, question: str) -> dict[str, Any]:
    done = run_astro(["run", "--output-format", "json", question], env)
    return last_json(done.stdout)


def _call(name: str, **arguments: Any) -> dict[str, str]:
    return {"text": json.dumps({"name": name, "arguments": arguments}, indent=2)}


def _answer(text: str) -> dict[str, str]:
    return _call("answer", text=text)


def _tool_texts(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


FLUX = "Remember that we always fit light curves in normalised flux, not magnitudes."


def test_a_memory_slug_with_underscores_is_saved_under_its_normalised_name(run_astro, fake: FakeProvider,
                                                                           astro_env, workspace: Path):
    """Held out (memory_relative_flux, memory_pdf_figures): `normalised_flux` was refused for its
    underscore, the model repeated the call as text and the turn paused with nothing remembered."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_memory", slug="normalised_flux", type="preference", description=FLUX, content=FLUX,
                   replaces=""),
             _answer("Saved: we fit light curves in normalised flux."))
    obj = _run(run_astro, astro_env, "We always fit light curves in normalised flux, not magnitudes. "
                                     "Remember that next time we talk.")
    saved = workspace / "memory" / "normalised-flux.md"
    assert saved.is_file() and "normalised flux" in saved.read_text(), obj
    (result,) = _tool_texts(fake.bodies()[1])
    assert "Created memory 'normalised-flux'" in result
    assert "The slug 'normalised_flux' was normalised to 'normalised-flux'." in result
    assert obj["stop_reason"] != "paused"


def test_a_slug_that_cannot_be_made_a_name_is_still_refused(run_astro, fake: FakeProvider, astro_env,
                                                            workspace: Path):
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_memory", slug="___", type="preference", description="x", content="y"),
             _answer("Could not save."))
    _run(run_astro, astro_env, "Remember that we use Vega magnitudes.")
    (result,) = _tool_texts(fake.bodies()[1])
    assert "save_memory: slug '___' is not valid" in result
    assert not any((workspace / "memory").glob("*.md")) if (workspace / "memory").exists() else True


COWAN = Path(__file__).resolve().parents[1] / "fixtures" / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def _paste_result_block(body: dict[str, Any]) -> dict[str, str]:
    """The recorded reply (held out, cite_many_walkers): one sentence, rag_search's first hit pasted
    whole with its `[1] ...` line and <paper-text> frame, one sentence of praise."""
    result = _tool_texts(body)[-1]
    start = result.index("[1] ")
    end = result.index("</paper-text>", start) + len("</paper-text>")
    return {"text": f"You can cite the following passage from the paper:\n\n{result[start:end]}\n\n"
                    "This passage gives a clear and concise account of it."}


def test_a_pasted_result_block_is_never_the_answer(run_astro, fake: FakeProvider, astro_env):
    added = run_astro(["library", "add", str(COWAN)], astro_env)
    assert added.returncode == 0, added.stderr
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="day-side temperature HD 189733b"), _paste_result_block,
             {"text": "T_d = 1605(52) K for HD 189733b, Table 1 of 1001.0012."})
    obj = _run(run_astro, astro_env, "Which passage gives the day-side temperature of HD 189733b? Give me the citation.")
    assert obj["answer"] == "T_d = 1605(52) K for HD 189733b, Table 1 of 1001.0012.", obj
    said = [str(m["content"]) for m in fake.bodies()[2]["messages"] if m["role"] == "user"]
    assert any(text.startswith("Your last reply holds a <paper-text> block") for text in said)


def test_a_pasted_result_block_twice_pauses_and_says_so(run_astro, fake: FakeProvider, astro_env):
    added = run_astro(["library", "add", str(COWAN)], astro_env)
    assert added.returncode == 0, added.stderr
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="day-side temperature HD 189733b"), _paste_result_block, _paste_result_block)
    done = run_astro(["run", "--output-format", "json", "Which passage gives the day-side temperature of HD 189733b?"],
                     astro_env)
    obj = last_json(done.stdout)
    assert done.returncode == 1 and obj["stop_reason"] == "paused", done.stdout
    assert obj["error"].startswith("The model gave astro's own <paper-text> text as its answer twice in a row")
    assert "<paper-text" not in obj["answer"]


def _notes_both_ways(workspace: Path) -> None:
    """notes.md and a notes/ folder side by side, as in the held-out workspace."""
    for name, text in {"notes.md": "# Notes\n\nSector 58 reduction: [TODO fill in]\n",
                       "notes/telecon-2024-11-14.md": "Sector 58: Priya reduces it now (Tomás handed it over).\n",
                       "notes/todo.md": "- [ ] re-fit Kepler-7b\n"}.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)


def _required_paths(body: dict[str, Any]) -> list[str]:
    (read_file,) = body["response_format"]["json_schema"]["schema"]["anyOf"]
    return list(read_file["properties"]["arguments"]["properties"]["path"]["enum"])


def test_in_my_notes_names_the_notes_folder_over_a_notes_file(run_astro, fake: FakeProvider, astro_env,
                                                              workspace: Path):
    """Held out (telecon_who_reduces): "it's in my notes" made the first call read notes.md, whose
    "[TODO fill in]" became the answer; the telecon note in notes/ was never read."""
    _notes_both_ways(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="notes/telecon-2024-11-14.md"), _answer("Priya reduces sector 58 now."))
    obj = _run(run_astro, astro_env, "Who is doing the sector 58 reduction now? We settled it in the November "
                                     "telecon, it's in my notes.")
    first = fake.bodies()[0]
    assert first["tool_choice"] == "required"
    # Stop 54 follow-up: of the folder's files, the one whose name and first lines match (agent/note_pick.py).
    assert _required_paths(first) == ["notes/telecon-2024-11-14.md"]
    assert obj["answer"] == "Priya reduces sector 58 now."


def test_a_folder_named_in_a_request_for_a_change_is_where_to_write(run_astro, fake: FakeProvider, astro_env,
                                                                    workspace: Path):
    """Held out (note_nirspec_date): "Jot down in my notes that ..." forced a first read of notes.md
    before save_note; the folder is where the note goes, nothing to read first."""
    _notes_both_ways(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_note", title="NIRSpec data for WASP-43b",
                   content="The NIRSpec data for WASP-43b are expected on 2025-01-15."),
             {"text": "Noted: NIRSpec data for WASP-43b expected 2025-01-15."})
    obj = _run(run_astro, astro_env, "Jot down in my notes that the NIRSpec data for WASP-43b are expected on "
                                     "2025-01-15.")
    first = fake.bodies()[0]
    assert first.get("tool_choice") is None and "response_format" not in first
    assert obj["tool_calls"] == [{"name": "save_note", "ok": True}], obj
    assert any("2025-01-15" in path.read_text() for path in (workspace / "notes").rglob("*.md"))
    # The same with a verb that always wrote: the folder alone no longer forces a read.
    fake.add(_call("save_note", title="Seeing", content="Seeing was 0.9 arcsec on 2024-09-04."), {"text": "Saved."})
    _run(run_astro, astro_env, "Save a note in my notes that the seeing was 0.9 arcsec on 2024-09-04.")
    assert fake.bodies()[2].get("tool_choice") is None
