"""The gpucloud component provider's entry point: Pulumi's Python component host serving gpu-cloud's components
(gpu_cloud.provider.hosted_components), under the package name ``gpucloud`` and gpu-cloud's version."""

from pulumi.provider.experimental import component_provider_host

import gpu_cloud
from gpu_cloud.provider import PACKAGE, hosted_components

if __name__ == "__main__":
    component_provider_host(components=hosted_components(), name=PACKAGE, version=gpu_cloud.__version__)
