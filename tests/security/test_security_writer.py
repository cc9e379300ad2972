"""The one file writer (astro_cli/security/writer.py): no link followed at any level, whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from astro_cli.security import writer
from astro_cli.security.writer import LinkRefused, NameTaken, Place


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim").write_text("precious\n", encoding="utf-8")
    return folder


def test_a_link_at_the_final_name_is_replaced_never_followed(tmp_path, outside):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "out.txt").symlink_to(outside / "victim")
    writer.write_text(Place.of(root, "out.txt"), "new\n")
    assert (outside / "victim").read_text(encoding="utf-8") == "precious\n"
    assert not (root / "out.txt").is_symlink() and (root / "out.txt").read_text(encoding="utf-8") == "new\n"


def test_a_link_anywhere_on_the_way_fails_the_write(tmp_path, outside):
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "a" / "b").symlink_to(outside)
    with pytest.raises(LinkRefused):
        writer.write_text(Place.of(root, "a/b/victim"), "pwned\n")
    with pytest.raises(LinkRefused):
        with writer.open_append(Place.of(root, "a/b/victim")) as handle:
            handle.write(b"pwned\n")
    assert (outside / "victim").read_text(encoding="utf-8") == "precious\n"


def test_appending_refuses_a_link_at_the_name(tmp_path, outside):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "paper.pdf.part").symlink_to(outside / "victim")
    with pytest.raises(LinkRefused):
        with writer.open_append(Place.of(root, "paper.pdf.part")) as handle:
            handle.write(b"%PDF-")
    assert (outside / "victim").read_text(encoding="utf-8") == "precious\n"


def test_replace_false_keeps_what_is_there_even_a_dangling_link(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "mine.csv").write_text("mine\n", encoding="utf-8")
    (root / "gone.csv").symlink_to(tmp_path / "nowhere")
    for name in ("mine.csv", "gone.csv"):
        with pytest.raises(NameTaken):
            writer.write_text(Place.of(root, name), "theirs\n", replace=False)
    assert (root / "mine.csv").read_text(encoding="utf-8") == "mine\n"
    assert sorted(os.listdir(root)) == ["gone.csv", "mine.csv"]  # no temporary file left behind


def test_a_failed_stream_leaves_the_old_file_and_no_temporary(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "table.fits").write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with writer.open_binary(Place.of(root, "table.fits")) as handle:
            handle.write(b"half")
            raise RuntimeError("the service dropped the connection")
    assert (root / "table.fits").read_bytes() == b"old" and os.listdir(root) == ["table.fits"]


def test_mode_is_set_and_an_existing_mode_kept(tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    writer.write_file(root / "keys.yaml", "a: b\n", root=root, mode=0o600)
    assert (root / "keys.yaml").stat().st_mode & 0o777 == 0o600
    (root / "run.sh").write_text("echo 1\n", encoding="utf-8")
    (root / "run.sh").chmod(0o750)
    writer.write_file(root / "run.sh", "echo 2\n", root=root)
    assert (root / "run.sh").stat().st_mode & 0o777 == 0o750


def test_a_place_never_climbs_out_of_its_root(tmp_path):
    with pytest.raises(ValueError):
        Place.of(tmp_path, "../escape.txt")
    with pytest.raises(ValueError):
        Place.of(tmp_path / "ws", tmp_path / "elsewhere.txt")
    for parts in (("..", "escape.txt"), ("a/../../escape.txt",), ("",), ()):  # however a Place is built
        with pytest.raises(ValueError):
            Place(tmp_path / "ws", parts)


def test_the_repl_history_is_created_private_by_the_writer(tmp_path):
    from astro_cli.ui.prompt_input import make_history

    path = tmp_path / "home" / "history"
    make_history(path).store_string("plot the CMD of M 67")
    assert path.stat().st_mode & 0o777 == 0o600
    assert "plot the CMD of M 67" in path.read_text(encoding="utf-8")
