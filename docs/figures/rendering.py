"""Draws ``rendering.png`` for docs/rendering.md: the last frame of two episodes, side by side.

Run from the repository root: ``python docs/figures/rendering.py``.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
from PIL import Image

import assembly_gym  # noqa: F401  (registers the ids)


def deliberation_frame() -> np.ndarray:
    """Deliberation-v0 on the synthetic assembly: cosponsor, then vote yes twice."""
    env = gym.make("assembly/Deliberation-v0", country="Country 007", render_mode="rgb_array")
    env.reset(seed=4)
    for action in (0, 1, 1):  # COSPONSOR, YES, YES
        env.step(action)
    return env.render()


def memory_frame() -> np.ndarray:
    """MemoryDynamics-v0 (medium): an agent that reads a relevant window on most steps."""
    env = gym.make("assembly/MemoryDynamics-v0", difficulty="medium", population="structured",
                   render_mode="rgb_array")  # fmt: skip
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for step in range(8):
        windows = env.unwrapped.relevant_windows()
        start, length = windows[rng.integers(len(windows))]
        if step % 4 == 3:  # now and then a read elsewhere
            start = (start + 97 * 256) % (256 * 256)
        env.step(np.array([start // 256, start % 256, length - 1]))
    return env.render()


if __name__ == "__main__":
    picture = np.concatenate([deliberation_frame(), memory_frame()], axis=1)
    path = Path(__file__).with_name("rendering.png")
    Image.fromarray(picture).save(path, optimize=True)
    print(f"{path}: {path.stat().st_size / 1024:.0f} KB")
