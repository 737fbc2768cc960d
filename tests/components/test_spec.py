"""The spec's validation table: valid configs pass, each invalid one yields exactly its problems."""

from __future__ import annotations

import copy
from ipaddress import IPv4Network
from typing import Any

import pytest

from gpu_cloud.components.spec import Cloud, ConfigError, GpuNodePoolSpec, PoolPurpose, StackConfig, parse_stack_config

BASE: dict[str, Any] = {
    "cloud": "aws",
    "region": "us-east-1",
    "environment": "prod",
    "tags": {"environment": "prod", "owner": "ml", "cost-center": "42"},
    "network": {
        "vpcCidr": "10.0.0.0/16",
        "privateSubnets": [
            {"zone": "us-east-1a", "cidr": "10.0.0.0/19"},
            {"zone": "us-east-1b", "cidr": "10.0.32.0/19"},
        ],
        "natSubnets": [{"zone": "us-east-1a", "cidr": "10.0.255.0/28"}],
    },
    "access": {"adminPrincipals": ["arn:aws:iam::123456789012:role/platform"]},
    "deploy": {"runnerVpcCidr": "10.250.0.0/22"},
    "nodePools": [
        {
            "name": "train",
            "purpose": "training",
            "instanceTypes": ["p5.48xlarge"],
            "minSize": 0,
            "desiredSize": 1,
            "maxSize": 2,
            "efa": True,
            "placementGroup": True,
            "zones": ["us-east-1a"],
        },
        {
            "name": "infer",
            "purpose": "inference",
            "instanceTypes": ["g5.xlarge"],
            "minSize": 1,
            "desiredSize": 1,
            "maxSize": 4,
        },
    ],
    "spotGroups": [{"name": "batch", "purpose": "training", "instanceTypes": ["g5.xlarge"], "maxSize": 8}],
    "peering": {
        "peerRegion": "us-west-2",
        "peerVpcCidr": "10.1.0.0/16",
        "peerPrivateSubnets": [
            {"zone": "us-west-2a", "cidr": "10.1.0.0/20"},
            {"zone": "us-west-2b", "cidr": "10.1.16.0/20"},
        ],
    },
    "inference": [{"name": "resnet", "pool": "infer", "modelSource": "models/resnet"}],
    "checkpointBucket": {},
    "alerts": {"receiver": "slack", "slackChannel": "#gpu-alerts"},
    "alertReceiverUrl": "https://hooks.slack.example/services/T0/B0/x",
}


def _with(path: str, value: Any) -> dict[str, Any]:
    """BASE with the value at a dotted path replaced (``None`` deletes it)."""
    raw = copy.deepcopy(BASE)
    *parents, last = path.split(".")
    node: Any = raw
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    key: Any = int(last) if last.isdigit() else last
    if value is None:
        del node[key]
    else:
        node[key] = value
    return raw


def test_the_base_config_is_valid() -> None:
    config = parse_stack_config(BASE)
    assert isinstance(config, StackConfig)
    assert config.cloud is Cloud.AWS
    assert config.network.vpc_cidr == IPv4Network("10.0.0.0/16")
    assert config.network.zones == ("us-east-1a", "us-east-1b")
    assert config.node_pools[0].purpose is PoolPurpose.TRAINING
    assert config.kms.rotation_days == 90
    assert config.protect_stateful is True


def test_specs_are_frozen() -> None:
    pool = parse_stack_config(BASE).node_pools[1]
    with pytest.raises(ValueError, match="frozen"):
        pool.max_size = 9  # type: ignore[misc]


INVALID = [
    (
        _with("network.privateSubnets.1.cidr", "10.9.0.0/19"),
        ["network.privateSubnets.1.cidr: not inside vpcCidr 10.0.0.0/16 (got 10.9.0.0/19)"],
    ),
    (
        _with("network.privateSubnets.1.cidr", "10.0.16.0/20"),
        ["network.privateSubnets.1.cidr: overlaps privateSubnets.0 (10.0.0.0/19) (got 10.0.16.0/20)"],
    ),
    (
        _with("network.privateSubnets.1.zone", "us-east-1a"),
        ['network.privateSubnets: needs subnets in at least two zones (got ["us-east-1a", "us-east-1a"])'],
    ),
    (
        _with("network.privateSubnets.1.zone", "us-west-2b"),
        [
            "network.privateSubnets.1.zone: not a zone of region us-east-1 (us-east-1a, us-east-1b, us-east-1c, "
            "us-east-1d, us-east-1e, us-east-1f) (got us-west-2b)"
        ],
    ),
    (
        _with("network.vpcCidr", "10.0.0.0/33"),
        ["network.vpcCidr: '33' is not a valid netmask (got 10.0.0.0/33)"],
    ),
    (
        _with("network.natSubnets", []),
        ["network.natSubnets: AWS NAT egress needs at least one NAT subnet (got [])"],
    ),
    (
        _with("nodePools.1.minSize", 5),
        ["nodePools.1.minSize: greater than desiredSize 1 (got 5)"],
    ),
    (
        _with("nodePools.1.desiredSize", 9),
        ["nodePools.1.desiredSize: greater than maxSize 4 (got 9)"],
    ),
    (
        _with("nodePools.1.instanceTypes", ["g5.xlarge", "m5.large"]),
        ["nodePools.1.instanceTypes.1: not a GPU instance type of the aws catalog (got m5.large)"],
    ),
    (
        _with("nodePools.0.instanceTypes", ["g5.xlarge"]),
        ["nodePools.0.instanceTypes.0: does not support EFA (efa is true) (got g5.xlarge)"],
    ),
    (
        _with("nodePools.0.awsCapacityReservation", {}),
        [
            "nodePools.0.awsCapacityReservation.reservationId: set exactly one of reservationId and "
            "resourceGroupArn (got null)"
        ],
    ),
    (
        _with(
            "nodePools.0.awsCapacityReservation",
            {
                "reservationId": "cr-02168da1478b509e0",
                "resourceGroupArn": "arn:aws:resource-groups:us-east-1:123456789012:group/p5",
            },
        ),
        [
            "nodePools.0.awsCapacityReservation.reservationId: set exactly one of reservationId and "
            "resourceGroupArn (got null)"
        ],
    ),
    (
        _with(
            "nodePools.0.awsCapacityReservation",
            {"resourceGroupArn": "arn:aws:resource-groups:us-east-1:123456789012:group/p5", "capacityBlock": True},
        ),
        [
            "nodePools.0.awsCapacityReservation.capacityBlock: a Capacity Block is targeted by its reservationId "
            "(got true)"
        ],
    ),
    (
        _with("nodePools.0.awsCapacityReservation", {"reservationId": "02168da1478b509e0"}),
        [
            "nodePools.0.awsCapacityReservation.reservationId: string should match pattern '^cr-[0-9a-f]+$' "
            "(got 02168da1478b509e0)"
        ],
    ),
    (
        _with("nodePools.1.awsCapacityReservation", {"reservationId": "cr-02168da1478b509e0"}),
        [
            "nodePools.1.awsCapacityReservation: only training pools use it "
            '(got {"reservationId": "cr-02168da1478b509e0"})'
        ],
    ),
    (
        _with(
            "nodePools.0",
            {
                **BASE["nodePools"][0],
                "efa": False,
                "placementGroup": False,
                "zones": [],
                "instanceTypes": ["p4d.24xlarge", "p4de.24xlarge"],
                "awsCapacityReservation": {"reservationId": "cr-02168da1478b509e0", "capacityBlock": True},
            },
        ),
        [
            'nodePools.0.instanceTypes: a Capacity Block pool has one instance type (got ["p4d.24xlarge", '
            '"p4de.24xlarge"])',
            "nodePools.0.zones: a Capacity Block pool runs in its block's one zone (got [])",
        ],
    ),
    (
        _with("nodePools.0.zones", ["us-east-1a", "us-east-1b"]),
        ['nodePools.0.zones: an EFA training pool runs in exactly one zone (got ["us-east-1a", "us-east-1b"])'],
    ),
    (
        _with("nodePools.0.zones", ["us-east-1c"]),
        ["nodePools.0.zones: not a zone of network.privateSubnets (got us-east-1c)"],
    ),
    (
        _with("nodePools.1.efa", True),
        [
            "nodePools.1.efa: only training pools use it (got true)",
            "nodePools.1.zones: an EFA training pool runs in exactly one zone (got [])",
        ],
    ),
    (
        _with(
            "nodePools.1",
            {**BASE["nodePools"][1], "awsAmiType": "BOTTLEROCKET_x86_64_NVIDIA", "gpuTimeSlicingReplicas": 4},
        ),
        [
            "nodePools.1.gpuTimeSlicingReplicas: Bottlerocket runs its own device plugin, which this project does not "
            "time-slice (BOTTLEROCKET_x86_64_NVIDIA) (got 4)",
        ],
    ),
    (
        _with("nodePools.1.name", "train"),
        [
            "nodePools.1.name: already used by nodePools.0 (got train)",
            "inference.0.pool: no node pool or spot group of that name (got infer)",
        ],
    ),
    (
        _with("spotGroups.0.instanceTypes", []),
        ["spotGroups.0.instanceTypes: tuple should have at least 1 item after validation, not 0 (got [])"],
    ),
    (
        _with("spotGroups.0.instanceTypes", ["g5.xlarge", "g5.2xlarge"]),
        [
            "spotGroups.0.instanceTypes: differ in capacity (g5.xlarge: 4 vCPU 16 GiB 1x22.4 GiB GPU, g5.2xlarge: "
            "8 vCPU 32 GiB 1x22.4 GiB GPU); the cluster autoscaler sizes the group from its first type only "
            '(got ["g5.xlarge", "g5.2xlarge"])'
        ],
    ),
    (
        # One node each: eight p4d nodes and their fall-back would not fit BASE's subnets (VPC CNI addresses).
        _with(
            "spotGroups.0",
            {"name": "batch", "purpose": "training", "instanceTypes": ["p4d.24xlarge", "p4de.24xlarge"], "maxSize": 1},
        ),
        [
            "spotGroups.0.instanceTypes: differ in capacity (p4d.24xlarge: 96 vCPU 1152 GiB 8x40.0 GiB GPU, "
            "p4de.24xlarge: 96 vCPU 1152 GiB 8x80.0 GiB GPU); the cluster autoscaler sizes the group from its first "
            'type only (got ["p4d.24xlarge", "p4de.24xlarge"])'
        ],
    ),
    (
        _with("spotGroups.0.instanceTypes", ["g5.xlarge", "g6.xlarge"]),
        ['spotGroups.0.instanceTypes: mixes GPU classes; use one GPU model (got ["NVIDIA A10G", "NVIDIA L4"])'],
    ),
    (
        _with("peering.peerVpcCidr", "10.0.128.0/17"),
        [
            "peering.peerPrivateSubnets.0.cidr: not inside peerVpcCidr 10.0.128.0/17 (got 10.1.0.0/20)",
            "peering.peerPrivateSubnets.1.cidr: not inside peerVpcCidr 10.0.128.0/17 (got 10.1.16.0/20)",
        ],
    ),
    (
        _with("peering", {"peerRegion": "us-west-2", "peerVpcCidr": "10.0.128.0/17", "peerStack": "data"}),
        ["peering.peerVpcCidr: overlaps network.vpcCidr 10.0.0.0/16 (got 10.0.128.0/17)"],
    ),
    (
        _with("peering", {"peerRegion": "us-east-1", "peerVpcCidr": "10.1.0.0/16", "peerStack": "data"}),
        ["peering.peerRegion: must differ from region (cross-region peering) (got us-east-1)"],
    ),
    (
        _with("kms", {"rotationDays": 30}),
        ["kms.rotationDays: aws rotates keys every 90..2560 days (got 30)"],
    ),
    (
        _with("kms", {"deletionWindowDays": 3}),
        ["kms.deletionWindowDays: input should be greater than or equal to 7 (got 3)"],
    ),
    (
        _with("access.adminPrincipals", ["arn:aws:iam::123:role/x"]),
        ["access.adminPrincipals.0: not a aws role or user ARN (got arn:aws:iam::123:role/x)"],
    ),
    (
        _with("tags", {"owner": "ml"}),
        ['tags: missing required tags environment, cost-center (got ["owner"])'],
    ),
    (
        _with("inference.0.pool", "nope"),
        ["inference.0.pool: no node pool or spot group of that name (got nope)"],
    ),
    (
        _with("cloud", "gcp"),
        ["cloud: input should be 'aws' or 'alicloud' (got gcp)"],
    ),
    (
        _with("nodePools.1.gpus", 4),
        ["nodePools.1.gpus: extra inputs are not permitted (got 4)"],  # no key is close: no suggestion
    ),
    # A typo of a key, at any depth, names the key it is closest to.
    (
        _with("nodePools.1.minsize", 0),
        ["nodePools.1.minsize: extra inputs are not permitted; did you mean minSize? (got 0)"],
    ),
    (
        _with("network.natPerZon", True),
        ["network.natPerZon: extra inputs are not permitted; did you mean natPerZone? (got true)"],
    ),
    # Strict: no value is read as another type.
    (
        _with("network.vpcCidr", 167772160),
        ["network.vpcCidr: input should be a valid string (got 167772160)"],
    ),
    (
        _with("network.natSubnets.0.cidr", True),
        ["network.natSubnets.0.cidr: input should be a valid string (got true)"],
    ),
    (
        _with("nodePools.1.minSize", True),
        ["nodePools.1.minSize: input should be a valid integer (got true)"],
    ),
    (
        _with("nodePools.1.maxSize", "4"),
        ["nodePools.1.maxSize: input should be a valid integer (got 4)"],
    ),
    (
        _with("spotGroups.0.maxPricePerHour", float("inf")),
        ["spotGroups.0.maxPricePerHour: input should be a finite number (got Infinity)"],
    ),
    # Checks the components make are made here first, with the full path.
    (
        _with("addons", {"monitoring": False}),
        [
            "addons.prometheusAdapter: needs monitoring (its Prometheus) (got true)",
            "alerts: needs addons.monitoring (its Alertmanager) (got slack)",
        ],
    ),
    (
        _with("training", {"namespace": "ml"}),
        ["training.namespace: not a GPU namespace of access (gpu-training, gpu-inference) (got ml)"],
    ),
    (
        _with("inference.0.pool", "train"),
        ["inference.0.pool: pool 'train' is not an inference pool (got train)"],
    ),
    (
        _with("alerts", None),
        ["alerts: required with addons.monitoring: alerts must reach a receiver (got null)"],
    ),
    (
        _with("alertReceiverUrl", None),
        [
            "alertReceiverUrl: required for alerts.receiver slack: pulumi config set --secret alertReceiverUrl"
            " (got null)"
        ],
    ),
    (
        _with("alerts", {"receiver": "slack"}),
        ["alerts.slackChannel: required for receiver slack (got null)"],
    ),
    (
        _with("alerts", {"receiver": "dingtalk"}),
        ["alerts.receiver: input should be 'webhook', 'slack' or 'sns' (got dingtalk)"],
    ),
    (
        _with("alerts", {"receiver": "webhook", "snsTopicArn": "arn:aws:sns:us-east-1:123456789012:a"}),
        ["alerts.snsTopicArn: only receiver sns uses it (got arn:aws:sns:us-east-1:123456789012:a)"],
    ),
    (
        _with("alerts", {"receiver": "sns", "snsTopicArn": "arn:aws:sns:us-west-2:123456789012:a"}),
        [
            "alertReceiverUrl: receiver sns uses no URL (got [secret])",
            "alerts.snsTopicArn: not a topic of region us-east-1 (got arn:aws:sns:us-west-2:123456789012:a)",
        ],
    ),
    (
        _with("addons", {"monitoring": False, "prometheusAdapter": False}),
        ["alerts: needs addons.monitoring (its Alertmanager) (got slack)"],
    ),
]


@pytest.mark.parametrize(("raw", "expected"), INVALID)
def test_invalid_config_reports_exactly_its_problems(raw: dict[str, Any], expected: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    assert [str(p) for p in caught.value.problems] == expected


def test_alibaba_rejects_aws_only_settings_and_its_own_bounds() -> None:
    raw = copy.deepcopy(BASE)
    raw.update(cloud="alicloud", region="cn-hangzhou", peering=None, spotGroups=[], inference=[])
    raw["network"] = {
        "vpcCidr": "10.0.0.0/16",
        "privateSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "10.0.0.0/19"},
            {"zone": "cn-hangzhou-i", "cidr": "10.0.32.0/19"},
        ],
    }
    raw["access"] = {"adminPrincipals": ["acs:ram::1234567890123456:role/platform"]}
    raw["kms"] = {"rotationDays": 180}
    raw["nodePools"] = [
        {
            "name": "infer",
            "purpose": "inference",
            "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
            "minSize": 0,
            "desiredSize": 0,
            "maxSize": 2,
            "awsAmiType": "AL2023_x86_64_NVIDIA",
        },
    ]
    del raw["peering"]
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    assert [str(p) for p in caught.value.problems] == [
        "kms.rotationDays: alicloud rotates keys every 7..90 days (got 180)",
        "nodePools.0.awsAmiType: is an AWS-only setting (got AL2023_x86_64_NVIDIA)",
    ]


def test_a_pool_spec_validates_on_its_own() -> None:
    with pytest.raises(ValueError, match="minSize"):
        GpuNodePoolSpec(
            name="x",
            purpose=PoolPurpose.INFERENCE,
            instance_types=("g5.xlarge",),
            min_size=2,
            desired_size=1,
            max_size=3,
        )


def test_a_schema_error_hides_no_check_that_can_run() -> None:
    raw = _with("nodePools.0.minSize", "zero")
    raw["tags"] = {"owner": "ml"}
    raw["spotGroups"][0]["instanceTypes"] = ["g5.xlarge", "p5.48xlarge"]
    raw["nodePools"][1]["instanceTypes"] = ["g9.nothing"]
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    assert [str(p) for p in caught.value.problems] == [
        "nodePools.0.minSize: input should be a valid integer (got zero)",
        'tags: missing required tags environment, cost-center (got ["owner"])',
        "nodePools.1.instanceTypes.0: not a GPU instance type of the aws catalog (got g9.nothing)",
        'spotGroups.0.instanceTypes: mixes GPU classes; use one GPU model (got ["NVIDIA A10G", "NVIDIA H100"])',
        "spotGroups.0.instanceTypes: differ in capacity (g5.xlarge: 4 vCPU 16 GiB 1x22.4 GiB GPU, p5.48xlarge: "
        "192 vCPU 2048 GiB 8x80.0 GiB GPU); the cluster autoscaler sizes the group from its first type only "
        '(got ["g5.xlarge", "p5.48xlarge"])',
    ]


def test_alibaba_checks_of_its_components_are_config_problems() -> None:
    raw = copy.deepcopy(BASE)
    raw.update(cloud="alicloud", region="cn-hangzhou", spotGroups=[], inference=[], nodePools=[])
    del raw["peering"]
    raw["access"] = {"adminPrincipals": ["acs:ram::1234567890123456:role/platform"]}
    raw["cluster"] = {"kubernetesVersion": "1.19"}
    raw["kms"] = {"alicloudKmsInstanceId": "kst-hzz0000000000000"}
    raw["network"] = {
        "vpcCidr": "172.16.0.0/12",
        "privateSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "172.16.0.0/19"},
            {"zone": "cn-hangzhou-i", "cidr": "172.16.32.0/19"},
        ],
        "natSubnets": [{"zone": "cn-hangzhou-h", "cidr": "172.16.255.0/28"}],
    }
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    nat, service_range, version = (str(p) for p in caught.value.problems)
    assert nat == "network.natSubnets: Alibaba Cloud NAT gateways sit in a vswitch; leave it empty (got 1)"
    assert service_range == "network.vpcCidr: overlaps the cluster's Service range 172.21.0.0/20 (got 172.16.0.0/12)"
    assert version.startswith("cluster.kubernetesVersion: no pins for this Kubernetes version on alicloud (supported: ")
    assert version.endswith(") (got 1.19)")
