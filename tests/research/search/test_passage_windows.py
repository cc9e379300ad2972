"""Issue 42: a chunk is embedded as windows of whole sentences (passage_windows.py)."""

from __future__ import annotations

from astro_cli.research.search.passage_windows import passage_windows


def _sentences(count: int, length: int = 150) -> list[str]:
    return [f"Sentence {n} " + "word " * ((length - 14) // 5) + "ends." for n in range(count)]


def test_a_long_chunk_is_cut_at_sentences_into_overlapping_windows():
    parts = _sentences(10)
    windows = passage_windows(" ".join(parts), size=600)
    assert len(windows) > 2
    for window in windows:
        assert len(window) <= 700 and window.startswith("Sentence ") and window.endswith("ends.")
    # each window begins with the last sentence of the one before: an answer across a boundary is whole in one
    for before, after in zip(windows, windows[1:]):
        assert before.endswith(after.split(" ends. ")[0] + " ends.")
    assert {p for p in parts if any(p in w for w in windows)} == set(parts)


def test_a_chunk_that_fits_is_one_window():
    text = " ".join(_sentences(4))
    assert passage_windows(text, size=600) == [text]
    assert passage_windows("   ") == []


def test_a_sentence_longer_than_a_window_is_cut_at_spaces():
    table = "| row | " + "0.0506 ± 0.0086 | " * 120
    windows = passage_windows(table, size=600)
    assert len(windows) >= 3 and all(len(w) <= 600 for w in windows)
    assert "".join(windows).replace(" ", "") == table.strip().replace(" ", "")
