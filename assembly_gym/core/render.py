"""``render()`` for envs that describe their state in text: "ansi" returns it, "human" prints it."""

from __future__ import annotations

import gymnasium as gym


class TextRender:
    """Mixin for a ``gym.Env`` with a ``render_text()`` method and a ``render_mode`` attribute."""

    render_mode: str | None
    metadata: dict

    def _checked_render_mode(self, render_mode: str | None) -> str | None:
        """``render_mode`` if the env's ``metadata["render_modes"]`` has it (or it is None).

        Raises:
            ValueError: another mode; the message lists the modes there are.
        """
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        return render_mode

    def render_text(self) -> str:
        """The current state as text (implemented by the env)."""
        raise NotImplementedError

    def render(self) -> str | None:
        """Render as text ("ansi") or print it ("human")."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _show_step(self) -> None:
        """Print the state after a step in "human" mode (Gymnasium renders on every step)."""
        if self.render_mode == "human":
            print(self.render_text())
