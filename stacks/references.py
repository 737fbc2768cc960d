"""The facts an environment reads from other stacks (``pulumi.StackReference``), checked where they are read.

The other stack's outputs are known only once the reference resolves, so their checks run in an apply. A missing or
malformed output is a config error naming the field of this stack's config that names the other stack, not a
KeyError or IndexError from inside the SDK. One reference per stack: two would register one URN twice.
"""

import functools

import pulumi

from gpu_cloud.components.spec import Problem, StackConfig, config_error


class StackReferences:
    """The facts this stack reads from other stacks, one ``pulumi.StackReference`` per stack (made per program run:
    a reference belongs to the run that made it)."""

    def __init__(self) -> None:
        self._stacks: dict[str, pulumi.StackReference] = {}

    def _stack(self, name: str) -> pulumi.StackReference:
        if name not in self._stacks:
            self._stacks[name] = pulumi.StackReference(name)
        return self._stacks[name]

    def runner(self, config: StackConfig) -> tuple[pulumi.Output[str], list[pulumi.Output[str]]]:
        """The deploy runner's VPC id and route table ids (``deploy.runnerRouteTableCount`` of them), which its
        bootstrap stack exports as runnerVpcId and runnerRouteTableIds."""
        stack = config.deploy.runner_stack
        count = config.deploy.runner_route_table_count
        vpc_id = text(self._stack(stack), stack, "runnerVpcId", "deploy.runnerStack")
        return vpc_id, ids(self._stack(stack), stack, "runnerRouteTableIds", count, "deploy.runnerRouteTableCount")

    def peer(self, config: StackConfig) -> tuple[pulumi.Output[str] | None, list[pulumi.Output[str]]]:
        """With ``peering.peerStack``: that stack's VPC id and its ``peering.peerRouteTableCount`` route table ids
        (it exports vpcId and privateRouteTableIds, as every environment does); else nothing."""
        peering = config.peering
        if peering is None or peering.peer_stack is None:
            return None, []
        stack, count = peering.peer_stack, peering.peer_route_table_count
        vpc_id = text(self._stack(stack), stack, "vpcId", "peering.peerStack")
        return vpc_id, ids(self._stack(stack), stack, "privateRouteTableIds", count, "peering.peerRouteTableCount")

    def kms_instance(self, config: StackConfig) -> pulumi.Output[str] | None:
        """With ``kms.alicloudKmsInstanceStack``: the KMS instance that stack (the account's bootstrap) exports as
        kmsInstanceId."""
        stack = config.kms.alicloud_kms_instance_stack
        return text(self._stack(stack), stack, "kmsInstanceId", "kms.alicloudKmsInstanceStack") if stack else None


def text(other: pulumi.StackReference, stack: str, key: str, field: str) -> pulumi.Output[str]:
    """Output ``key`` of ``other`` (the stack named ``stack``), which must be a non-empty string; ``field`` is the
    config field that names the stack."""
    return other.get_output(key).apply(functools.partial(_text, stack=stack, key=key, field=field))


def ids(other: pulumi.StackReference, stack: str, key: str, count: int, field: str) -> list[pulumi.Output[str]]:
    """The ``count`` ids of list output ``key`` of ``other`` (the stack named ``stack``); ``field`` is the config
    field that gives ``count``."""
    listed = other.get_output(key).apply(functools.partial(_ids, stack=stack, key=key, count=count, field=field))
    return [listed.apply(functools.partial(_item, i=i)) for i in range(count)]


def _text(value: object, stack: str, key: str, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise config_error([Problem(field, f"{stack} exports no {key} id", value)])
    return value


def _ids(value: object, stack: str, key: str, count: int, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise config_error([Problem(field, f"{stack} exports {key} that is not a list of ids", value)])
    if len(value) != count:
        raise config_error([Problem(field, f"{stack} exports {len(value)} ids as {key}", count)])
    return value


def _item(ids: list[str], i: int) -> str:
    return ids[i]
