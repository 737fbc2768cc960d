"""Objects of custom resource kinds whose fields are not all under ``spec``, and Helm releases of OCI charts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes import _utilities

from gpu_cloud.components.versions import HelmChart

__all__ = ["custom_object", "oci_release"]


def custom_object(resource_name: str, body: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """Register ``body`` (``apiVersion``, ``kind``, ``metadata`` and any top-level fields) as it is sent to the API.

    ``pulumi_kubernetes.apiextensions.CustomResource`` in Python takes only ``spec``, but Kueue's
    WorkloadPriorityClass has top-level ``value`` and ``description``; the Kubernetes provider takes any object whose
    type token is ``kubernetes:<apiVersion>:<kind>`` (how that class registers its objects too).
    """
    token = f"kubernetes:{body['apiVersion']}:{body['kind']}"
    version = pulumi.ResourceOptions(version=_utilities.get_version())  # type: ignore[no-untyped-call]
    return pulumi.CustomResource(token, resource_name, dict(body), pulumi.ResourceOptions.merge(opts, version))


def oci_release(
    parent: pulumi.Resource,
    name: str,
    chart: HelmChart,
    namespace: pulumi.Input[str],
    values: Mapping[str, Any],
    depends_on: list[pulumi.Resource],
    **options: Any,
) -> k8s.helm.v3.Release:
    """The Helm release ``<name>-<chart>`` of ``chart`` from its OCI registry (``<repo>/<chart>`` at the pinned
    version), a child of ``parent`` that waits for ``depends_on``; ``options`` are more ``ReleaseArgs``."""
    return k8s.helm.v3.Release(
        f"{name}-{chart.name}",
        k8s.helm.v3.ReleaseArgs(
            name=chart.name,
            chart=f"{chart.repo}/{chart.name}",
            version=chart.version,
            namespace=namespace,
            values=dict(values),
            **options,
        ),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on),
    )
