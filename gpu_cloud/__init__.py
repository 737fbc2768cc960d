"""gpu-cloud: Pulumi components, a policy pack and an offline planner for GPU clusters on AWS and Alibaba Cloud.

- ``gpu_cloud.components``: the reusable components (``gpu_cloud.components.aws``, ``.alicloud``, ``.k8s``);
- ``gpu_cloud.policies``: the Pulumi policy pack (``gpucloud policy-path`` prints its folder);
- ``gpu_cloud.planner``: ``gpucloud plan``, the offline engine.
"""

from importlib import metadata

try:
    __version__ = metadata.version("gpu-cloud")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout that was never installed
    __version__ = "0+unknown"
