"""gpu-allocator-exclusive: the NVIDIA device plugin and a DRA GPU driver never allocate the GPUs of the same nodes.

"When using the NVIDIA DRA driver for GPU device management, do not deploy it alongside the NVIDIA device plugin on
the same node. Doing so can cause silent oversubscription of the underlying devices to multiple pods on the same
node." (EKS User Guide, device-management-nvidia-dra-device-plugin.adoc, awsdocs/amazon-eks-user-guide@43d79bdb, read
2026-12-03; the DRA chart itself refuses GPU allocation unless told the device plugin is off: NVIDIA/k8s-dra-driver-gpu
v0.4.0 deployments/helm/dra-driver-nvidia-gpu/templates/validation.yaml.)

Where each allocator runs (``gpu_fleet`` node scopes):

- **Device plugin**: a Helm release of chart ``nvidia-device-plugin`` (its ``nodeSelector`` and ``affinity`` values;
  unset, the chart's default affinity: every GPU node), of chart ``gpu-operator`` unless ``devicePlugin.enabled`` is
  false (every node not labelled ``nvidia.com/gpu.deploy.device-plugin=false``), a DaemonSet running an image of
  ``k8s-device-plugin``, and every EKS node group of a Bottlerocket NVIDIA AMI type, whose AMI runs the plugin unless
  its launch template's user data sets ``[settings.kubelet-device-plugins.nvidia] enabled = false`` (the same page).
- **DRA GPU driver**: a Helm release of chart ``dra-driver-nvidia-gpu`` (``nvidia-dra-driver-gpu`` before it moved to
  registry.k8s.io) whose values allocate GPUs: ``resources.gpus.enabled`` not false (its default is true) and
  ``gpuResourcesEnabledOverride`` true, without which the chart refuses to render (values.yaml and validation.yaml at
  v0.4.0); its kubelet plugin runs where ``kubeletPlugin.nodeSelector`` and ``kubeletPlugin.affinity`` say (unset: the
  chart's default affinity, every NVIDIA GPU node).

They overlap on a GPU pool of the stack both may select; in a stack without pools, unless their scopes are provably
disjoint (a label both constrain to values no node can have at once). The finding is on the DRA driver.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from functools import partial
from typing import Final

from .gpu_fleet import (
    AWS_LAUNCH_TEMPLATE,
    AWS_NODE_GROUP,
    POOL_TYPES,
    Pool,
    Requirement,
    Scope,
    pools,
    scope_of,
    selects,
)
from .helm import RELEASE_TYPES, chart_name
from .rule import Config, Stack, StackResource, StackRule
from .values import Undecided, as_bool, as_object, as_text, entries, is_unknown

__all__ = ["RULE", "check", "disjoint"]

DAEMON_SET: Final = "kubernetes:apps/v1:DaemonSet"
DEVICE_PLUGIN_CHARTS: Final = ("nvidia-device-plugin",)
GPU_OPERATOR_CHART: Final = "gpu-operator"
DRA_CHARTS: Final = ("dra-driver-nvidia-gpu", "nvidia-dra-driver-gpu")
DEVICE_PLUGIN_IMAGE: Final = "k8s-device-plugin"
GPU_OPERATOR_PLUGIN_LABEL: Final = "nvidia.com/gpu.deploy.device-plugin"
_BOTTLEROCKET_PLUGIN_OFF: Final = re.compile(
    r"\[settings\.kubelet-device-plugins\.nvidia\][^\[]*?\benabled\s*=\s*false\b", re.DOTALL
)


def _device_plugins(stack: Stack) -> list[tuple[str, Scope]]:
    """(name, node scope) of every device plugin the stack deploys, Bottlerocket node groups excluded."""
    found: list[tuple[str, Scope]] = []
    for release in stack.of_type(*RELEASE_TYPES):
        chart = chart_name(release.props)
        values = as_object(release.props.get("values"), "values")
        if chart in DEVICE_PLUGIN_CHARTS:
            found.append((f"release {_name(release)}", scope_of(values, "values")))
        elif chart == GPU_OPERATOR_CHART:
            plugin = as_object(values.get("devicePlugin"), "values.devicePlugin")
            if as_bool(plugin.get("enabled"), "values.devicePlugin.enabled") is not False:
                found.append(
                    (f"release {_name(release)}", ((Requirement(GPU_OPERATOR_PLUGIN_LABEL, "NotIn", ("false",)),),))
                )
    for daemon_set in stack.of_type(DAEMON_SET):
        spec = as_object(as_object(daemon_set.props.get("spec"), "spec").get("template"), "spec.template")
        pod = as_object(spec.get("spec"), "spec.template.spec")
        images = [
            as_text(as_object(c, p).get("image"), f"{p}.image") or ""
            for p, c in entries(pod.get("containers"), "spec.template.spec.containers")
        ]
        if any(DEVICE_PLUGIN_IMAGE in image for image in images):
            found.append((f"DaemonSet {_name(daemon_set)}", scope_of(pod, "spec.template.spec")))
    return found


def _dra_scope(resource: StackResource) -> Scope | None:
    """The node scope of a DRA driver release that allocates GPUs; None (no GPU allocation) otherwise."""
    if resource.type not in RELEASE_TYPES or chart_name(resource.props) not in DRA_CHARTS:
        raise _NotDra
    values = as_object(resource.props.get("values"), "values")
    gpus = as_object(as_object(values.get("resources"), "values.resources").get("gpus"), "values.resources.gpus")
    enabled = as_bool(gpus.get("enabled"), "values.resources.gpus.enabled") is not False
    override = as_bool(values.get("gpuResourcesEnabledOverride"), "values.gpuResourcesEnabledOverride") is True
    if not (enabled and override):
        raise _NotDra
    return scope_of(as_object(values.get("kubeletPlugin"), "values.kubeletPlugin"), "values.kubeletPlugin")


class _NotDra(Exception):
    """The resource is no DRA driver that allocates GPUs."""


def _bottlerocket_plugin(pool: Pool) -> bool:
    """Whether a Bottlerocket NVIDIA node group runs the AMI's own device plugin (not turned off in its user data)."""
    ami = (as_text(pool.resource.props.get("amiType"), "amiType") or "").upper()
    if pool.resource.type != AWS_NODE_GROUP or not (ami.startswith("BOTTLEROCKET") and "NVIDIA" in ami):
        return False
    user_data = (pool.launch_template or {}).get("userData")
    if user_data is None:
        return True
    if is_unknown(user_data):
        raise Undecided("launchTemplate userData")
    try:
        text = base64.b64decode(str(user_data), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        text = str(user_data)
    return _BOTTLEROCKET_PLUGIN_OFF.search(text) is None


def disjoint(first: Scope, second: Scope) -> bool:
    """Whether no node can be in both scopes: every pair of terms constrains one label to values no node has at once."""
    if first is None or second is None:
        return False
    return all(_terms_conflict(a, b) for a in first for b in second)


def _terms_conflict(first: tuple[Requirement, ...], second: tuple[Requirement, ...]) -> bool:
    return any(_conflict(a, b) or _conflict(b, a) for a in first for b in second if a.key == b.key)


def _conflict(a: Requirement, b: Requirement) -> bool:
    if a.operator == "In" and b.operator == "In":
        return not set(a.values) & set(b.values)
    if a.operator == "In" and b.operator == "NotIn":
        return set(a.values) <= set(b.values)
    return a.operator in ("In", "Exists") and b.operator == "DoesNotExist"


def _overlap(scope: Scope, stack: Stack) -> Iterator[str]:
    plugins = stack.shared("gpu_allocator.plugins", partial(_device_plugins, stack))
    gpu_pools = [pool for pool in pools(stack) if pool.gpu]
    if not gpu_pools:
        yield from (name for name, plugin in plugins if not disjoint(scope, plugin))
        return
    for pool in gpu_pools:
        if not selects(scope, pool.labels):
            continue
        for name, plugin in plugins:
            if selects(plugin, pool.labels):
                yield f"pool {pool.name}: {name}"
        if _bottlerocket_plugin(pool):
            yield f"pool {pool.name}: its Bottlerocket NVIDIA AMI's own device plugin"


def _name(resource: StackResource) -> str:
    return resource.urn.rsplit("::", 1)[-1]


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``gpu-allocator-exclusive`` for one DRA GPU driver release (others: none)."""
    del config
    try:
        scope = _dra_scope(resource)
    except _NotDra:
        return []
    overlaps = sorted(set(_overlap(scope, stack)))
    if not overlaps:
        return []
    return [
        "the DRA GPU driver may allocate GPUs on nodes where the NVIDIA device plugin also does ("
        + "; ".join(overlaps)
        + "): the two silently oversubscribe the same GPUs; keep them on disjoint node pools (nodeSelector or "
        "affinity of each)"
    ]


RULE = StackRule(
    name="gpu-allocator-exclusive",
    description="The NVIDIA device plugin and a DRA GPU driver must not allocate the GPUs of the same nodes.",
    level="mandatory",
    resource_types=frozenset({*POOL_TYPES, AWS_LAUNCH_TEMPLATE, *RELEASE_TYPES, DAEMON_SET}),
    check=check,
)
