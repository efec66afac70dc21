"""Registration of the assembly/ ids in fresh processes, on Gymnasium 0.29 and 1.x.

On ``import assembly_gym`` (also spelled ``gym.register_envs(assembly_gym)``, Gymnasium's
idiom that keeps linters from dropping the import); through Gymnasium 0.29's plugin hook (the
``gymnasium.envs`` entry point) on a bare ``import gymnasium``; and, on either stack, through
the ``"assembly_gym:assembly/RollCall-v0"`` form, which imports the package first, so that
worker processes and scripts that hold only the id string find it (1.x has no plugin hook).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import gymnasium as gym
import gymnasium.envs.registration as gym_registration
import pytest

import assembly_gym
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.registration import ENV_IDS, register_envs

FOUNDATION_IDS = ("assembly/RollCall-v0", "assembly/Deliberation-v0")
HAS_PLUGIN_HOOK = hasattr(gym_registration, "load_plugin_envs")  # Gymnasium 0.29

# Each script runs in a fresh interpreter so that the import order is really the one named:
# its imports, then the prefix gym.make gets before each id.
SCRIPTS = {
    "package first": ("import assembly_gym\nimport gymnasium as gym\n", ""),
    "gymnasium first": ("import gymnasium as gym\nimport assembly_gym\n", ""),
    "bare gymnasium": ("import gymnasium as gym\n", ""),
    "register_envs": (
        "import gymnasium as gym\nimport assembly_gym\ngym.register_envs(assembly_gym)\n",
        "",
    ),
    "module prefix": ("import gymnasium as gym\n", "assembly_gym:"),
}


def _make_both(prefix: str) -> str:
    return (
        f"for env_id in {FOUNDATION_IDS!r}:\n"
        f"    env = gym.make({prefix!r} + env_id)\n"
        "    env.reset(seed=0)\n"
        "    env.step(0)\n"  # YES in RollCall-v0, COSPONSOR at the DRAFT stage of Deliberation-v0
        "    assert gym.spec(env_id).version == 0\n"
        f"print('made', {len(FOUNDATION_IDS)})\n"
    )


@pytest.fixture(scope="module")
def subprocess_results() -> dict[str, subprocess.CompletedProcess]:
    """Run every script at once (two cores), then hand out the results."""
    running = {
        name: subprocess.Popen(
            [sys.executable, "-c", imports + _make_both(prefix)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (imports, prefix) in SCRIPTS.items()
        if name != "bare gymnasium" or HAS_PLUGIN_HOOK
    }
    results = {}
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=120)
        results[name] = subprocess.CompletedProcess(
            process.args, process.returncode, stdout, stderr
        )
    return results


@pytest.mark.parametrize("order", ["package first", "gymnasium first"])
def test_import_orders_register_without_circular_import(subprocess_results, order):
    result = subprocess_results[order]
    assert result.returncode == 0, result.stderr
    assert "circular import" not in result.stderr
    assert result.stdout.strip() == f"made {len(FOUNDATION_IDS)}"


@pytest.mark.skipif(
    not HAS_PLUGIN_HOOK,
    reason="this Gymnasium has no gymnasium.envs.registration.load_plugin_envs (plugin hook)",
)
def test_bare_gymnasium_import_finds_the_plugin(subprocess_results):
    result = subprocess_results["bare gymnasium"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"made {len(FOUNDATION_IDS)}"


def test_gym_register_envs_finds_the_ids(subprocess_results):
    result = subprocess_results["register_envs"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"made {len(FOUNDATION_IDS)}"


def test_the_module_prefix_imports_the_package_on_every_stack(subprocess_results):
    """``gym.make("assembly_gym:assembly/RollCall-v0")`` in a process that imported nothing."""
    result = subprocess_results["module prefix"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"made {len(FOUNDATION_IDS)}"


def test_import_envs_registers_every_id():
    for env_id, entry_point in ENV_IDS.items():
        assert env_id in gym.registry
        assert gym.spec(env_id).entry_point == entry_point
    assert set(assembly_gym.__all__) >= {"ENV_IDS", "register_envs", "DataError", "__version__"}


def test_register_envs_is_idempotent():
    before = {env_id: gym.spec(env_id) for env_id in ENV_IDS}
    register_envs()
    register_envs()
    assert {env_id: gym.spec(env_id) for env_id in ENV_IDS} == before


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_ids_follow_gymnasium_version_rules(env_id):
    namespace, name, version = gym_registration.parse_env_id(env_id)
    assert namespace == "assembly"
    assert isinstance(version, int)
    assert env_id == f"{namespace}/{name}-v{version}"
    spec = gym.spec(env_id)
    assert (spec.namespace, spec.name, spec.version) == (namespace, name, version)


def test_rollcall_spec_version():
    assert gym.spec("assembly/RollCall-v0").version == 0
    assert gym.spec("assembly/Deliberation-v0").version == 0
    with pytest.raises(gym.error.VersionNotFound, match="provides versioned environments"):
        gym.make("assembly/RollCall-v1")


def _entry_module(env_id: str) -> str:
    return ENV_IDS[env_id].split(":")[0]


def _required_kwargs(env_id: str) -> dict:
    """Arguments an id cannot do without: Simulator-v0 runs a given model."""
    if env_id != "assembly/Simulator-v0":
        return {}
    from assembly_gym.envs.legislative.deliberation import resolution_records
    from assembly_gym.envs.legislative.transitions import deliberation_transitions
    from assembly_gym.world_models.empirical import EmpiricalModel

    assembly = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3, seed=1))
    return {"model": EmpiricalModel().fit(deliberation_transitions(resolution_records(assembly)))}


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_every_id_with_a_module_is_makeable(env_id):
    module = _entry_module(env_id)
    if env_id not in FOUNDATION_IDS:
        try:
            importlib.import_module(module)
        except ImportError as error:
            pytest.skip(f"{module} is not importable yet ({error}); its author is writing it")
    env = gym.make(env_id, **_required_kwargs(env_id))
    try:
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert isinstance(info, dict)
    finally:
        env.close()
