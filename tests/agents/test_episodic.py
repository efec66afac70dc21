"""The episodic-agent protocol's scores."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.base import EpisodeScores


def test_episode_scores_validate_their_shapes():
    with pytest.raises(ValueError, match="1-D arrays of one length"):
        EpisodeScores({"reward": np.zeros(3), "mse": np.zeros(4)}, 0.0, 0.0)
    with pytest.raises(ValueError, match="1-D arrays of one length"):
        EpisodeScores({}, 0.0, 0.0)
