"""custom_object registers an object of a custom resource kind with the Kubernetes plugin version the installed SDK
asks for, read from the SDK's published pulumi-plugin.json."""

from __future__ import annotations

import importlib.metadata
import re

from gpu_cloud.components.k8s.objects import KUBERNETES_PLUGIN_VERSION


def test_the_plugin_version_is_the_installed_sdks_release() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", KUBERNETES_PLUGIN_VERSION)
    assert importlib.metadata.version("pulumi-kubernetes") == KUBERNETES_PLUGIN_VERSION
