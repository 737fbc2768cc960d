"""The rehearsal's model of the world docs/deploy.md acts on: Pulumi backends and their stacks, the cloud parameters
an account's bootstrap published, the objects in buckets, the builds, the quota requests.

The stub commands (tests/lifecycle/stub.py) read and write it as one JSON file; each `pulumi up` adds the stack's
planned resources and outputs to the backend it ran in, exactly as the Pulumi CLI would keep them there.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the stub commands import this module; only `pulumi up` needs the planner
    from gpu_cloud.planner.model import RecordedResource
    from gpu_cloud.planner.offline import OfflineAnswers

UNKNOWN = "[unknown]"
"""How a value only the cloud knows reads in a plan (gpucloud.wire)."""
DEPLOYED = ("Pulumi.yaml", "stacks")
"""What of a checkout a build or runner run of an environment reads from its source archive: the project and the
stacks' config (with the pack's config). The bootstrap's own config stays on the workstation."""


def deployed_files(checkout: Path) -> dict[str, str]:
    """:data:`DEPLOYED` in ``checkout``: relative path -> sha256 of its content."""
    paths = [checkout / "Pulumi.yaml", *sorted((checkout / "stacks").rglob("*"))]
    return {
        str(path.relative_to(checkout)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in paths
        if path.is_file() and "__pycache__" not in path.parts
    }


@dataclass
class World:
    """Everything the sequence changed so far."""

    backends: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Backend URL -> qualified stack name -> {"outputs", "resources", "config_file"} (resources once it was up)."""
    parameters: dict[str, dict[str, str]] = field(default_factory=dict)
    """``<cloud>:<region>`` -> parameter name -> value, as the bootstrap's `up` published them."""
    objects: dict[str, list[str]] = field(default_factory=dict)
    """``<bucket>/<key>`` -> its object versions, oldest first."""
    builds: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Build id -> {"project", "status", "reason"}."""
    quota_requests: dict[str, int] = field(default_factory=dict)
    """``<service>/<quota code>/<region>`` -> the value requested."""
    logins: dict[str, str] = field(default_factory=dict)
    """Machine (``workstation``, a build) -> the backend URL it is logged in to."""
    selected: dict[str, str] = field(default_factory=dict)
    """``<machine>:<project dir>`` -> the selected stack."""
    committed: dict[str, str] = field(default_factory=dict)
    """What HEAD holds of the files a build of an environment reads (:data:`DEPLOYED`): checkout-relative path ->
    sha256 of its committed content (``git archive HEAD`` packs these, not the checkout's changes)."""
    log: list[str] = field(default_factory=list)
    """What happened, in order (for messages)."""

    @classmethod
    def load(cls, path: Path) -> World:
        return cls(**json.loads(path.read_text())) if path.is_file() else cls()

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1, sort_keys=True))

    def stack(self, qualified: str) -> tuple[str, dict[str, Any]] | None:
        """The backend holding ``qualified`` and its record, or None."""
        for url, stacks in self.backends.items():
            if qualified in stacks:
                return url, stacks[qualified]
        return None

    def answers(self) -> OfflineAnswers:
        """What a program may read, as the Pulumi CLI and the clouds would answer it now."""
        from gpu_cloud.planner.offline import OfflineAnswers

        return OfflineAnswers(
            source="the rehearsed sequence",
            backends={
                url: {name: record.get("outputs", {}) for name, record in stacks.items()}
                for url, stacks in self.backends.items()
            },
            parameters={
                tuple(key.split(":", 1)): dict(values)  # type: ignore[misc]
                for key, values in self.parameters.items()
            },
        )


def qualified(project: str, stack: str) -> str:
    """A stack's name as a self-managed backend holds it (``organization/<project>/<stack>``: every stack of a DIY
    backend is in the organization ``organization``, gpu_cloud.planner.offline.ORGANIZATION)."""
    return stack if stack.count("/") == 2 else f"organization/{project}/{stack}"


def to_record(resource: RecordedResource) -> dict[str, Any]:
    """A recorded resource as JSON (without its wire form)."""
    data = asdict(resource)
    data.pop("properties")
    data["property_dependencies"] = {k: list(v) for k, v in resource.property_dependencies.items()}
    return data


def provider_regions(resources: list[dict[str, Any]]) -> dict[str, str]:
    """Provider reference (``urn::id``) prefix, by URN -> the region it deploys to."""
    return {
        r["urn"]: r["inputs"]["region"]
        for r in resources
        if r["type"].startswith("pulumi:providers:") and isinstance(r["inputs"].get("region"), str)
    }


def region_of(resource: dict[str, Any], regions: dict[str, str], default: str) -> str:
    """The region a resource is created in: its provider's, else the stack's."""
    return regions.get(resource["provider"].rsplit("::", 1)[0], default) if resource["provider"] else default
