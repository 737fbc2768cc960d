"""What an environment reads from outside its program, checked where it is read.

- **The account's bootstrap** (the deploy runner's network, the environment's deployer role, Alibaba Cloud's KMS
  instance) is published by the bootstrap as cloud parameters in its region (gpu_cloud.components.bootstrap_facts:
  AWS Systems Manager parameters, Alibaba Cloud OOS parameters) and read here with the cloud's data source in the
  runner's region (``deploy.runnerRegion``, default the environment's): the bootstrap's own state lives in a local
  backend, which no StackReference from the environment's backend can reach (pulumi/pulumi#3395).
- **Another environment's VPC** (``peering.peerStack``) is read through a StackReference, which resolves only when that
  stack lives in this stack's backend (``gpucloud plan`` refuses any other, gpu_cloud.planner.offline).

Values arrive once the reads resolve, so their checks run in an apply: a value that does not fit the config is a config
error naming the field, not an error from inside the SDK. One reference per stack: two would register one URN twice.
"""

import functools

import pulumi
import pulumi_aws as aws

from gpu_cloud.components import bootstrap_facts
from gpu_cloud.components.spec import Cloud, Problem, StackConfig, config_error


class BootstrapFacts:
    """The parameters the account's bootstrap publishes, read in the runner's region with the stack's provider."""

    def __init__(self, config: StackConfig, provider: pulumi.ProviderResource) -> None:
        self._config = config
        self._region = config.deploy.runner_region or config.region
        self._opts = pulumi.InvokeOutputOptions(provider=provider)
        self._provider = provider

    def _read(self, name: str) -> pulumi.Output[str]:
        if self._config.cloud is Cloud.AWS:
            found = aws.ssm.get_parameter_output(name=name, region=self._region, opts=self._opts)
            value: pulumi.Output[object] = found.insecure_value
        else:
            import pulumi_alicloud as alicloud  # only Alibaba Cloud stacks load its SDK

            listed = alicloud.oos.get_parameters_output(ids=[name], enable_details=True, opts=self._opts)
            value = listed.parameters.apply(lambda ps: ps[0].value if ps else None)
        return value.apply(functools.partial(_text, name=name, region=self._region))

    def runner(self) -> tuple[pulumi.Output[str], list[pulumi.Output[str]]]:
        """The runner VPC (checked to have ``deploy.runnerVpcCidr``) and its route tables
        (``deploy.runnerRouteTableCount`` of them)."""
        deploy = self._config.deploy
        cidr = self._read(bootstrap_facts.RUNNER_VPC_CIDR).apply(
            functools.partial(_same_cidr, expected=str(deploy.runner_vpc_cidr))
        )
        vpc_id = pulumi.Output.all(self._read(bootstrap_facts.RUNNER_VPC_ID), cidr).apply(lambda v: str(v[0]))
        listed = self._read(bootstrap_facts.RUNNER_ROUTE_TABLE_IDS).apply(
            functools.partial(_ids, count=deploy.runner_route_table_count)
        )
        return vpc_id, [listed.apply(functools.partial(_item, i=i)) for i in range(deploy.runner_route_table_count)]

    def deployer_role(self) -> pulumi.Output[str]:
        """AWS: the role that runs this environment's `up` on the runner (its deploy project's service role)."""
        return self._read(bootstrap_facts.deployer_role_arn(self._config.environment))

    def deployer_roles(self) -> list[str]:
        """Alibaba Cloud: every deployer role (``bootstrap_facts.DEPLOYER_ROLE_ARNS``), read now: the environment
        makes each an ACK cluster administrator, one grant per role, so their number must be known at plan time."""
        import pulumi_alicloud as alicloud  # only Alibaba Cloud stacks load its SDK

        name = bootstrap_facts.DEPLOYER_ROLE_ARNS
        found = alicloud.oos.get_parameters(
            ids=[name], enable_details=True, opts=pulumi.InvokeOptions(provider=self._provider)
        )
        value = found.parameters[0].value if found.parameters else None
        return [arn for arn in _text(value, name=name, region=self._region).split(",") if arn]

    def kms_instance(self) -> pulumi.Output[str]:
        """Alibaba Cloud: the KMS instance the environment's key lives in."""
        return self._read(bootstrap_facts.KMS_INSTANCE_ID)


class StackReferences:
    """The other stacks this stack reads (``peering.peerStack``), one ``pulumi.StackReference`` per stack (made per
    program run: a reference belongs to the run that made it)."""

    def __init__(self) -> None:
        self._stacks: dict[str, pulumi.StackReference] = {}

    def _stack(self, name: str) -> pulumi.StackReference:
        if name not in self._stacks:
            self._stacks[name] = pulumi.StackReference(name)
        return self._stacks[name]

    def peer(self, config: StackConfig) -> tuple[pulumi.Output[str] | None, list[pulumi.Output[str]]]:
        """With ``peering.peerStack``: that stack's VPC id and its ``peering.peerRouteTableCount`` route table ids
        (it exports vpcId and privateRouteTableIds, as every environment does); else nothing."""
        peering = config.peering
        if peering is None or peering.peer_stack is None:
            return None, []
        stack, count = peering.peer_stack, peering.peer_route_table_count
        other = self._stack(stack)
        vpc_id = other.get_output("vpcId").apply(functools.partial(_exported, stack=stack, key="vpcId"))
        tables = other.get_output("privateRouteTableIds").apply(
            functools.partial(_exported_ids, stack=stack, count=count)
        )
        return vpc_id, [tables.apply(functools.partial(_item, i=i)) for i in range(count)]


def _exported(value: object, stack: str, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise config_error([Problem("peering.peerStack", f"{stack} exports no {key} id", value)])
    return value


def _exported_ids(value: object, stack: str, count: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        message = f"{stack} exports privateRouteTableIds that is not a list of ids"
        raise config_error([Problem("peering.peerStack", message, value)])
    if len(value) != count:
        message = f"{stack} exports {len(value)} ids as privateRouteTableIds"
        raise config_error([Problem("peering.peerRouteTableCount", message, count)])
    return value


def _text(value: object, name: str, region: str) -> str:
    if not isinstance(value, str) or not value:
        raise config_error([Problem("deploy.runnerRegion", f"the bootstrap published no {name} there", region)])
    return value


def _same_cidr(value: str, expected: str) -> str:
    if value != expected:
        message = f"the bootstrap's runner VPC is {value} ({bootstrap_facts.RUNNER_VPC_CIDR})"
        raise config_error([Problem("deploy.runnerVpcCidr", message, expected)])
    return value


def _ids(value: str, count: int) -> list[str]:
    listed = [v for v in value.split(",") if v]
    if len(listed) != count:
        message = f"the bootstrap publishes {len(listed)} ({bootstrap_facts.RUNNER_ROUTE_TABLE_IDS})"
        raise config_error([Problem("deploy.runnerRouteTableCount", message, count)])
    return listed


def _item(ids: list[str], i: int) -> str:
    return ids[i]
