"""report.html in a real browser: every image loads, nothing overflows the page, headers sort.

Opens a small report in headless Chromium (Debian's ``chromium``; `make test` installs it where
it can) with a script appended that writes a JSON verdict into the page, and reads the page
back with ``--dump-dom``. Skipped where no Chromium is found or it cannot start.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.benchmarks.report import write_report
from assembly_gym.benchmarks.suites.base import SuiteResult
from assembly_gym.benchmarks.suites.figures import learned_figures

BROWSER = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        BROWSER is None, reason="no chromium, chromium-browser or google-chrome on PATH"
    ),
]

# Runs once the page has loaded: images, page width, and the table sorted by a click on a header.
VERDICT = """<script>window.addEventListener('load', function () {
  var images = Array.from(document.images);
  var scrollWidth = document.documentElement.scrollWidth;
  var header = Array.from(document.querySelectorAll('th')).find(function (th) {
    return th.textContent === 'accuracy'; });
  header.click(); header.click();  // descending
  var verdict = {images: images.length, scrollWidth: scrollWidth, innerWidth: window.innerWidth,
    broken: images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).length,
    first: document.querySelector('tbody tr td').textContent};
  var out = document.createElement('output'); out.id = 'verdict';
  out.textContent = JSON.stringify(verdict); document.body.appendChild(out);
});</script>"""


def _report(out: Path) -> Path:
    """A small report with a wide table, a calibration grid and learned-weight figures."""
    rng = np.random.default_rng(0)
    agents = [f"agent number {i} with a long name" for i in range(6)]
    table = pd.DataFrame({"agent": agents})
    for metric in ("accuracy", "macro_f1", "log_loss", "brier", "ece", "true_reward", "epic"):
        values = rng.uniform(0.2, 0.9, len(agents))
        table[metric] = values
        table[f"{metric}_ci"] = [(v - 0.05, v + 0.05) for v in values]
    table["accuracy"] = np.linspace(0.3, 0.8, len(agents))  # the last agent is the best
    table["n"] = 603
    bins = (np.array([0.4, 0.7, 0.9]), np.array([0.5, 0.6, 0.95]), np.array([5, 9, 20]))
    weights = {c: {"weights": rng.normal(size=(3, 6))} for c in ("A", "B", "C", "D")}
    figures = learned_figures({"irl": weights}, tuple(f"text_{i:02d}" for i in range(5)),
                              ("yes", "no", "abstain"))  # fmt: skip
    result = SuiteResult("synthetic", "a suite", "train 1–4, test 5–6", "memory", ("A",),
                         {"yes": 0.6, "no": 0.4}, 1.0, table,
                         calibration=dict.fromkeys(agents, bins), extras={"figures": figures},
                         plot_metrics=("accuracy", "log_loss"))  # fmt: skip
    return write_report([result], out, options={}, kind="test-browser", version=1)["report.html"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    text = _report(folder / "report").read_text()
    checked = folder / "checked.html"
    checked.write_text(text.replace("</body>", VERDICT + "</body>"))
    return checked


@pytest.mark.parametrize("width", [1280, 800])
def test_every_image_loads_and_nothing_overflows(page: Path, width: int) -> None:
    command = [str(BROWSER), "--headless", "--no-sandbox", "--disable-gpu",
               f"--user-data-dir={page.parent / f'profile-{width}'}",
               f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
               page.as_uri()]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        pytest.skip(f"{BROWSER} could not start (exit {run.returncode}): {last}")
    found = re.search(r'<output id="verdict">(.*?)</output>', run.stdout, re.DOTALL)
    assert found, "the page's check script wrote no verdict"
    verdict = json.loads(html.unescape(found.group(1)))
    assert verdict["images"] == 4 and verdict["broken"] == 0  # bars, calibration, weights, tree
    assert verdict["innerWidth"] == width and verdict["scrollWidth"] <= width
    assert verdict["first"] == "agent number 5 with a long name"  # sorted by accuracy, best first
