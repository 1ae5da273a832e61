"""Fleets: the same diagnosis on many hosts at once (`--host` repeated, `--hosts FILE`, an Ansible inventory
with `--limit`, or the `Host` aliases of the user's ssh config), grouped by root cause."""

from crashdoc.fleet.group import CauseGroup, cause_title, compact_hosts, groups
from crashdoc.fleet.inventory import Inventory
from crashdoc.fleet.inventory_files import load_inventory
from crashdoc.fleet.jobs import DiagnoseJob
from crashdoc.fleet.pool import DEFAULT_FORKS, DEFAULT_TIMEOUT, FleetResult, HostResult, diagnose_fleet, exit_status
from crashdoc.fleet.targets import (
    Target,
    collect_targets,
    inventory_targets,
    read_hosts_file,
    ssh_config_hosts,
    target,
)

__all__ = [
    "CauseGroup",
    "DEFAULT_FORKS",
    "DEFAULT_TIMEOUT",
    "DiagnoseJob",
    "FleetResult",
    "HostResult",
    "Inventory",
    "Target",
    "cause_title",
    "collect_targets",
    "compact_hosts",
    "diagnose_fleet",
    "exit_status",
    "groups",
    "inventory_targets",
    "load_inventory",
    "read_hosts_file",
    "ssh_config_hosts",
    "target",
]
