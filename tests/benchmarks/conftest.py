"""Fixtures shared by the benchmark tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.envs.legislative.data import ABSENT, ISSUE_CODES
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

COUNTRIES = {"France": "FR", "Germany": "DE", "Brazil": "BR", "India": "IN", "Namibia": "NA"}


@pytest.fixture(scope="module")
def unvotes_folder(tmp_path_factory) -> Path:
    """A tiny synthetic assembly written in the unvotes layout, with real country names."""
    data = generate_assembly(
        SyntheticConfig(n_countries=5, n_blocs=2, n_sessions=4, roll_calls_per_session=12, seed=2)
    ).data
    folder = tmp_path_factory.mktemp("unvotes")
    table = data.roll_calls
    pd.DataFrame({
        "rcid": table["rcid"], "session": table["session"],
        "importantvote": table["important"].astype(int), "date": table["date"].dt.date,
        "unres": table["symbol"], "amend": table["amend"].astype(int),
        "para": table["para"].astype(int), "short": table["short"], "descr": table["descr"],
    }).to_csv(folder / "un_roll_calls.csv.gz", index=False)  # fmt: skip
    flagged, issue = np.nonzero(table[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(dtype=bool))
    pd.DataFrame({
        "rcid": table["rcid"].to_numpy()[flagged], "short_name": np.array(ISSUE_CODES)[issue],
        "issue": "an issue",
    }).to_csv(folder / "un_roll_call_issues.csv.gz", index=False)  # fmt: skip
    row, column = np.nonzero(data.votes != ABSENT)
    names = list(COUNTRIES)
    pd.DataFrame({
        "rcid": table["rcid"].to_numpy()[column],
        "country": [names[r] for r in row],
        "country_code": [COUNTRIES[names[r]] for r in row],
        "vote": np.array(["yes", "no", "abstain"])[data.votes[row, column]],
    }).to_csv(folder / "un_votes.csv.gz", index=False)  # fmt: skip
    return folder
