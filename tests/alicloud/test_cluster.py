"""GpuCluster: ACK Pro, private endpoint only, Secrets encrypted with the key, RRSA, add-ons, kubeconfig."""

from __future__ import annotations

import json
from ipaddress import IPv4Network
from typing import Any

import pulumi

from gpu_cloud.components.alicloud import GpuCluster, GpuClusterArgs
from gpu_cloud.components.alicloud.cluster import CLUSTER_TAG_KEY, KUBECONFIG_MINUTES
from gpu_cloud.components.spec import (
    AlicloudMaintenanceWindowSpec,
    ClusterSpec,
    NetworkSpec,
    parse_stack_config,
)
from gpu_cloud.components.versions import ACK_KUBERNETES_RELEASES
from tests.alicloud.support import (
    NETWORK,
    applied,
    component,
    custom,
    of_type,
    one,
    plan_of,
    raw_config,
    refused_lines,
    registered,
    rejected,
)

CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"
POOL = "alicloud:cs/nodePool:NodePool"
ACL = "alicloud:slb/acl:Acl"
ACL_ENTRY = "alicloud:slb/aclEntryAttachment:AclEntryAttachment"
TEMPLATE = "alicloud:oos/template:Template"
EXECUTION = "alicloud:oos/execution:Execution"
RUNNER = IPv4Network("10.251.0.0/24")


PINNED = ClusterSpec(kubernetes_version="1.35")


def _args(spec: ClusterSpec = PINNED, network: NetworkSpec = NETWORK, **more: Any) -> GpuClusterArgs:
    return GpuClusterArgs(
        spec=spec,
        network=network,
        vswitch_ids=["vsw-h", "vsw-i"],
        kms_key_id="key-123",
        tags={"owner": "ml"},
        api_clients=[RUNNER],
        **more,
    )


def _inputs() -> dict:  # type: ignore[type-arg]
    plan = plan_of(lambda: GpuCluster("gpu", _args()))
    component(plan, "gpucloud:alicloud:GpuCluster")
    assert sorted((r.type, r.name) for r in custom(plan)) == sorted(
        [
            (CLUSTER, "gpu-cluster"),
            (ACL, "gpu-api-acl"),
            (ACL_ENTRY, "gpu-api-acl-0"),
            (ACL_ENTRY, "gpu-api-acl-1"),
            (ACL_ENTRY, "gpu-api-acl-2"),
            (TEMPLATE, "gpu-api-acl-template"),
            (EXECUTION, "gpu-api-acl-listener"),
            (POOL, "gpu-system"),
        ]
    )
    return one(plan, CLUSTER).inputs


def test_only_acks_control_plane_the_vpc_and_the_runner_may_reach_the_api_server() -> None:
    # The allow list of the API server's CLB listener is what gates the private API (review alicloud.md F3): the
    # cn-shanghai data VPC peered with the cluster VPC is not on it.
    plan = plan_of(lambda: GpuCluster("gpu", _args()))
    acl = one(plan, ACL)
    assert acl.inputs["ipVersion"] == "ipv4"
    entries = of_type(plan, ACL_ENTRY)
    assert [(e.inputs["entry"], e.property_dependencies["aclId"]) for e in entries] == [
        ("100.104.0.0/16", (acl.urn,)),
        ("10.30.0.0/16", (acl.urn,)),
        ("10.251.0.0/24", (acl.urn,)),
    ]


def test_the_allow_list_is_turned_on_for_the_api_listener_only_after_every_entry_is_in_it() -> None:
    plan = plan_of(lambda: GpuCluster("gpu", _args()))
    template, execution = one(plan, TEMPLATE), one(plan, EXECUTION)
    assert template.inputs["templateName"] == "gpucloud-gpu-test-api-acl"
    assert execution.property_dependencies["templateName"] == (template.urn,)
    assert set(execution.dependencies) >= {e.urn for e in of_type(plan, ACL_ENTRY)}
    assert set(execution.property_dependencies["parameters"]) == {one(plan, CLUSTER).urn, one(plan, ACL).urn}
    tasks = json.loads(template.inputs["content"])["Tasks"]
    assert [(t["Action"], t["Properties"]["Service"], t["Properties"]["API"]) for t in tasks] == [
        ("ACS::ExecuteApi", "SLB", "SetLoadBalancerTCPListenerAttribute"),
        ("ACS::CheckFor", "SLB", "DescribeLoadBalancerTCPListenerAttribute"),
    ]
    assert tasks[0]["Properties"]["Parameters"] == {
        "LoadBalancerId": "{{ loadBalancerId }}",
        "ListenerPort": 6443,
        "AclStatus": "on",
        "AclType": "white",
        "AclId": "{{ aclId }}",
    }
    check = tasks[1]["Properties"]
    assert (check["PropertySelector"], check["DesiredValues"]) == ("AclStatus", ["on"])


def _up(status: str, connections: dict[str, str] | None = None) -> Any:
    def program() -> pulumi.Output[Any]:
        cluster = GpuCluster("gpu", _args())
        return pulumi.Output.all(cluster.api_allow_list, cluster.kubeconfig)

    endpoints = connections or {"apiServerInternet": "", "apiServerIntranet": "https://10.30.0.5:6443"}
    return applied(
        program,
        outputs={CLUSTER: {"slbId": "lb-api", "connections": [endpoints]}, EXECUTION: {"status": status}},
        answers={
            "alicloud:cs/getClusterCredential:getClusterCredential": {
                "certificateAuthorities": [{"clusterCert": "CA", "clientCert": "CERT", "clientKey": "KEY"}]
            }
        },
    )


def test_an_allow_list_execution_that_did_not_succeed_fails_the_run() -> None:
    # The provider creates a Failed execution without an error; the component must not.
    assert _up("Success").error is None
    failed = _up("Failed").error
    assert isinstance(failed, pulumi.RunError)
    assert "API server allow list of gpu-test ended Failed" in str(failed)


def test_an_api_server_that_got_an_internet_endpoint_fails_the_run() -> None:
    # The provider does not send slb_internet_enabled=false, and CreateCluster's endpoint_public_access defaults to
    # true (review alicloud.md F9): the component makes that loud. DescribeClusterDetail's master_url has an empty
    # api_server_endpoint when there is none.
    assert _up("Success").error is None
    public = {"apiServerInternet": "https://47.96.0.1:6443", "apiServerIntranet": "https://10.30.0.5:6443"}
    failed = _up("Success", public).error
    assert isinstance(failed, pulumi.RunError)
    assert "the API server of gpu-test has an Internet endpoint https://47.96.0.1:6443" in str(failed)


def test_the_kubeconfig_certificate_is_short_lived() -> None:
    # Without temporary_duration_minutes the provider sends no expiry and ACK's default applies (review F4).
    calls = [args for token, args in _up("Success").calls if token.endswith("getClusterCredential")]
    assert calls == [{"clusterId": "gpu-cluster-id", "temporaryDurationMinutes": KUBECONFIG_MINUTES}]
    assert 15 <= KUBECONFIG_MINUTES <= 4320  # the data source's accepted range


def test_the_cluster_waits_for_the_vpc_egress() -> None:
    def program() -> None:
        snat = pulumi.CustomResource("alicloud:vpc/snatEntry:SnatEntry", "snat", {})
        GpuCluster("gpu", _args(egress=[snat]))

    plan = plan_of(program)
    assert one(plan, "alicloud:vpc/snatEntry:SnatEntry").urn in one(plan, CLUSTER).dependencies


def test_a_136_cluster_runs_acks_136_release() -> None:
    plan = plan_of(lambda: GpuCluster("gpu", _args(ClusterSpec(kubernetes_version="1.36"))))
    assert one(plan, CLUSTER).inputs["version"] == "1.36.1-aliyun.1"


def test_cluster_is_ack_pro_at_the_pinned_release() -> None:
    inputs = _inputs()
    assert (inputs["name"], inputs["clusterSpec"], inputs["version"]) == (
        "gpu-test",
        "ack.pro.small",
        "1.35.7-aliyun.1",
    )


def test_api_server_has_no_internet_endpoint_and_ack_adds_no_nat_gateway() -> None:
    inputs = _inputs()
    assert (inputs["slbInternetEnabled"], inputs["newNatGateway"]) == (False, False)


def test_secrets_are_encrypted_with_the_kms_key_and_rrsa_is_on() -> None:
    inputs = _inputs()
    assert (inputs["encryptionProviderKey"], inputs["disableEncryption"], inputs["enableRrsa"]) == (
        "key-123",
        False,
        True,
    )


def test_pods_take_the_pod_vswitches_and_the_node_vswitches_only_without_them() -> None:
    with_pods = plan_of(lambda: GpuCluster("gpu", _args(pod_vswitch_ids=["vsw-pod-h", "vsw-pod-i"])))
    inputs = one(with_pods, CLUSTER).inputs
    assert (inputs["vswitchIds"], inputs["podVswitchIds"]) == (["vsw-h", "vsw-i"], ["vsw-pod-h", "vsw-pod-i"])
    assert one(with_pods, POOL).inputs["vswitchIds"] == ["vsw-h", "vsw-i"]
    inputs = _inputs()
    assert inputs["vswitchIds"] == inputs["podVswitchIds"] == ["vsw-h", "vsw-i"]
    assert inputs["serviceCidr"] == "172.21.0.0/20"


def test_addons_install_terway_csi_and_auto_repair_detectors_and_disable_nginx_ingress() -> None:
    assert _inputs()["addons"] == [
        {"name": "terway-eniip", "disabled": False},
        {"name": "csi-plugin", "disabled": False},
        {"name": "csi-provisioner", "disabled": False},
        {"name": "ack-node-problem-detector", "disabled": False},
        {"name": "node-lifecycle-controller", "disabled": False},
        {"name": "ack-pod-identity-webhook", "disabled": False},
        {"name": "nginx-ingress-controller", "disabled": True},
    ]


def test_control_plane_logs_are_kept_for_the_spec_retention() -> None:
    inputs = _inputs()
    assert inputs["controlPlaneLogComponents"] == ["apiserver", "kcm", "scheduler", "ccm"]
    assert inputs["controlPlaneLogTtl"] == "90"


def test_the_api_server_audit_log_goes_to_simple_log_service() -> None:
    assert _inputs()["auditLogConfig"] == {"enabled": True}


def _system_pool(spec: ClusterSpec = PINNED) -> dict:  # type: ignore[type-arg]
    return one(plan_of(lambda: GpuCluster("gpu", _args(spec))), POOL).inputs


def test_system_pool_is_untainted_cpu_capacity_without_gpu_labels() -> None:
    pool = _system_pool()
    assert pool["nodePoolName"] == "system"
    assert pool["instanceTypes"] == ["ecs.g7.xlarge"]
    assert pool["imageType"] == "AliyunLinux3ContainerOptimized"
    assert pool["instanceChargeType"] == "PostPaid"
    assert pool["vswitchIds"] == ["vsw-h", "vsw-i"]
    assert pool["labels"] == [
        {"key": "gpucloud.io/purpose", "value": "system"},
        {"key": "gpucloud.io/capacity", "value": "on-demand"},
    ]
    assert pool.get("taints", []) == []
    # Fixed size, not autoscaled: ACK labels autoscaled nodes k8s.aliyun.com=true and keeps system pods off them.
    assert "scalingConfig" not in pool
    assert pool["desiredSize"] == "2"


def test_system_pool_has_no_public_ip_and_encrypted_disks() -> None:
    pool = _system_pool()
    assert "internetMaxBandwidthOut" not in pool  # unset: no public bandwidth
    assert (pool["systemDiskEncrypted"], pool["systemDiskKmsKey"]) == (True, "key-123")
    assert pool["dataDisks"] == [{"category": "cloud_essd", "size": 100, "encrypted": "true", "kmsKeyId": "key-123"}]


def test_system_pool_types_and_sizes_come_from_the_spec() -> None:
    spec = ClusterSpec(
        kubernetes_version="1.35", system_instance_types=("ecs.g8y.xlarge",), system_min_size=3, system_max_size=5
    )
    pool = _system_pool(spec)
    assert (pool["instanceTypes"], pool["imageType"]) == (["ecs.g8y.xlarge"], "AliyunLinux4ContainerOptimizedArm64")
    # ACK: a fixed systemMinSize nodes (systemMaxSize bounds the EKS system group only).
    assert pool["desiredSize"] == "3"


def test_a_gpu_system_type_is_rejected() -> None:
    spec = ClusterSpec(kubernetes_version="1.35", system_instance_types=("ecs.gn7i-c8g1.2xlarge",))
    err, plan = rejected(lambda: GpuCluster("gpu", _args(spec)))
    assert str(err) == (
        "systemInstanceTypes.0: a GPU or accelerated type; the system pool runs CPU types only "
        "(got ecs.gn7i-c8g1.2xlarge)"
    )
    assert registered(plan) == []


def test_the_cluster_carries_its_scoping_tag() -> None:
    assert _inputs()["tags"] == {"owner": "ml", CLUSTER_TAG_KEY: "gpu-test"}


def test_the_kubeconfig_output_is_secret() -> None:
    def program() -> None:
        pulumi.export("kubeconfig", GpuCluster("gpu", _args()).kubeconfig)

    assert plan_of(program).outputs["kubeconfig"] == "[secret]"


def test_an_unpinned_kubernetes_version_and_a_vpc_over_the_service_range_are_rejected_together() -> None:
    network = NETWORK.model_validate(
        {
            "vpcCidr": "172.16.0.0/12",
            "privateSubnets": [
                {"zone": "cn-hangzhou-h", "cidr": "172.16.0.0/18"},
                {"zone": "cn-hangzhou-i", "cidr": "172.16.64.0/18"},
            ],
        }
    )
    error, plan = rejected(lambda: GpuCluster("gpu", _args(ClusterSpec(kubernetes_version="1.29"), network)))
    assert str(error) == (
        "kubernetesVersion: no pins for this Kubernetes version on alicloud (supported: 1.35, 1.36) (got 1.29)\n"
        "vpcCidr: overlaps the cluster's Service range 172.21.0.0/20 (got 172.16.0.0/12)"
    )
    assert registered(plan) == []


def test_ack_may_maintain_the_cluster_off_peak_for_48_hours_a_month_by_default() -> None:
    assert _inputs()["maintenanceWindow"] == {
        "enable": True,
        "maintenanceTime": "2026-01-01T00:00:00.000+08:00",
        "duration": "4h",
        "weeklyPeriod": "Tuesday,Wednesday,Thursday",
    }


def test_a_configured_window_keeps_its_local_time_offset_days_and_hours() -> None:
    window = AlicloudMaintenanceWindowSpec(start="01:30-05:00", weekdays=("Saturday", "Sunday"), duration_hours=6)
    spec = ClusterSpec(kubernetes_version="1.35", alicloud_maintenance_window=window)
    plan = plan_of(lambda: GpuCluster("gpu", _args(spec)))
    assert one(plan, CLUSTER).inputs["maintenanceWindow"] == {
        "enable": True,
        "maintenanceTime": "2026-01-01T01:30:00.000-05:00",
        "duration": "6h",
        "weeklyPeriod": "Saturday,Sunday",
    }


def test_ack_never_upgrades_the_cluster_away_from_the_pinned_release() -> None:
    inputs = _inputs()
    assert inputs["operationPolicy"] == {"clusterAutoUpgrade": {"enabled": False}}
    assert inputs["version"] == ACK_KUBERNETES_RELEASES[PINNED.kubernetes_version]


def _with_window(**window: Any) -> dict[str, Any]:
    return {**raw_config("alicloud"), "cluster": {"alicloudMaintenanceWindow": window}}


def test_a_window_under_acks_monthly_minimum_or_naming_a_day_twice_is_refused() -> None:
    assert parse_stack_config({**raw_config("alicloud"), "cluster": {}}).cluster.alicloud_maintenance_window is None
    assert refused_lines(_with_window(weekdays=["Monday", "Friday"], durationHours=5)) == [
        "cluster.alicloudMaintenanceWindow.weekdays: opens 2 day(s) x 5 h a week, under ACK's 48 hours a month; add"
        ' days or hours (got ["Monday", "Friday"])'
    ]
    assert refused_lines(_with_window(weekdays=["Monday", "Monday", "Friday"])) == [
        'cluster.alicloudMaintenanceWindow.weekdays: names a day twice (got ["Monday", "Monday", "Friday"])'
    ]
    [line] = refused_lines(_with_window(start="00:00"))
    assert line.startswith("cluster.alicloudMaintenanceWindow.start: ") and line.endswith("(got 00:00)")


def test_the_window_is_refused_on_aws() -> None:
    aws = {**raw_config("aws"), "cluster": {"alicloudMaintenanceWindow": {}}}
    [line] = refused_lines(aws)
    assert line.startswith('cluster.alicloudMaintenanceWindow: is an Alibaba Cloud-only setting (got {"start": "00:00')
