"""The guides' examples run as written.

Fences: ```python runs; ```python no-run is an illustration; ```python requires=a,b runs only
where the modules a and b are installed (an optional extra, or a stack that has them); else
the page's other blocks run and the test is then skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

FENCE = r"^```python([^\n]*)\n(.*?)^```"  # at line starts: (words after "python", code)
DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("*.md"))
EXAMPLES = {
    page.name: re.findall(FENCE, page.read_text(encoding="utf-8"), re.S | re.M) for page in DOCS
}


def missing_modules(fence: str) -> list[str]:
    """The modules a block's fence ``requires=`` that are not installed here."""
    if not fence.startswith("requires="):
        raise ValueError(f"unknown fence ```python {fence}; use no-run or requires=a,b")
    required = fence.removeprefix("requires=").split(",")
    return [name for name in required if importlib.util.find_spec(name) is None]


@pytest.mark.parametrize("page", [name for name, blocks in EXAMPLES.items() if blocks])
def test_guide_examples_run(page, tmp_path, monkeypatch):
    """Every runnable block of a page, in order, sharing one namespace, in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    namespace, skipped = {"__name__": "__docs__"}, []
    for i, (fence, code) in enumerate(EXAMPLES[page]):
        fence = fence.strip()
        if fence == "no-run":
            continue
        if fence and (missing := missing_modules(fence)):
            skipped.append(f"block {i} needs {', '.join(missing)}")
            continue
        exec(compile(code, f"docs/{page} (block {i})", "exec"), namespace)
    if skipped:
        pytest.skip(f"the other blocks ran; {'; '.join(skipped)}")


def test_a_fence_names_the_modules_it_needs():
    assert missing_modules("requires=json,no_such_module_here") == ["no_such_module_here"]
    with pytest.raises(ValueError, match="unknown fence"):
        missing_modules("norun")
