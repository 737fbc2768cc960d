"""gpu-sharing-isolation: production inference does not share GPUs with nothing isolating the pods that share them.

Advisory (set it ``mandatory`` in the policy config to block). A pool shares its GPUs without isolation when:

- **NVIDIA time-slicing**: the NVIDIA device plugin config its nodes use has ``sharing.timeSlicing`` replicas above 1.
  "nothing special is done to isolate workloads that are granted replicas from the same underlying GPU, and each
  workload has access to the GPU memory and runs in the same fault-domain as of all the others" (NVIDIA/
  k8s-device-plugin v0.20.0 README.md:367-371; MPS, which partitions memory and compute, :373-376, is not flagged).
  The config of a node is the device plugin release's ``config.map`` entry named by the node label
  ``nvidia.com/device-plugin.config``, else ``config.default`` (values of chart nvidia-device-plugin).
- **ACK GPU sharing without isolation**: node label ``ack.node.gpu.schedule`` ``share``: "Shared computing power and
  GPU memory with no isolation" (ACK, "Enable scheduling features", alibabacloud.com/help/en/container-service-for-
  kubernetes/latest/labels-used-by-ack-to-control-gpus, updated 2025-11-18, read 2026-12-03); ``cgpu``, ``core_mem``
  and ``mps`` isolate GPU memory and are not flagged.

Production inference: a serving workload (Deployment, StatefulSet, LeaderWorkerSet) requesting GPUs in a stack of
``prodStacks`` (by default protect-stateful's). The finding is on the workload, naming the shared pools its pods may
land on (``gpu_fleet``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Final

import yaml

from .gpu_fleet import (
    AWS_LAUNCH_TEMPLATE,
    POOL_TYPES,
    SERVING_KINDS,
    Pool,
    in_stacks,
    pod_templates,
    pools,
    scope_of,
    selects,
)
from .helm import RELEASE_TYPES, chart_name
from .protect_stateful import DEFAULT_PROTECTED_STACKS
from .rule import Config, Stack, StackResource, StackRule, string_list
from .values import Undecided, as_object, as_text, entries, is_unknown

__all__ = ["RULE", "check", "sharing_without_isolation"]

DEVICE_PLUGIN_CHART: Final = "nvidia-device-plugin"
DEVICE_PLUGIN_CONFIG_LABEL: Final = "nvidia.com/device-plugin.config"
ACK_SCHEDULE_LABEL: Final = "ack.node.gpu.schedule"
ACK_SHARED_WITHOUT_ISOLATION: Final = "share"


def _time_sliced(config_text: object, path: str) -> bool:
    if is_unknown(config_text):
        raise Undecided(path)
    try:
        config = yaml.safe_load(str(config_text or "")) or {}
    except yaml.YAMLError:
        raise Undecided(path, "is not a device plugin config (YAML)") from None
    sharing = as_object(as_object(config, path).get("sharing"), f"{path}.sharing")
    time_slicing = as_object(sharing.get("timeSlicing"), f"{path}.sharing.timeSlicing")
    return any(
        int(as_object(r, p).get("replicas") or 0) > 1
        for p, r in entries(time_slicing.get("resources"), f"{path}.sharing.timeSlicing.resources")
    )


def _plugin_configs(stack: Stack) -> list[tuple[Any, Mapping[str, Any], Any]]:
    """(node scope, config map, default config name) of every NVIDIA device plugin release of the stack."""
    found = []
    for release in stack.of_type(*RELEASE_TYPES):
        if chart_name(release.props) != DEVICE_PLUGIN_CHART:
            continue
        values = as_object(release.props.get("values"), "values")
        config = as_object(values.get("config"), "values.config")
        configs = as_object(config.get("map"), "values.config.map")
        found.append((scope_of(values, "values"), configs, config.get("default")))
    return found


def sharing_without_isolation(pool: Pool, stack: Stack) -> str | None:
    """Why ``pool`` shares GPUs without isolation, or None."""
    if pool.labels.get(ACK_SCHEDULE_LABEL) == ACK_SHARED_WITHOUT_ISOLATION:
        return f"ACK GPU sharing without isolation ({ACK_SCHEDULE_LABEL}={ACK_SHARED_WITHOUT_ISOLATION})"
    for scope, configs, default in stack.shared("gpu_sharing.plugins", partial(_plugin_configs, stack)):
        if not selects(scope, pool.labels):
            continue
        name = pool.labels.get(DEVICE_PLUGIN_CONFIG_LABEL) or as_text(default, "values.config.default")
        if name is not None and name in configs and _time_sliced(configs[name], f"values.config.map[{name}]"):
            return f"NVIDIA time-slicing (device plugin config {name})"
    return None


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Advisory messages of ``gpu-sharing-isolation`` for one serving workload (pools, releases: none)."""
    if resource.type not in SERVING_KINDS or not in_stacks(stack.name, config["prodStacks"]):
        return []
    findings = []
    for template in pod_templates(resource):
        if not template.gpu:
            continue
        shared = {
            pool.name: why
            for pool in pools(stack)
            if template.may_land_on(pool) and (why := sharing_without_isolation(pool, stack)) is not None
        }
        if shared:
            named = "; ".join(f"{name}: {why}" for name, why in sorted(shared.items()))
            findings.append(
                f"production GPU inference may run on GPUs shared with no isolation between the pods sharing them "
                f"({named}): one pod can exhaust the GPU's memory or crash the others; use whole GPUs, MIG, MPS or "
                "ACK cgpu/core_mem for it"
            )
    return findings


RULE = StackRule(
    name="gpu-sharing-isolation",
    description="Production GPU inference must not run on GPUs shared without isolation (time-slicing, ACK share).",
    level="advisory",
    resource_types=frozenset({*POOL_TYPES, AWS_LAUNCH_TEMPLATE, *SERVING_KINDS, *RELEASE_TYPES}),
    check=check,
    config={"prodStacks": string_list(DEFAULT_PROTECTED_STACKS, "Stacks whose GPU inference is production inference.")},
)
