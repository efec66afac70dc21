"""The installed package: one top-level import name, and no clash with a user's own folders."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import assembly_gym

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("envs", "world_models", "irl", "agents", "benchmarks")

# A research repository's own top-level packages, named like ours used to be.
USER_PACKAGES = ("envs", "agents", "irl")

USER_SCRIPT = """
import gymnasium as gym
import gymnasium.envs.registration as registration
if not hasattr(registration, "load_plugin_envs"):  # Gymnasium 1.x dropped the plugin hook
    import assembly_gym  # noqa: F401
env = gym.make("assembly/RollCall-v0")
env.reset(seed=0)
env.step(0)
import agents, envs, irl
import assembly_gym
assert (envs.OWNER, agents.OWNER, irl.OWNER) == ("user", "user", "user")
print(assembly_gym.__file__)
"""


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean copy of this checkout to build from.

    A copy, because setuptools leaves a ``build/`` folder in the tree it builds, and files
    left there from an earlier build would end up in a later wheel.
    """
    source = tmp_path_factory.mktemp("source") / "assembly-gym"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "runs", "*.egg-info", "__pycache__", ".*cache"))  # fmt: skip
    return source


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built without network access."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--quiet", "--wheel-dir", str(out), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (path,) = out.glob("assembly_gym-*.whl")
    return path


def test_the_wheel_installs_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        declared = archive.read(entry_points).decode()
    top_level = {name.split("/")[0] for name in names} - {entry_points.split("/")[0]}
    assert top_level == {"assembly_gym"}
    for package in (*SUBPACKAGES, "core"):
        assert f"assembly_gym/{package}/__init__.py" in names
    assert "assembly_gym/envs/legislative/countries.csv" in names  # package data travels too
    # PEP 561: one marker at the root covers every subpackage.
    assert [n for n in names if n.endswith("py.typed")] == ["assembly_gym/py.typed"]
    assert "assembly_gym.envs.registration:register_envs" in declared
    assert "assembly-gym = assembly_gym.benchmarks.cli:main" in declared


def _user_repository(tmp_path: Path) -> Path:
    """A folder holding its own ``envs``, ``agents`` and ``irl`` packages."""
    for name in USER_PACKAGES:
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "__init__.py").write_text('OWNER = "user"\n')
    return tmp_path


@pytest.mark.parametrize("install", ["editable", "wheel"])
def test_a_users_own_envs_and_agents_packages_do_not_collide(
    install: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    repository = _user_repository(tmp_path / "research")
    environment = {"PATH": "/usr/bin:/bin"}
    if install == "wheel":
        target = tmp_path / "site"
        wheel = request.getfixturevalue("wheel")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
             str(target), str(wheel)],
            check=True, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        environment["PYTHONPATH"] = str(target)
    result = subprocess.run(
        [sys.executable, "-c", USER_SCRIPT],
        cwd=repository, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    location = Path(result.stdout.strip())
    expected = tmp_path / "site" if install == "wheel" else ROOT
    assert location.is_relative_to(expected)


def test_version_comes_from_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert assembly_gym.__version__ == version("assembly-gym")


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "assembly_gym", "--help"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: assembly-gym")


def test_the_sdist_carries_its_tests_and_they_run(source: Path, tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "print(b.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=source, check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    archive = tmp_path / built.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as sdist:
        sdist.extractall(tmp_path, filter="data")
    unpacked = tmp_path / archive.name.removesuffix(".tar.gz")
    for needed in ("LICENSE", "CHANGELOG.md", "constraints.txt", "docs/architecture.md",
                   "tests/conftest.py", "envs/legislative/countries.csv"):  # fmt: skip
        assert (unpacked / needed).is_file(), needed
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_layers.py", "tests/core/test_persist.py"],
        cwd=unpacked, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
