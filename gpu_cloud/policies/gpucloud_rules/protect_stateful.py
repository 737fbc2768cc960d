"""protect-stateful: keys and buckets are protected, and keys keep a 30-day deletion window.

Mandatory in the stacks named in ``protectedStacks``, advisory elsewhere: the policy is registered as
mandatory and marks its findings advisory outside those stacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from .rule import Config, Stack, StackResource, StackRule, string_list
from .values import Findings, as_number

__all__ = ["RULE", "check"]

# Per stateful type: its deletion-window input, with the value the cloud uses when unset (None: the
# input must be set). AWS KMS defaults to 30 days (KMS API ScheduleKeyDeletion / aws_kms_key docs);
# the Alibaba provider documents no default for pendingWindowInDays.
STATEFUL: Mapping[str, tuple[str, float | None] | None] = {
    "aws:kms/key:Key": ("deletionWindowInDays", 30.0),
    "alicloud:kms/key:Key": ("pendingWindowInDays", None),
    "aws:s3/bucket:Bucket": None,
    "alicloud:oss/bucket:Bucket": None,
}
MIN_DELETION_WINDOW_DAYS = 30.0
DEFAULT_PROTECTED_STACKS = ["prod", "prod-cn"]


def _unprotected(resource: StackResource) -> bool:
    return not resource.protect


def _window_problem(resource: StackResource, key: str, default: float | None) -> str | None:
    days = as_number(resource.props.get(key), key)
    days = default if days is None else days
    if days is None or days < MIN_DELETION_WINDOW_DAYS:
        got = "unset" if days is None else f"{days:g}"
        return f"{key} must be at least {MIN_DELETION_WINDOW_DAYS:g} days (got {got})"
    return None


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``protect-stateful`` for one stateful resource."""
    del stack, config
    messages = Findings()
    messages.check(partial(_unprotected, resource), "stateful resource is not protected: set protect")
    window = STATEFUL[resource.type]
    if window is not None:
        messages.explain(partial(_window_problem, resource, *window))
    return messages.messages


def advisory_in(stack: str, config: Config) -> bool:
    """Whether the policy is advisory in ``stack``: a named stack not in ``protectedStacks``."""
    return bool(stack) and stack not in config["protectedStacks"]


RULE = StackRule(
    name="protect-stateful",
    description="KMS keys and buckets must be protected; KMS keys keep a deletion window of 30 days or more.",
    level="mandatory",
    resource_types=frozenset(STATEFUL),
    check=check,
    advisory_in=advisory_in,
    config={
        "protectedStacks": string_list(
            DEFAULT_PROTECTED_STACKS, "Stacks where this policy is mandatory; elsewhere it is advisory."
        )
    },
)
