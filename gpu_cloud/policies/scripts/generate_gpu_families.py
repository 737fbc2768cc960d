"""Regenerate ``gpucloud_rules/gpu_families.json``: the EC2 instance families with NVIDIA GPUs.

gpu-node-isolation (and every rule that asks whether a pool runs GPU nodes) reads this file; the pack stands on
pulumi-policy and the standard library alone, so it cannot ask botocore or the catalog itself.

Where the families come from:

- **Which families EC2 has**: every ``InstanceType`` name of botocore's EC2 service model (the names EC2's API
  accepts), as ``gpu_cloud/components/ec2_facts.json`` holds them (tests/components/test_cloud_limits.py compares
  them with the installed botocore), reduced to its family, the part before the ``.`` (``p6e-gb200.36xlarge`` ->
  ``p6e-gb200``).
- **Which of them have GPUs**: the families of the GPU series, ``p`` (GPU accelerated), ``g`` and ``gr`` (graphics)
  and the retired ``cg`` (cluster GPU), `GPU_SERIES`. Every such family must be classified, or this script fails: a new
  EC2 family (botocore upgraded) cannot slip past gpu-node-isolation unclassified.
- **Whose GPUs**: the catalog's ``gpu_model`` where the catalog has the family (``gpu_cloud/components/
  catalog_data.json``, sourced there), else `ACCELERATORS` below, each with the material it was read from.

``tests/policies/test_gpu_families.py`` fails when the committed file differs from what this script writes with the
catalog and ec2_facts.json, and checks every GPU instance type of the installed botocore's model against the rule.

Usage: python gpu_cloud/policies/scripts/generate_gpu_families.py
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, Final

from gpu_cloud.components import catalog

OUTPUT = Path(__file__).resolve().parent.parent / "gpucloud_rules" / "gpu_families.json"
READ_ON: Final = "2026-12-03"

GPU_SERIES: Final = re.compile(r"^(p|g|gr|cg)[0-9]")
"""EC2 family names of the series with GPUs: P, G, Gr and Cg. Other accelerated series carry no GPU: Inf and Trn (AWS
Inferentia and Trainium), DL (Gaudi, Qualcomm AI 100), F (FPGA), VT (video transcoding)."""

_KARPENTER: Final = (
    "https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/website/content/en/docs/"
    "reference/instance-types.md"
)
_BOTOCORE_CHANGES: Final = (
    "https://github.com/boto/botocore/blob/0e6e2404b85dc336dd2889814e089bde7d1a4c55/CHANGELOG.rst"
)
_EC2_PREVIOUS: Final = "https://docs.aws.amazon.com/ec2/latest/instancetypes/pg.html"


def _karpenter(line: int, gpu: str) -> str:
    return f"{_KARPENTER}:{line} (karpenter.k8s.aws/instance-gpu-manufacturer, instance-gpu-name {gpu})"


ACCELERATORS: Final[dict[str, tuple[str, str]]] = {
    # family: (GPU, where it was read). Karpenter's instance type reference is generated from EC2's
    # DescribeInstanceTypes (its GpuInfo: manufacturer and name) for every type its snapshot of 2026-08-21 lists; the
    # families it does not list are previous-generation ones and P6e-GB200, read from the EC2 guide and botocore's
    # changelog of the ec2 API change that added them.
    "g4ad": ("AMD Radeon Pro V520", _karpenter(9896, "radeon-pro-v520")),
    "g6f": ("NVIDIA L4 (fractional)", _karpenter(11343, "l4")),
    "g7": ("NVIDIA RTX PRO 4500 Blackwell", _karpenter(11476, "rtx-pro-4500")),
    "g7e": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", _karpenter(11685, "rtx-pro-server-6000")),
    "gr6": ("NVIDIA L4", _karpenter(11894, "l4")),
    "gr6f": ("NVIDIA L4 (fractional)", _karpenter(11964, "l4")),
    "p3dn": ("NVIDIA V100", _karpenter(25959, "v100")),
    "p5e": ("NVIDIA H200", _karpenter(26138, "h200")),
    "p5en": ("NVIDIA H200", _karpenter(26174, "h200")),
    "p6-b200": ("NVIDIA B200", _karpenter(26210, "b200")),
    "p6-b300": ("NVIDIA B300", _karpenter(26246, "b300")),
    "p6e-gb200": ("NVIDIA GB200", f"{_BOTOCORE_CHANGES}:3708 (P6e-GB200 instance types), :3784 (UltraServers)"),
    "cg1": ("NVIDIA Tesla M2050", f"{_EC2_PREVIOUS} (previous generation: Cluster GPU)"),
    "g2": ("NVIDIA GRID K520", f"{_EC2_PREVIOUS} (previous generation)"),
    "g3": ("NVIDIA Tesla M60", f"{_EC2_PREVIOUS} (previous generation)"),
    "g3s": ("NVIDIA Tesla M60", f"{_EC2_PREVIOUS} (previous generation)"),
    "p2": ("NVIDIA K80", f"{_EC2_PREVIOUS} (previous generation)"),
    "p3": ("NVIDIA V100", f"{_EC2_PREVIOUS} (previous generation)"),
}
"""GPU families the catalog does not describe: family -> (GPU, source), read 2026-12-03."""


def _ec2_facts() -> dict[str, Any]:
    facts: dict[str, Any] = json.loads(resources.files(catalog.__package__).joinpath("ec2_facts.json").read_text())
    return facts


def _ec2_families() -> list[str]:
    return sorted({name.split(".", 1)[0] for name in _ec2_facts()["instance_types"]["names"]})


def classified() -> dict[str, tuple[str, str]]:
    """Every GPU-series family of botocore's model -> (GPU, source).

    Raises:
        SystemExit: a GPU-series family neither the catalog nor `ACCELERATORS` classifies.
    """
    from_catalog = {
        t.family: (t.gpu_model, f"the catalog (gpu_cloud/components/catalog_data.json): {t.source.url}")
        for t in catalog.instance_types(catalog.Cloud.AWS)
    }
    found: dict[str, tuple[str, str]] = {}
    missing = []
    for family in _ec2_families():
        if GPU_SERIES.match(family):
            entry = from_catalog.get(family) or ACCELERATORS.get(family)
            if entry is None:
                missing.append(family)
            else:
                found[family] = entry
    if missing:
        raise SystemExit(f"classify the GPU of these EC2 families in ACCELERATORS: {', '.join(missing)}")
    return found


def document() -> dict[str, Any]:
    """The file's content."""
    families = classified()
    return {
        "comment": "EC2 instance families with GPUs, written by gpu_cloud/policies/scripts/generate_gpu_families.py "
        "from botocore's EC2 model (every InstanceType EC2 lists) and the GPU of each family of the GPU series "
        "(p, g, gr, cg). gpu-node-isolation treats a type whose family is in nvidia as a GPU type.",
        "source": _ec2_facts()["instance_types"]["source"],
        "nvidia": {family: gpu for family, (gpu, _) in families.items() if gpu.startswith("NVIDIA")},
        "other": {family: gpu for family, (gpu, _) in families.items() if not gpu.startswith("NVIDIA")},
        "sources": {family: source for family, (_, source) in families.items()},
    }


def render() -> str:
    """The file's text."""
    return json.dumps(document(), indent=1, sort_keys=False) + "\n"


def main() -> None:
    """Write the file."""
    OUTPUT.write_text(render(), encoding="utf-8")
    print(f"{OUTPUT}: written")


if __name__ == "__main__":
    main()
