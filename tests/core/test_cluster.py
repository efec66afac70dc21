import importlib.util
import os
from ipaddress import IPv4Address, IPv6Address, ip_address
from pathlib import Path

import pytest

from assembly_gym.core.errors import MissingDependencyError


@pytest.mark.ray
def test_connect_ray_keeps_the_running_connection(ray_local):
    from assembly_gym.core.cluster import connect_ray

    assert connect_ray(num_cpus=1) is ray_local
    assert ray_local.cluster_resources()["CPU"] == 2


def _process_tree(root: int) -> list[int]:
    """``root`` and every process below it, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # not a process, or ended meanwhile
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    except OSError:  # ended meanwhile
        pass
    return inodes


def _listening_addresses() -> dict[str, IPv4Address | IPv6Address]:
    """Inode → local address of every listening TCP socket (/proc/net/tcp, tcp6)."""
    listening = {}
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A":  # TCP_LISTEN
                continue
            raw = bytes.fromhex(fields[1].split(":")[0])  # 32-bit words, host (little) endian
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            listening[fields[9]] = ip_address(words)
    return listening


def _is_loopback(address: IPv4Address | IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


@pytest.mark.ray
@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc")
def test_a_local_ray_listens_on_loopback_only(ray_local):
    @ray_local.remote
    def one() -> int:
        return 1

    assert ray_local.get(one.remote()) == 1  # a worker runs: its server listens too
    listening = _listening_addresses()
    bound = {
        (pid, str(listening[inode]))
        for pid in _process_tree(os.getpid())
        for inode in _socket_inodes(pid)
        if inode in listening
    }
    assert len(bound) >= 4  # the GCS, the raylet's two servers, the driver, a worker
    assert not {(pid, address) for pid, address in bound if not _is_loopback(ip_address(address))}


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed here")
def test_without_the_extra_the_error_names_the_install():
    from assembly_gym.core.cluster import connect_ray

    with pytest.raises(MissingDependencyError, match=r"assembly-gym\[ray\]"):
        connect_ray()
