import importlib.util

import pytest

from assembly_gym.core.errors import MissingDependencyError


@pytest.mark.ray
def test_connect_ray_keeps_the_running_connection(ray_local):
    from assembly_gym.core.cluster import connect_ray

    assert connect_ray(num_cpus=1) is ray_local
    assert ray_local.cluster_resources()["CPU"] == 2


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed here")
def test_without_the_extra_the_error_names_the_install():
    from assembly_gym.core.cluster import connect_ray

    with pytest.raises(MissingDependencyError, match=r"assembly-gym\[ray\]"):
        connect_ray()
