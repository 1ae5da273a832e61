"""The Ansible inventory reader, --limit patterns, --hosts files and ssh config aliases.

Inventories are written as Ansible's documentation writes them (INI and YAML, groups, children, ranges,
group and host variables, group_vars/ and host_vars/ beside the file); each assertion says how Ansible reads it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashdoc.errors import InputError, UnsafeArgumentError
from crashdoc.fleet import collect_targets, load_inventory, read_hosts_file, ssh_config_hosts
from crashdoc.fleet.inventory import expand, split_port
from crashdoc.fleet.inventory_files import parse_ini, parse_yaml
from crashdoc.fleet.targets import Target, inventory_target, limit, ssh_config_path

INI = """\
# a GPU fleet, Ansible INI
login.example.com

[gpu_a100]
node[01:04] ansible_host=10.0.0.1
node05 ansible_host=10.0.0.5 ansible_port=2222  # a comment after the variables

[gpu_h100]
h100-[a:c].example.com:2200 ansible_user=ops

[gpu:children]
gpu_a100
gpu_h100

[gpu:vars]
ansible_user=root
ansible_port=22

[gpu_h100:vars]
ansible_port=2201

[staging]
node04
h100-c.example.com
"""

YAML = """\
all:
  vars:
    ansible_user: admin
  hosts:
    login.example.com:
  children:
    gpu:
      vars:
        ansible_user: root
      children:
        gpu_a100:
          hosts:
            node[01:04]:
              ansible_host: 10.0.0.1
            node05:
              ansible_host: 10.0.0.5
              ansible_port: 2222
        gpu_h100:
          vars:
            ansible_port: 2201
          hosts:
            h100-[a:c].example.com:2200:
              ansible_user: ops
    staging:
      hosts:
        node04:
        h100-c.example.com:
"""


@pytest.fixture(params=["ini", "yaml"])
def inventory(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The same inventory in both formats."""
    path = tmp_path / ("hosts.ini" if request.param == "ini" else "hosts.yml")
    path.write_text(INI if request.param == "ini" else YAML)
    return path


def test_ranges_expand_as_ansible_does() -> None:
    assert expand("node[01:04]") == ["node01", "node02", "node03", "node04"]
    assert expand("node[1:10:3]") == ["node1", "node4", "node7", "node10"]
    assert expand("db-[a:c].x") == ["db-a.x", "db-b.x", "db-c.x"]
    assert expand("r[1:2]-g[0:1]") == ["r1-g0", "r1-g1", "r2-g0", "r2-g1"]
    assert expand("plain.example.com") == ["plain.example.com"]
    with pytest.raises(InputError):
        expand("node[1:999999]")
    with pytest.raises(InputError):
        expand("node[5:1]")


def test_ports_in_host_names() -> None:
    assert split_port("badwolf.example.com:5309") == ("badwolf.example.com", 5309)
    assert split_port("[2001:db8::1]:2222") == ("2001:db8::1", 2222)
    assert split_port("2001:db8::1") == ("2001:db8::1", None)
    assert split_port("node01") == ("node01", None)


def test_groups_children_and_order(inventory: Path) -> None:
    inv = load_inventory(inventory)
    hosts = ["login.example.com", "node01", "node02", "node03", "node04", "node05",
             "h100-a.example.com", "h100-b.example.com", "h100-c.example.com"]
    assert inv.hosts == hosts
    assert inv.members("gpu") == hosts[1:]
    assert inv.members("ungrouped") == ["login.example.com"]
    assert inv.members("staging") == ["node04", "h100-c.example.com"]


def test_variables_child_group_beats_parent_and_host_beats_groups(inventory: Path) -> None:
    inv = load_inventory(inventory)
    # node05: its own port wins over gpu's; the user comes from the parent group gpu
    assert inventory_target(inv, "node05") == Target("node05", "root@10.0.0.5:2222")
    # node01: ansible_host from its line, the port from gpu (22: ssh's default, left out)
    assert inventory_target(inv, "node01") == Target("node01", "root@10.0.0.1")
    # h100: the port in the host key (2200) is the host's own, over gpu_h100's 2201; user ops from the line
    assert inventory_target(inv, "h100-b.example.com") == Target("h100-b.example.com", "ops@h100-b.example.com:2200")
    login = inventory_target(inv, "login.example.com")
    assert login.address in ("login.example.com", "admin@login.example.com")  # INI has no all:vars here


ALL = ["login.example.com", "node04", "h100-c.example.com", "node01", "node02", "node03", "node05",
       "h100-a.example.com", "h100-b.example.com"]


# Each expected list is what `ansible -i FILE PATTERN --list-hosts` (ansible-core 2.19) printed for both files,
# in its order: a group's own hosts, then its children's level by level; groups matched before host names.
@pytest.mark.parametrize(("pattern", "expected"), [
    ("all", ALL),
    ("gpu_a100", ["node01", "node02", "node03", "node04", "node05"]),
    ("gpu:&staging", ["node04", "h100-c.example.com"]),
    ("gpu:!staging", ["node01", "node02", "node03", "node05", "h100-a.example.com", "h100-b.example.com"]),
    ("gpu_a100:!gpu_a100[0:2]", ["node04", "node05"]),
    ("gpu_a100:!node0[1-3]", ["node01", "node02", "node03", "node04", "node05"]),  # a subscript of "node0": none
    ("node0*,login*", ["node01", "node02", "node03", "node04", "node05", "login.example.com"]),
    ("staging:gpu_a100", ["node04", "h100-c.example.com", "node01", "node02", "node03", "node05"]),
    ("gpu_a100[1-2]", ["node02", "node03"]),
    ("gpu_a100[-1]", ["node05"]),
    ("gpu_a100[1:]", ["node02", "node03", "node04", "node05"]),
    ("node01:&gpu:!staging", ["node01"]),
    ("gpu_h*:!h100-c*", ["h100-a.example.com", "h100-b.example.com"]),
    ("~h100-[ab]", ["h100-a.example.com", "h100-b.example.com"]),
    ("gpu_h*", ["h100-a.example.com", "h100-b.example.com", "h100-c.example.com"]),
    ("!staging", [h for h in ALL if h not in ("node04", "h100-c.example.com")]),
    ("nothing-like-this", []),
])
def test_limit_patterns(inventory: Path, pattern: str, expected: list[str]) -> None:
    assert limit(load_inventory(inventory), pattern) == expected


def test_group_vars_and_host_vars_folders(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text("[gpu]\nnode01\nnode02\n")
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "gpu.yml").write_text("ansible_user: ops\nansible_host: 10.1.1.1\n")
    (tmp_path / "host_vars" / "node02").mkdir(parents=True)
    (tmp_path / "host_vars" / "node02" / "net.yaml").write_text("ansible_host: 10.1.1.2\nansible_port: 2022\n")
    inv = load_inventory(tmp_path / "hosts")
    assert inventory_target(inv, "node01").address == "ops@10.1.1.1"
    assert inventory_target(inv, "node02").address == "ops@10.1.1.2:2022"


def test_local_connection_and_ipv6(tmp_path: Path) -> None:
    inv = parse_ini("here ansible_connection=local\nv6 ansible_host=2001:db8::7 ansible_port=2200\n")
    assert inventory_target(inv, "here") == Target("here", None)
    assert inventory_target(inv, "v6").address == "[2001:db8::7]:2200"


def test_a_host_variable_with_shell_syntax_is_refused(tmp_path: Path) -> None:
    inv = parse_ini("evil ansible_host='x;rm -rf /'\n")
    with pytest.raises(UnsafeArgumentError):
        inventory_target(inv, "evil")


@pytest.mark.parametrize("text", [
    "[gpu\nnode01\n",                 # a broken section header
    "[gpu:vars]\nansible_user\n",    # a vars line without =
    "[gpu]\nnode01 ansible_port\n",  # a host variable without =
    "[gpu]\nnode01 'unclosed\n",     # shell-style quoting left open
])
def test_broken_ini_is_one_line_error(text: str) -> None:
    with pytest.raises(InputError) as err:
        parse_ini(text, "hosts.ini")
    assert str(err.value).startswith("hosts.ini:")


@pytest.mark.parametrize("text", ["all: [", "- just\n- a list\n", "plugin: aws_ec2\n", "gpu:\n  hosts: 7\n"])
def test_broken_yaml_is_one_line_error(text: str) -> None:
    with pytest.raises(InputError):
        parse_yaml(text, "hosts.yml")


def test_yaml_is_told_from_ini_without_a_suffix(tmp_path: Path) -> None:
    (tmp_path / "inventory").write_text("---\ngpu:\n  hosts:\n    node01:\n")
    assert load_inventory(tmp_path / "inventory").members("gpu") == ["node01"]


def test_hosts_file(tmp_path: Path) -> None:
    f = tmp_path / "hosts.txt"
    f.write_text("# GPU fleet\nroot@gpu1\n\ngpu2:2222   # the odd one\n  ops@10.0.0.3\n")
    assert [t.address for t in read_hosts_file(str(f))] == ["root@gpu1", "gpu2:2222", "ops@10.0.0.3"]
    f.write_text("gpu1\ngpu2; reboot\n")
    with pytest.raises(UnsafeArgumentError) as err:
        read_hosts_file(str(f))
    assert ":2:" in str(err.value)


def test_ssh_config_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "config"
    (tmp_path / "more").write_text("Host gpu-09\n  HostName 10.0.0.9\n")
    conf.write_text(f"Host gpu-01 gpu-02\n  User root\nHost gpu-*\n  Port 2222\nHost login\nHost=gpu-03\n"
                    f"Include {tmp_path}/more\nMatch host gpu-04\n")
    assert [t.name for t in ssh_config_hosts("gpu-*", conf)] == ["gpu-01", "gpu-02", "gpu-03", "gpu-09"]
    monkeypatch.setenv("CRASHDOC_SSH_OPTIONS", f"-o BatchMode=yes -F {conf}")
    assert ssh_config_path() == conf
    with pytest.raises(InputError):
        ssh_config_hosts("db-*", conf)


def test_targets_from_every_option_in_order_each_once(tmp_path: Path) -> None:
    (tmp_path / "hosts.txt").write_text("gpu1\ngpu2\n")
    (tmp_path / "inv.ini").write_text("[gpu]\ngpu2\ngpu3 ansible_host=10.0.0.3\n")
    got = collect_targets(["gpu0", "gpu1"], str(tmp_path / "hosts.txt"), str(tmp_path / "inv.ini"), "gpu")
    assert [(t.name, t.address) for t in got] == [("gpu0", "gpu0"), ("gpu1", "gpu1"), ("gpu2", "gpu2"),
                                                   ("gpu3", "10.0.0.3")]
    with pytest.raises(InputError):
        collect_targets(pattern="gpu")  # --limit without --inventory
    with pytest.raises(InputError) as err:
        collect_targets(inventory=str(tmp_path / "inv.ini"), pattern="db")
    assert "groups: gpu" in str(err.value)
