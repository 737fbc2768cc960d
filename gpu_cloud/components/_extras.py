"""The optional dependencies per cloud: ``gpu-cloud[aws]`` and ``gpu-cloud[alicloud]``."""

from __future__ import annotations

__all__ = ["missing_extra"]


def missing_extra(cloud: str, sdk: str, err: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error for importing ``gpu_cloud.components.<cloud>`` without its provider SDK: it names the extra.

    Any other missing module (``err`` is not about ``sdk`` itself) is returned unchanged.
    """
    if err.name != sdk:
        return err
    return ModuleNotFoundError(
        f"gpu_cloud.components.{cloud} needs the {sdk} package, which is not installed: "
        f"install gpu-cloud with the '{cloud}' extra (pip install 'gpu-cloud[{cloud}]')",
        name=sdk,
    )
