"""Where the suite's files are, for a test module at any depth of tests/ (issue 45: tests/ mirrors the
package, so `Path(__file__).parent` no longer names the same folder in every test module)."""

from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
FIXTURES_DIR = TESTS_DIR / "fixtures"
