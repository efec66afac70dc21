"""Installs the repository's top-level folders as subpackages of one import package.

``envs/`` becomes ``assembly_gym.envs``, ``agents/`` ``assembly_gym.agents`` and so on, so
that nothing generic lands in a user's site-packages. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

SUBPACKAGES = ("envs", "world_models", "irl", "agents", "benchmarks")

package_dir = {"assembly_gym": "assembly_gym"}
packages = ["assembly_gym", *find_packages(include=["assembly_gym.*"])]
for folder in SUBPACKAGES:
    package_dir[f"assembly_gym.{folder}"] = folder
    packages += [f"assembly_gym.{folder}"]
    packages += [f"assembly_gym.{folder}.{inner}" for inner in find_packages(folder)]

setup(package_dir=package_dir, packages=packages)
