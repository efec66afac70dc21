"""Learned transition models that serve as simulators."""
