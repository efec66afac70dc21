"""The guides' examples run as written (blocks fenced ```python no-run are illustrations)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))
EXAMPLES = {
    page.name: re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    for page in DOCS
}


@pytest.mark.parametrize("page", [name for name, blocks in EXAMPLES.items() if blocks])
def test_guide_examples_run(page, tmp_path, monkeypatch):
    """Every runnable block of a page, in order, sharing one namespace, in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for i, code in enumerate(EXAMPLES[page]):
        exec(compile(code, f"docs/{page} (block {i})", "exec"), namespace)
