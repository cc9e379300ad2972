"""Writing top-level settings into a config.yaml that a person may have edited by hand.

Only the lines of the keys being set change (or are appended): comments, order and every other
setting stay as they were. The result is read back before it replaces the file, so a file astro
cannot edit line by line is left untouched with one clear sentence instead of being mangled.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from astro_cli.config import ConfigError, read_yaml_file

UNSET: Any = object()  # `set_values(path, {"max_steps": UNSET})` removes the key's line (`astro config unset`)


def set_values(path: Path, values: dict[str, Any], root: Path | None = None) -> None:
    """Set top-level `key: value` lines in the YAML file at `path` (created when missing); a value of
    UNSET removes the key's line. Below `root` (a workspace's), no link is followed."""
    import yaml

    from astro_cli.safe_yaml import load_yaml
    from astro_cli.security.writer import write_file

    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from None
    for key, value in values.items():
        pattern = re.compile(rf"^{re.escape(key)}\s*:")
        if value is UNSET:
            lines = [text for text in lines if not pattern.match(text)]
            continue
        line = yaml.safe_dump({key: value}, default_flow_style=True, width=10_000).strip().removeprefix("{")
        line = line.removesuffix("}")
        where = next((i for i, text in enumerate(lines) if pattern.match(text)), None)
        if where is None:
            lines.append(line)
        else:
            lines[where] = line
    text = "\n".join(lines) + "\n"
    try:
        data = load_yaml(text) or {}
    except yaml.YAMLError:
        data = {}
    if not isinstance(data, dict) or any(
            (key in data) if value is UNSET else data.get(key) != value for key, value in values.items()):
        raise ConfigError(f"{path}: astro could not change {', '.join(values)} in it; edit it by hand.")
    try:
        write_file(path, text, root=root)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be written ({exc.strerror}).") from None
    read_yaml_file(path)  # the file as astro will read it at the next start
