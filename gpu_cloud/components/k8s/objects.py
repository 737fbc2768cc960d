"""Objects of custom resource kinds whose fields are not all under ``spec``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi_kubernetes import _utilities

__all__ = ["custom_object"]


def custom_object(resource_name: str, body: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """Register ``body`` (``apiVersion``, ``kind``, ``metadata`` and any top-level fields) as it is sent to the API.

    ``pulumi_kubernetes.apiextensions.CustomResource`` in Python takes only ``spec``, but Kueue's
    WorkloadPriorityClass has top-level ``value`` and ``description``; the Kubernetes provider takes any object whose
    type token is ``kubernetes:<apiVersion>:<kind>`` (how that class registers its objects too).
    """
    token = f"kubernetes:{body['apiVersion']}:{body['kind']}"
    version = pulumi.ResourceOptions(version=_utilities.get_version())  # type: ignore[no-untyped-call]
    return pulumi.CustomResource(token, resource_name, dict(body), pulumi.ResourceOptions.merge(opts, version))
