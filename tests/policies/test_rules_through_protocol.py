"""Every rule of POLICY_RULES.md on every surface, through the analyzer protocol.

One pack run (stack ``dev``) over one resource per case; each case asserts the exact set of
(policy, level) reported for its URN. Properties are in wire form: camelCase, numbers as floats,
some booleans as strings, secrets and unknowns as the SDK encodes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.planner.policy import PolicyReport, run_policy_pack
from tests.policies.fixtures import GPU_TAINT_AWS, STATEFUL, compliant, iam_document
from tests.policies.wire import UNKNOWN, Secret, resource, stack_resource, urn

STACK = "dev"
M, A = "mandatory", "advisory"

NO_PUBLIC_IP, KMS, ENCRYPTION, TLS, RBAC, GPU, PROTECT, TAGS, VERSION = (
    "no-public-ip",
    "kms-key-rotation",
    "encryption-at-rest",
    "tls-1-3",
    "rbac-least-privilege",
    "gpu-node-isolation",
    "protect-stateful",
    "required-tags",
    "kubernetes-version-support",
)
DEPLOYER_ROLE = "arn:aws:iam::123456789012:role/ml-platform-deployer"
RAM_DEPLOYER_ROLE = "acs:ram::1234567890123456:role/ml-platform-deployer"
RAM_DEPLOYER_ROLE_ID = "3000000000000001"
EKS_CLUSTER_ADMIN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


@dataclass(frozen=True)
class Case:
    """One resource and the violations the pack must report for it."""

    name: str
    type: str
    changes: dict[str, Any] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    protect: bool | None = None
    depends_on: dict[str, str] = field(default_factory=dict)  # property -> name of another case

    def props(self) -> dict[str, Any]:
        return compliant(self.type, **self.changes)


INSTANCE = "aws:ec2/instance:Instance"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EKS = "aws:eks/cluster:Cluster"
LB, ALB = "aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer"
LB_LISTENER, ALB_LISTENER = "aws:lb/listener:Listener", "aws:alb/listener:Listener"
AWS_KMS, ALI_KMS = "aws:kms/key:Key", "alicloud:kms/key:Key"
NODE_GROUP, NODE_POOL = "aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool"
SERVICE = "kubernetes:core/v1:Service"
NLB_LISTENER, NLB_POLICY = "alicloud:nlb/listener:Listener", "alicloud:nlb/securityPolicy:SecurityPolicy"
CLB_LISTENER, CLB_POLICY = "alicloud:slb/listener:Listener", "alicloud:slb/tlsCipherPolicy:TlsCipherPolicy"
ALI_NLB = "alicloud:nlb/loadBalancer:LoadBalancer"
RAM_ROLE_ATTACH = "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"
ACK_PERMISSION = "alicloud:cs/kubernetesPermission:KubernetesPermission"
EKS_ACCESS_POLICY = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
RAM_ADMIN = {"policyName": "AdministratorAccess", "policyType": "System"}
RBAC_V1 = "kubernetes:rbac.authorization.k8s.io/v1:"
FORWARD = {"type": "forward", "targetGroupArn": "arn:tg"}
REDIRECT = {"type": "redirect", "redirect": {"protocol": "HTTPS"}}
ADMIN = iam_document({"Effect": "Allow", "Action": "*", "Resource": "*"})
SERVICE_ADMIN = iam_document(
    {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"},
    {"Effect": "Allow", "Action": ["ec2:Describe*", "s3:*"], "Resource": ["arn:aws:s3:::x", "*"]},
)
LB_SERVICE = {"type": "LoadBalancer", "ports": [{"port": 443}]}
# A node group that names no instance type and a non-GPU AMI: only its launch template can make it GPU.
LT_NODE_GROUP = {"amiType": "CUSTOM", "instanceTypes": None, "taints": None}


def annotated(annotations: dict[str, Any], spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": "web", "annotations": annotations}, "spec": spec or LB_SERVICE}


AWS_LB = "service.beta.kubernetes.io/aws-load-balancer-"
ALI_LB = "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-"
AWS_TLS = {
    f"{AWS_LB}type": "nlb",
    f"{AWS_LB}internal": "true",
    f"{AWS_LB}ssl-cert": "arn:aws:acm:us-east-1:123456789012:certificate/x",
    f"{AWS_LB}ssl-ports": "https",
    f"{AWS_LB}ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-3-2021-06",
}
ALI_TLS = {
    f"{ALI_LB}address-type": "intranet",
    f"{ALI_LB}protocol-port": "tcpssl:443",
    f"{ALI_LB}cert-id": "1234-cn-hangzhou",
    f"{ALI_LB}tls-cipher-policy": UNKNOWN,
}
TLS_SERVICE = {"type": "LoadBalancer", "ports": [{"name": "https", "port": 443.0, "protocol": "TCP"}]}
ALI_NLB_SERVICE = {**TLS_SERVICE, "loadBalancerClass": "alibabacloud.com/nlb"}
LBC_SERVICE = {**TLS_SERVICE, "loadBalancerClass": "service.k8s.aws/nlb"}
LBC_TLS = {
    f"{AWS_LB}scheme": "internal",
    f"{AWS_LB}ssl-cert": "arn:aws:acm:us-east-1:123456789012:certificate/x",
    f"{AWS_LB}ssl-ports": "https",
    f"{AWS_LB}ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-3-2021-06",
}
CLB_TLS = {
    f"{ALI_LB}address-type": "intranet",
    f"{ALI_LB}protocol-port": "https:443",
    f"{ALI_LB}cert-id": "1234-cn-hangzhou",
    f"{ALI_LB}tls-cipher-policy": UNKNOWN,
}


def aws_tls(**changes: Any) -> dict[str, Any]:
    return annotated({k: v for k, v in (AWS_TLS | changes).items() if v is not None}, TLS_SERVICE)


def ali_tls(**changes: Any) -> dict[str, Any]:
    return annotated({k: v for k, v in (ALI_TLS | changes).items() if v is not None}, ALI_NLB_SERVICE)


def lbc_tls(**changes: Any) -> dict[str, Any]:
    return annotated({k: v for k, v in (LBC_TLS | changes).items() if v is not None}, LBC_SERVICE)


def clb_tls(**changes: Any) -> dict[str, Any]:
    return annotated({k: v for k, v in (CLB_TLS | changes).items() if v is not None}, TLS_SERVICE)


CASES = [
    # no-public-ip, AWS
    Case("instance-private", INSTANCE),
    Case("instance-public-ip", INSTANCE, {"associatePublicIpAddress": True}, {NO_PUBLIC_IP: M}),
    Case("instance-public-ip-string", INSTANCE, {"associatePublicIpAddress": "true"}, {NO_PUBLIC_IP: M}),
    Case(
        "instance-default-vpc",
        INSTANCE,
        {"associatePublicIpAddress": None, "subnetId": None},
        {NO_PUBLIC_IP: M},
    ),
    Case("instance-unset-in-subnet", INSTANCE, {"associatePublicIpAddress": None}),
    Case("instance-subnet-unknown", INSTANCE, {"associatePublicIpAddress": None, "subnetId": UNKNOWN}),
    Case("instance-public-ip-unknown", INSTANCE, {"associatePublicIpAddress": UNKNOWN}, {NO_PUBLIC_IP: M}),
    Case(
        "instance-public-ip-empty-default-vpc",
        INSTANCE,
        {"associatePublicIpAddress": "", "subnetId": None},
        {NO_PUBLIC_IP: M},
    ),
    Case("instance-public-ip-empty-in-subnet", INSTANCE, {"associatePublicIpAddress": ""}),
    Case(
        "lt-second-interface-public",
        LAUNCH_TEMPLATE,
        {"networkInterfaces": [{"associatePublicIpAddress": "false"}, {"associatePublicIpAddress": "true"}]},
        {NO_PUBLIC_IP: M},
    ),
    Case(
        "lt-single-interface-object",
        LAUNCH_TEMPLATE,
        {"networkInterfaces": {"associatePublicIpAddress": True}},
        {NO_PUBLIC_IP: M},
    ),
    Case("lt-private", LAUNCH_TEMPLATE),
    Case("lc-private", "aws:ec2/launchConfiguration:LaunchConfiguration"),
    Case(
        "lc-public",
        "aws:ec2/launchConfiguration:LaunchConfiguration",
        {"associatePublicIpAddress": True},
        {NO_PUBLIC_IP: M},
    ),
    Case("subnet-private", "aws:ec2/subnet:Subnet", {"mapPublicIpOnLaunch": False}),
    Case("subnet-public", "aws:ec2/subnet:Subnet", {"mapPublicIpOnLaunch": True}, {NO_PUBLIC_IP: M}),
    Case("eip-for-nat", "aws:ec2/eip:Eip"),
    Case("eip-on-instance", "aws:ec2/eip:Eip", {"instance": "i-1"}, {NO_PUBLIC_IP: M}),
    Case("eip-on-interface-unknown", "aws:ec2/eip:Eip", {"networkInterface": UNKNOWN}, {NO_PUBLIC_IP: M}),
    Case(
        "eip-association",
        "aws:ec2/eipAssociation:EipAssociation",
        {"allocationId": "a", "instanceId": "i"},
        {NO_PUBLIC_IP: M},
    ),
    Case("eks-private", EKS),
    Case("eks-public", EKS, {"vpcConfig": {"endpointPublicAccess": True}}, {NO_PUBLIC_IP: M}),
    Case("eks-endpoint-unset", EKS, {"vpcConfig": {"subnetIds": ["s-1"]}}, {NO_PUBLIC_IP: M}),
    Case("lb-internal", LB),
    Case("lb-internet-facing", LB, {"internal": False}, {NO_PUBLIC_IP: M}),
    Case("lb-internal-unset", LB, {"internal": None}, {NO_PUBLIC_IP: M}),
    Case("lb-gateway", LB, {"internal": None, "loadBalancerType": "Gateway"}),
    Case("lb-gateway-internal-unknown", LB, {"internal": UNKNOWN, "loadBalancerType": "GATEWAY"}),
    Case("lb-internal-unknown", LB, {"internal": UNKNOWN}, {NO_PUBLIC_IP: M}),
    Case("lb-type-unknown-internal", LB, {"internal": True, "loadBalancerType": UNKNOWN}),
    Case(
        "lb-type-unknown-internet-facing",
        LB,
        {"internal": False, "loadBalancerType": UNKNOWN},
        {NO_PUBLIC_IP: M},
    ),
    Case("alb-internal", ALB),
    Case("alb-internet-facing", ALB, {"internal": "false"}, {NO_PUBLIC_IP: M}),
    # no-public-ip, Alibaba Cloud
    Case("ecs-private", "alicloud:ecs/instance:Instance"),
    Case("ecs-bandwidth", "alicloud:ecs/instance:Instance", {"internetMaxBandwidthOut": 10}, {NO_PUBLIC_IP: M}),
    Case("ecs-lt-private", "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"),
    Case(
        "ecs-lt-bandwidth",
        "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
        {"internetMaxBandwidthOut": 5.0},
        {NO_PUBLIC_IP: M},
    ),
    Case("ali-eip-nat", "alicloud:ecs/eipAssociation:EipAssociation", {"instanceType": "nat"}),
    Case(
        "ali-eip-ecs",
        "alicloud:ecs/eipAssociation:EipAssociation",
        {"instanceType": "EcsInstance"},
        {NO_PUBLIC_IP: M},
    ),
    Case(
        "ali-eip-unset",
        "alicloud:ecs/eipAssociation:EipAssociation",
        {"instanceType": None},
        {NO_PUBLIC_IP: M},
    ),
    Case("pool-compliant", NODE_POOL),
    Case("pool-bandwidth", NODE_POOL, {"internetMaxBandwidthOut": 100}, {NO_PUBLIC_IP: M}),
    Case("pool-bond-eip", NODE_POOL, {"scalingConfig": {"isBondEip": "true"}}, {NO_PUBLIC_IP: M}),
    Case("ack-private", "alicloud:cs/managedKubernetes:ManagedKubernetes"),
    Case(
        "ack-slb-unset",
        "alicloud:cs/managedKubernetes:ManagedKubernetes",
        {"slbInternetEnabled": None},
        {NO_PUBLIC_IP: M},
    ),
    Case(
        "ack-slb-public",
        "alicloud:cs/managedKubernetes:ManagedKubernetes",
        {"slbInternetEnabled": True},
        {NO_PUBLIC_IP: M},
    ),
    Case("slb-intranet", "alicloud:slb/loadBalancer:LoadBalancer"),
    Case(
        "slb-internet",
        "alicloud:slb/loadBalancer:LoadBalancer",
        {"addressType": "Internet"},
        {NO_PUBLIC_IP: M},
    ),
    Case("slb-unset", "alicloud:slb/loadBalancer:LoadBalancer", {"addressType": None}, {NO_PUBLIC_IP: M}),
    Case("slb-empty", "alicloud:slb/loadBalancer:LoadBalancer", {"addressType": ""}, {NO_PUBLIC_IP: M}),
    Case("app-slb-intranet", "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer"),
    Case(
        "app-slb-unset",
        "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer",
        {"addressType": None},
        {NO_PUBLIC_IP: M},
    ),
    Case(
        "app-slb-empty",
        "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer",
        {"addressType": ""},
        {NO_PUBLIC_IP: M},
    ),
    Case("ali-alb-intranet", "alicloud:alb/loadBalancer:LoadBalancer"),
    Case(
        "ali-alb-internet",
        "alicloud:alb/loadBalancer:LoadBalancer",
        {"addressType": "internet"},
        {NO_PUBLIC_IP: M},
    ),
    Case("dnat", "alicloud:vpc/forwardEntry:ForwardEntry", {"externalIp": "1.2.3.4"}, {NO_PUBLIC_IP: M}),
    # no-public-ip, Kubernetes
    Case("svc-cluster-ip", SERVICE),
    Case("svc-public-lb", SERVICE, {"spec": LB_SERVICE}, {NO_PUBLIC_IP: M, TLS: M}),
    # The in-tree controller never reads aws-load-balancer-scheme; it reads internal as anything but "false".
    Case("svc-in-tree-ignores-scheme", SERVICE, annotated({f"{AWS_LB}scheme": "internal"}), {NO_PUBLIC_IP: M, TLS: M}),
    Case("svc-lb-aws-internal", SERVICE, annotated({f"{AWS_LB}internal": "true"}), {TLS: M}),
    Case("svc-in-tree-internal-any-value", SERVICE, annotated({f"{AWS_LB}internal": "yes"}), {TLS: M}),
    Case("svc-in-tree-internal-false", SERVICE, annotated({f"{AWS_LB}internal": "false"}), {NO_PUBLIC_IP: M, TLS: M}),
    # The AWS Load Balancer Controller: scheme exactly, else internal as strconv.ParseBool reads it, else its default.
    Case("svc-lbc-internal", SERVICE, lbc_tls()),
    Case("svc-lbc-internet-facing", SERVICE, lbc_tls(**{f"{AWS_LB}scheme": "internet-facing"}), {NO_PUBLIC_IP: M}),
    Case("svc-lbc-scheme-refused", SERVICE, lbc_tls(**{f"{AWS_LB}scheme": "Internal"})),
    Case(
        "svc-lbc-legacy-internal",
        SERVICE,
        lbc_tls(**{f"{AWS_LB}scheme": None, f"{AWS_LB}internal": "TRUE"}),
    ),
    Case(
        "svc-lbc-legacy-internal-false",
        SERVICE,
        lbc_tls(**{f"{AWS_LB}scheme": None, f"{AWS_LB}internal": "F"}),
        {NO_PUBLIC_IP: M},
    ),
    Case("svc-lbc-default-scheme", SERVICE, lbc_tls(**{f"{AWS_LB}scheme": None}), {NO_PUBLIC_IP: M}),
    Case(
        "svc-external-without-target-type",
        SERVICE,
        annotated({f"{AWS_LB}type": "external", f"{AWS_LB}scheme": "internet-facing"}),
        {TLS: M},
    ),
    Case(
        "svc-nlb-ip-internal",
        SERVICE,
        annotated({**{k: v for k, v in LBC_TLS.items()}, f"{AWS_LB}type": "nlb-ip"}, TLS_SERVICE),
    ),
    Case(
        "svc-external-ip-target",
        SERVICE,
        annotated({**LBC_TLS, f"{AWS_LB}type": "external", f"{AWS_LB}nlb-target-type": "ip"}, TLS_SERVICE),
    ),
    Case(
        "svc-unknown-class",
        SERVICE,
        annotated(LBC_TLS, {**TLS_SERVICE, "loadBalancerClass": "example.com/lb"}),
        {NO_PUBLIC_IP: M, TLS: M},
    ),
    Case(
        "svc-clb-intranet-capitalised",
        SERVICE,
        clb_tls(**{f"{ALI_LB}address-type": "Intranet"}),
        {NO_PUBLIC_IP: M},
    ),
    Case("svc-ali-nlb-intranet-capitalised", SERVICE, ali_tls(**{f"{ALI_LB}address-type": "Intranet"})),
    Case("svc-ali-nlb-internet-default", SERVICE, ali_tls(**{f"{ALI_LB}address-type": None}), {NO_PUBLIC_IP: M}),
    Case(
        "svc-lb-alibaba-intranet",
        SERVICE,
        annotated({"service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet"}),
        {TLS: M},
    ),
    Case(
        "svc-lb-internet-facing-scheme",
        SERVICE,
        annotated({"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing"}),
        {NO_PUBLIC_IP: M, TLS: M},
    ),
    Case(
        "svc-external-ips",
        SERVICE,
        {"spec": {"type": "ClusterIP", "externalIPs": ["203.0.113.1"]}},
        {NO_PUBLIC_IP: M},
    ),
    # kms-key-rotation
    Case("aws-key-90", AWS_KMS),
    Case("aws-key-rotation-string", AWS_KMS, {"enableKeyRotation": "true"}),
    Case("aws-key-no-rotation", AWS_KMS, {"enableKeyRotation": False}, {KMS: M}),
    Case("aws-key-period-unset", AWS_KMS, {"rotationPeriodInDays": None}, {KMS: M}),
    Case("aws-key-period-365", AWS_KMS, {"rotationPeriodInDays": 365}, {KMS: M}),
    Case("aws-key-rotation-unknown", AWS_KMS, {"enableKeyRotation": UNKNOWN}, {KMS: M}),
    Case("aws-key-empty-spec", AWS_KMS, {"customerMasterKeySpec": "", "keyUsage": ""}),
    Case(
        "aws-key-empty-spec-no-rotation",
        AWS_KMS,
        {"customerMasterKeySpec": "", "keyUsage": "", "enableKeyRotation": False},
        {KMS: M},
    ),
    Case(
        "aws-key-asymmetric",
        AWS_KMS,
        {
            "customerMasterKeySpec": "RSA_2048",
            "keyUsage": "SIGN_VERIFY",
            "enableKeyRotation": None,
            "rotationPeriodInDays": None,
        },
    ),
    Case(
        "aws-key-hmac",
        AWS_KMS,
        {"customerMasterKeySpec": "HMAC_256", "keyUsage": "GENERATE_VERIFY_MAC", "enableKeyRotation": None},
    ),
    Case(
        "aws-key-explicit-symmetric",
        AWS_KMS,
        {
            "customerMasterKeySpec": "symmetric_default",
            "keyUsage": "ENCRYPT_DECRYPT",
            "enableKeyRotation": None,
        },
        {KMS: M},
    ),
    Case("ali-key-seconds", ALI_KMS),
    Case("ali-key-days", ALI_KMS, {"rotationInterval": "90d", "automaticRotation": "enabled"}),
    Case("ali-key-disabled", ALI_KMS, {"automaticRotation": "Disabled"}, {KMS: M}),
    Case("ali-key-365d", ALI_KMS, {"rotationInterval": "365d"}, {KMS: M}),
    Case("ali-key-interval-unset", ALI_KMS, {"rotationInterval": None}, {KMS: M}),
    # Only keys of a software KMS instance rotate on their interval; an unknown instance id counts as set.
    Case("ali-key-default-key", ALI_KMS, {"dkmsInstanceId": None}, {KMS: M}),
    Case("ali-key-instance-empty", ALI_KMS, {"dkmsInstanceId": ""}, {KMS: M}),
    Case("ali-key-instance-unknown", ALI_KMS, {"dkmsInstanceId": UNKNOWN}),
    Case("ali-key-instance-not-a-string", ALI_KMS, {"dkmsInstanceId": ["kst-a"]}, {KMS: M}),
    Case("ali-key-software", ALI_KMS, {"protectionLevel": "SOFTWARE"}),
    Case("ali-key-hsm", ALI_KMS, {"protectionLevel": "HSM"}, {KMS: M}),
    Case("ali-key-hsm-lower", ALI_KMS, {"protectionLevel": "hsm"}, {KMS: M}),
    Case("ali-key-hsm-mixed", ALI_KMS, {"protectionLevel": "Hsm"}, {KMS: M}),
    Case("ali-key-protection-unknown", ALI_KMS, {"protectionLevel": UNKNOWN}, {KMS: M}),
    # encryption-at-rest (per resource)
    Case("ebs-encrypted", "aws:ebs/volume:Volume"),
    Case("ebs-plain", "aws:ebs/volume:Volume", {"encrypted": False}, {ENCRYPTION: M}),
    Case("ebs-unset", "aws:ebs/volume:Volume", {"encrypted": None}, {ENCRYPTION: M}),
    Case(
        "lt-second-mapping-plain",
        LAUNCH_TEMPLATE,
        {
            "blockDeviceMappings": [
                {"deviceName": "/dev/xvda", "ebs": {"encrypted": "true"}},
                {"deviceName": "/dev/xvdb", "ebs": {"encrypted": "false"}},
            ]
        },
        {ENCRYPTION: M},
    ),
    Case(
        "lt-instance-store-mapping",
        LAUNCH_TEMPLATE,
        {"blockDeviceMappings": [{"deviceName": "/dev/sdb", "virtualName": "ephemeral0"}]},
    ),
    Case(
        "lt-mapping-ebs-null",
        LAUNCH_TEMPLATE,
        {"blockDeviceMappings": [{"deviceName": "/dev/sdb", "virtualName": "ephemeral0", "ebs": None}]},
    ),
    Case(
        "lt-mapping-ebs-empty",
        LAUNCH_TEMPLATE,
        {
            "blockDeviceMappings": [
                {"deviceName": "/dev/xvda", "ebs": {"encrypted": "true"}},
                {"deviceName": "/dev/xvdb", "ebs": {}},
            ]
        },
        {ENCRYPTION: M},
    ),
    Case("instance-no-root-device", INSTANCE, {"rootBlockDevice": None}, {ENCRYPTION: M}),
    Case("instance-empty-root-device", INSTANCE, {"rootBlockDevice": {}}, {ENCRYPTION: M}),
    Case("instance-empty-ebs-device", INSTANCE, {"ebsBlockDevices": [{"encrypted": True}, {}]}, {ENCRYPTION: M}),
    Case(
        "instance-second-ebs-plain",
        INSTANCE,
        {"ebsBlockDevices": [{"encrypted": True}, {"encrypted": False}]},
        {ENCRYPTION: M},
    ),
    Case("eks-no-encryption", EKS, {"encryptionConfig": None}, {ENCRYPTION: M}),
    Case(
        "eks-encrypts-configmaps",
        EKS,
        {"encryptionConfig": {"resources": ["configmaps"], "provider": {"keyArn": "arn:k"}}},
        {ENCRYPTION: M},
    ),
    Case("eks-no-key", EKS, {"encryptionConfig": {"resources": ["secrets"], "provider": {}}}, {ENCRYPTION: M}),
    Case("ali-disk-encrypted", "alicloud:ecs/disk:Disk"),
    Case("ali-disk-plain", "alicloud:ecs/disk:Disk", {"encrypted": False}, {ENCRYPTION: M}),
    Case("ali-ecs-disk-encrypted", "alicloud:ecs/ecsDisk:EcsDisk"),
    Case("ali-ecs-disk-plain", "alicloud:ecs/ecsDisk:EcsDisk", {"encrypted": None}, {ENCRYPTION: M}),
    Case("pool-system-disk-plain", NODE_POOL, {"systemDiskEncrypted": False}, {ENCRYPTION: M}),
    Case(
        "pool-second-data-disk-plain",
        NODE_POOL,
        {"dataDisks": [{"encrypted": "true"}, {"encrypted": "false"}]},
        {ENCRYPTION: M},
    ),
    Case("pool-empty-data-disk", NODE_POOL, {"dataDisks": [{}]}, {ENCRYPTION: M}),
    # tls-1-3
    Case("https-tls13", LB_LISTENER),
    Case(
        "https-lowercase-fips",
        LB_LISTENER,
        {"protocol": "https", "sslPolicy": "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04"},
    ),
    Case("https-old-policy", LB_LISTENER, {"sslPolicy": "ELBSecurityPolicy-2016-08"}, {TLS: M}),
    Case("tls-no-policy", ALB_LISTENER, {"protocol": "TLS", "sslPolicy": None}, {TLS: M}),
    Case("https-empty-policy", LB_LISTENER, {"sslPolicy": ""}, {TLS: M}),
    Case("http-redirect", ALB_LISTENER),
    Case("http-forward", ALB_LISTENER, {"defaultActions": [FORWARD]}, {TLS: M}),
    Case(
        "http-redirect-then-forward",
        LB_LISTENER,
        {"protocol": "HTTP", "sslPolicy": None, "defaultActions": [REDIRECT, FORWARD]},
        {TLS: M},
    ),
    Case(
        "no-protocol-forward",
        LB_LISTENER,
        {"protocol": None, "sslPolicy": None, "defaultActions": [FORWARD]},
        {TLS: M},
    ),
    Case("http-no-actions", ALB_LISTENER, {"defaultActions": []}, {TLS: M}),
    Case("tcp-listener", LB_LISTENER, {"protocol": "TCP", "sslPolicy": None, "defaultActions": [FORWARD]}),
    # tls-1-3, LoadBalancer Services
    Case("svc-aws-tls13", SERVICE, aws_tls()),
    Case("svc-aws-tls13-every-port", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": None})),
    Case("svc-in-tree-star", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": "*"})),
    # The in-tree controller neither trims ssl-ports items nor compares the type in another case.
    Case("svc-in-tree-star-with-spaces", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": " * "}), {TLS: M}),
    Case("svc-in-tree-by-number", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": "8443,443"})),
    Case("svc-in-tree-number-with-space", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": "8443, 443"}), {TLS: M}),
    Case("svc-aws-uppercase-nlb", SERVICE, aws_tls(**{f"{AWS_LB}type": "NLB"}), {TLS: M}),
    Case(
        "svc-aws-policy-name-case",
        SERVICE,
        aws_tls(**{f"{AWS_LB}ssl-negotiation-policy": "elbsecuritypolicy-tls13-1-3-2021-06"}),
        {TLS: M},
    ),
    # The AWS Load Balancer Controller: trimmed lists, "*" is no port (refused), its default policy is TLS 1.2.
    Case("svc-lbc-ports-trimmed", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-ports": " 443 , https "})),
    Case("svc-lbc-star-refused", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-ports": "*"}), {TLS: M}),
    Case("svc-lbc-every-port", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-ports": None})),
    Case("svc-lbc-ports-unknown", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-ports": UNKNOWN}), {TLS: M}),
    Case("svc-lbc-cert-unknown", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-cert": UNKNOWN})),
    Case("svc-lbc-default-policy", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-negotiation-policy": None}), {TLS: M}),
    Case("svc-lbc-no-cert", SERVICE, lbc_tls(**{f"{AWS_LB}ssl-cert": " , "}), {TLS: M}),
    # ACK's controller, CLB (no class): https in lower case only, no tcpssl; the custom policy is checked on its own.
    Case("svc-clb-https", SERVICE, clb_tls()),
    Case("svc-clb-uppercase-refused", SERVICE, clb_tls(**{f"{ALI_LB}protocol-port": "HTTPS:443"}), {TLS: M}),
    Case("svc-clb-tcpssl-refused", SERVICE, clb_tls(**{f"{ALI_LB}protocol-port": "tcpssl:443"}), {TLS: M}),
    Case(
        "svc-clb-system-policy",
        SERVICE,
        clb_tls(**{f"{ALI_LB}tls-cipher-policy": "tls_cipher_policy_1_2_strict_with_1_3"}),
        {TLS: M},
    ),
    Case(
        "svc-clb-legacy-prefix",
        SERVICE,
        annotated({k.replace("alibaba-cloud-", "alicloud-"): v for k, v in CLB_TLS.items()}, TLS_SERVICE),
    ),
    Case("svc-aws-no-cert", SERVICE, aws_tls(**{f"{AWS_LB}ssl-cert": None}), {TLS: M}),
    Case("svc-aws-cert-unknown", SERVICE, aws_tls(**{f"{AWS_LB}ssl-cert": UNKNOWN})),
    Case("svc-aws-port-not-tls", SERVICE, aws_tls(**{f"{AWS_LB}ssl-ports": "8443"}), {TLS: M}),
    Case(
        "svc-aws-second-port-plain",
        SERVICE,
        annotated(AWS_TLS, {**TLS_SERVICE, "ports": [*TLS_SERVICE["ports"], {"name": "http", "port": 80.0}]}),
        {TLS: M},
    ),
    Case(
        "svc-aws-udp-port",
        SERVICE,
        annotated(AWS_TLS, {**TLS_SERVICE, "ports": [{"name": "https", "port": 443.0, "protocol": "UDP"}]}),
        {TLS: M},
    ),
    Case(
        "svc-aws-tls12-policy",
        SERVICE,
        aws_tls(**{f"{AWS_LB}ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-2-2021-06"}),
        {TLS: M},
    ),
    Case("svc-aws-no-policy", SERVICE, aws_tls(**{f"{AWS_LB}ssl-negotiation-policy": None}), {TLS: M}),
    Case("svc-aws-classic-elb", SERVICE, aws_tls(**{f"{AWS_LB}type": None}), {TLS: M}),
    Case("svc-ali-nlb-tls13", SERVICE, ali_tls()),
    Case("svc-ali-custom-policy-id", SERVICE, ali_tls(**{f"{ALI_LB}tls-cipher-policy": "sp-abc123"})),
    Case("svc-ali-nlb-tcpssl-any-case", SERVICE, ali_tls(**{f"{ALI_LB}protocol-port": "TcpSsl:443"})),
    Case("svc-ali-nlb-https-refused", SERVICE, ali_tls(**{f"{ALI_LB}protocol-port": "HTTPS:443"}), {TLS: M}),
    Case("svc-ali-tcp-port", SERVICE, ali_tls(**{f"{ALI_LB}protocol-port": "tcp:443"}), {TLS: M}),
    Case("svc-ali-no-protocol-port", SERVICE, ali_tls(**{f"{ALI_LB}protocol-port": None}), {TLS: M}),
    Case("svc-ali-no-cert", SERVICE, ali_tls(**{f"{ALI_LB}cert-id": None}), {TLS: M}),
    Case("svc-ali-cert-not-a-string", SERVICE, ali_tls(**{f"{ALI_LB}cert-id": 7.0}), {TLS: M}),
    Case(
        "svc-ali-system-policy",
        SERVICE,
        ali_tls(**{f"{ALI_LB}tls-cipher-policy": "tls_cipher_policy_1_2_strict_with_1_3"}),
        {TLS: M},
    ),
    Case("svc-ali-no-policy", SERVICE, ali_tls(**{f"{ALI_LB}tls-cipher-policy": None}), {TLS: M}),
    Case(
        "svc-ali-by-annotation-only",
        SERVICE,
        annotated({f"{ALI_LB}address-type": "intranet", f"{ALI_LB}protocol-port": "tcp:443"}, TLS_SERVICE),
        {TLS: M},
    ),
    Case("svc-tls-policy-unknown", SERVICE, aws_tls(**{f"{AWS_LB}ssl-negotiation-policy": UNKNOWN}), {TLS: M}),
    Case("svc-tls-port-unknown", SERVICE, annotated(AWS_TLS, {**TLS_SERVICE, "ports": [{"port": UNKNOWN}]}), {TLS: M}),
    # tls-1-3, Alibaba NLB listeners and security policies
    Case("nlb-listener-tcpssl-custom", NLB_LISTENER),
    Case("nlb-listener-tcp", NLB_LISTENER, {"listenerProtocol": "TCP", "securityPolicyId": None}),
    Case("nlb-listener-tcpssl-default", NLB_LISTENER, {"securityPolicyId": None}, {TLS: M}),
    Case(
        "nlb-listener-tcpssl-system",
        NLB_LISTENER,
        {"listenerProtocol": "tcpssl", "securityPolicyId": "tls_cipher_policy_1_2_strict_with_1_3"},
        {TLS: M},
    ),
    Case("nlb-policy-tls13", NLB_POLICY),
    Case("nlb-policy-with-tls12", NLB_POLICY, {"tlsVersions": ["TLSv1.3", "TLSv1.2"]}, {TLS: M}),
    Case("nlb-policy-single-tls12", NLB_POLICY, {"tlsVersions": "TLSv1.2"}, {TLS: M}),
    Case("nlb-policy-no-versions", NLB_POLICY, {"tlsVersions": []}, {TLS: M}),
    Case("nlb-policy-versions-unknown", NLB_POLICY, {"tlsVersions": UNKNOWN}, {TLS: M}),
    # tls-1-3, Alibaba CLB listeners and custom TLS policies: as NLB ones
    Case("clb-https-custom", CLB_LISTENER),
    Case("clb-https-default-policy", CLB_LISTENER, {"tlsCipherPolicy": None}, {TLS: M}),
    Case("clb-https-system-policy", CLB_LISTENER, {"tlsCipherPolicy": "tls_cipher_policy_1_1"}, {TLS: M}),
    Case("clb-http-plain", CLB_LISTENER, {"protocol": "http", "tlsCipherPolicy": None}, {TLS: M}),
    Case(
        "clb-http-redirect",
        CLB_LISTENER,
        {"protocol": "http", "tlsCipherPolicy": None, "listenerForward": "on", "forwardPort": 443},
    ),
    Case("clb-tcp", CLB_LISTENER, {"protocol": "tcp", "tlsCipherPolicy": None}),
    Case("clb-policy-tls13", CLB_POLICY),
    Case("clb-policy-allows-tls11", CLB_POLICY, {"tlsVersions": ["TLSv1.1", "TLSv1.3"]}, {TLS: M}),
    # no-public-ip, Alibaba NLB
    Case("ali-nlb-intranet", ALI_NLB),
    Case("ali-nlb-internet", ALI_NLB, {"addressType": "Internet"}, {NO_PUBLIC_IP: M}),
    Case("ali-nlb-public-ipv6", ALI_NLB, {"ipv6AddressType": "Internet"}, {NO_PUBLIC_IP: M}),
    # rbac-least-privilege
    Case("role-scoped", RBAC_V1 + "Role"),
    Case(
        "clusterrole-second-rule-star",
        RBAC_V1 + "ClusterRole",
        {
            "rules": [
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
                {"apiGroups": ["apps"], "resources": ["*"], "verbs": ["get"]},
            ]
        },
        {RBAC: M},
    ),
    Case(
        "role-star-api-group",
        RBAC_V1 + "Role",
        {"rules": [{"apiGroups": ["*"], "resources": ["pods"], "verbs": ["get"]}]},
        {RBAC: M},
    ),
    Case(
        "role-escalate",
        RBAC_V1 + "Role",
        {"rules": [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "verbs": ["Escalate"]}]},
        {RBAC: M},
    ),
    Case("clusterrole-scoped", RBAC_V1 + "ClusterRole"),
    Case("binding-scoped", RBAC_V1 + "RoleBinding"),
    Case(
        "binding-cluster-admin",
        RBAC_V1 + "RoleBinding",
        {"roleRef": {"kind": "ClusterRole", "name": "cluster-admin"}},
        {RBAC: M},
    ),
    Case("clusterbinding-scoped", RBAC_V1 + "ClusterRoleBinding"),
    Case(
        "clusterbinding-authenticated",
        RBAC_V1 + "ClusterRoleBinding",
        {
            "subjects": [
                {"kind": "Group", "name": "gpu-admins"},
                {"kind": "Group", "name": "system:authenticated"},
            ]
        },
        {RBAC: M},
    ),
    Case("iam-policy-read", "aws:iam/policy:Policy"),
    Case("iam-policy-admin", "aws:iam/policy:Policy", {"policy": ADMIN}, {RBAC: M}),
    Case("iam-policy-admin-secret", "aws:iam/policy:Policy", {"policy": Secret(ADMIN)}, {RBAC: M}),
    Case("iam-policy-unknown", "aws:iam/policy:Policy", {"policy": UNKNOWN}, {RBAC: M}),
    Case("iam-policy-not-json", "aws:iam/policy:Policy", {"policy": "{not json"}, {RBAC: M}),
    Case(
        "iam-policy-deny-star",
        "aws:iam/policy:Policy",
        {"policy": iam_document({"Effect": "Deny", "Action": "*", "Resource": "*"})},
    ),
    Case(
        "iam-policy-lowercase-allow",
        "aws:iam/policy:Policy",
        {"policy": iam_document({"Effect": "allow", "Action": "s3:*", "Resource": "*"})},
        {RBAC: M},
    ),
    Case(
        "iam-policy-service-star-scoped",
        "aws:iam/policy:Policy",
        {"policy": iam_document({"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::ckpt/*"})},
    ),
    Case("role-policy-read", "aws:iam/rolePolicy:RolePolicy"),
    Case("role-policy-service-admin", "aws:iam/rolePolicy:RolePolicy", {"policy": SERVICE_ADMIN}, {RBAC: M}),
    Case("user-policy-read", "aws:iam/userPolicy:UserPolicy"),
    Case("user-policy-admin", "aws:iam/userPolicy:UserPolicy", {"policy": ADMIN}, {RBAC: M}),
    Case("group-policy-read", "aws:iam/groupPolicy:GroupPolicy"),
    Case("group-policy-admin", "aws:iam/groupPolicy:GroupPolicy", {"policy": ADMIN}, {RBAC: M}),
    Case("role-attach-readonly", "aws:iam/rolePolicyAttachment:RolePolicyAttachment"),
    Case(
        "role-attach-admin",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        {"policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        {RBAC: M},
    ),
    Case("user-attach-readonly", "aws:iam/userPolicyAttachment:UserPolicyAttachment"),
    Case(
        "user-attach-admin",
        "aws:iam/userPolicyAttachment:UserPolicyAttachment",
        {"policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        {RBAC: M},
    ),
    Case("group-attach-readonly", "aws:iam/groupPolicyAttachment:GroupPolicyAttachment"),
    Case(
        "group-attach-admin",
        "aws:iam/groupPolicyAttachment:GroupPolicyAttachment",
        {"policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        {RBAC: M},
    ),
    Case("attach-readonly", "aws:iam/policyAttachment:PolicyAttachment"),
    Case(
        "attach-admin",
        "aws:iam/policyAttachment:PolicyAttachment",
        {"policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        {RBAC: M},
    ),
    Case(
        "role-attach-admin-deployer",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        {"role": "ml-platform-deployer", "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
    ),
    Case(
        "attach-admin-deployer-and-user",
        "aws:iam/policyAttachment:PolicyAttachment",
        {
            "roles": ["ml-platform-deployer"],
            "users": ["ci"],
            "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess",
        },
        {RBAC: M},
    ),
    # Administrator grants on Alibaba Cloud and EKS: violations unless they name a deployer role (config).
    Case("ram-attach-readonly", RAM_ROLE_ATTACH),
    Case("ram-attach-admin", RAM_ROLE_ATTACH, RAM_ADMIN, {RBAC: M}),
    Case("ram-attach-admin-deployer", RAM_ROLE_ATTACH, {**RAM_ADMIN, "roleName": "ml-platform-deployer"}),
    Case("ram-attach-admin-role-unknown", RAM_ROLE_ATTACH, {**RAM_ADMIN, "roleName": UNKNOWN}, {RBAC: M}),
    Case("ram-attach-custom-named-admin", RAM_ROLE_ATTACH, {**RAM_ADMIN, "policyType": "Custom"}),
    Case("ram-user-attach-admin", "alicloud:ram/userPolicyAttachment:UserPolicyAttachment", RAM_ADMIN, {RBAC: M}),
    Case("ram-group-attach-admin", "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment", RAM_ADMIN, {RBAC: M}),
    Case("ack-grant-scoped", ACK_PERMISSION),
    Case(
        "ack-grant-admin",
        ACK_PERMISSION,
        {
            "permissions": [
                {"cluster": "c-1", "roleName": "dev", "roleType": "namespace"},
                {"cluster": "c-1", "roleName": "admin", "roleType": "cluster"},
            ]
        },
        {RBAC: M},
    ),
    Case(
        "ack-grant-custom-cluster-admin",
        ACK_PERMISSION,
        {"permissions": {"cluster": "c-1", "roleName": "cluster-admin", "roleType": "cluster", "isCustom": "true"}},
        {RBAC: M},
    ),
    Case(
        "ack-grant-admin-deployer",
        ACK_PERMISSION,
        {
            "uid": RAM_DEPLOYER_ROLE_ID,
            "permissions": [{"cluster": "c-1", "roleName": "admin", "roleType": "all-clusters"}],
        },
    ),
    Case("eks-access-view", EKS_ACCESS_POLICY),
    Case("eks-access-cluster-admin", EKS_ACCESS_POLICY, {"policyArn": EKS_CLUSTER_ADMIN}, {RBAC: M}),
    Case(
        "eks-access-cluster-admin-deployer",
        EKS_ACCESS_POLICY,
        {"policyArn": EKS_CLUSTER_ADMIN, "principalArn": DEPLOYER_ROLE},
    ),
    Case(
        "eks-access-cluster-admin-principal-unknown",
        EKS_ACCESS_POLICY,
        {"policyArn": EKS_CLUSTER_ADMIN, "principalArn": UNKNOWN},
        {RBAC: M},
    ),
    Case("ram-read", "alicloud:ram/policy:Policy"),
    Case(
        "ram-service-admin",
        "alicloud:ram/policy:Policy",
        {"policyDocument": iam_document({"Effect": "Allow", "Action": ["ecs:*"], "Resource": ["*"]})},
        {RBAC: M},
    ),
    # gpu-node-isolation
    Case("ng-gpu-tainted", NODE_GROUP),
    Case("ng-gpu-ami-untainted", NODE_GROUP, {"instanceTypes": None, "taints": None}, {GPU: M}),
    Case("ng-nvidia-ami-untainted", NODE_GROUP, {"amiType": "AL2023_x86_64_NVIDIA", "taints": None}, {GPU: M}),
    Case(
        "ng-g5-second-type-untainted",
        NODE_GROUP,
        {"amiType": "AL2_x86_64", "instanceTypes": ["m5.xlarge", "g5.12xlarge"], "taints": None},
        {GPU: M},
    ),
    Case(
        "ng-p6-prefer-no-schedule",
        NODE_GROUP,
        {
            "amiType": "AL2023_x86_64_STANDARD",
            "instanceTypes": ["p6-b200.48xlarge"],
            "taints": [{**GPU_TAINT_AWS, "effect": "PREFER_NO_SCHEDULE"}],
        },
        {GPU: M},
    ),
    Case("ng-gpu-no-execute", NODE_GROUP, {"taints": [{**GPU_TAINT_AWS, "effect": "NO_EXECUTE"}]}),
    Case(
        "ng-cpu-untainted",
        NODE_GROUP,
        {"amiType": "AL2_x86_64", "instanceTypes": ["m5.large"], "taints": None},
    ),
    Case("pool-gpu-untainted", NODE_POOL, {"taints": None}, {GPU: M}),
    # gpu-node-isolation: an EKS node group whose instance type comes from its launch template
    Case("lt-gpu", LAUNCH_TEMPLATE, {"name": "lt-gpu", "instanceType": "p5.48xlarge"}),
    Case("lt-cpu", LAUNCH_TEMPLATE, {"name": "lt-cpu", "instanceType": "m5.xlarge"}),
    Case("lt-type-unknown", LAUNCH_TEMPLATE, {"instanceType": UNKNOWN}),
    Case(
        "ng-gpu-template-untainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"id": UNKNOWN, "version": "1"}},
        {GPU: M},
        depends_on={"launchTemplate": "lt-gpu"},
    ),
    Case(
        "ng-gpu-template-tainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"id": UNKNOWN, "version": "1"}, "taints": [GPU_TAINT_AWS]},
        depends_on={"launchTemplate": "lt-gpu"},
    ),
    Case(
        "ng-gpu-template-by-name-untainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"name": "lt-gpu"}},
        {GPU: M},
    ),
    Case(
        "ng-cpu-template-untainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"id": UNKNOWN, "version": "1"}},
        depends_on={"launchTemplate": "lt-cpu"},
    ),
    Case(
        "ng-template-type-unknown-untainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"id": UNKNOWN, "version": "1"}},
        {GPU: M},
        depends_on={"launchTemplate": "lt-type-unknown"},
    ),
    Case(
        "ng-template-outside-stack-untainted",
        NODE_GROUP,
        {**LT_NODE_GROUP, "launchTemplate": {"id": "lt-0123", "version": "1"}},
    ),
    Case(
        "pool-ebmgn-wrong-key",
        NODE_POOL,
        {"instanceTypes": ["ecs.ebmgn7e.32xlarge"], "taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        {GPU: M},
    ),
    Case("pool-cpu-untainted", NODE_POOL, {"instanceTypes": ["ecs.g7.2xlarge"], "taints": None}),
    Case("pool-gpu-no-execute", NODE_POOL, {"taints": [{"key": "nvidia.com/gpu", "effect": "noexecute"}]}),
    # kubernetes-version-support: as the cloud reads the version, or could not decide; older than the calendar and
    # past extended support are mandatory, never "not in the calendar"
    Case("eks-version-current", EKS, {"version": "1.35"}),
    Case("eks-version-number", EKS, {"version": 1.3}, {VERSION: M}),
    Case("eks-version-v-prefix", EKS, {"version": "v1.35"}, {VERSION: M}),
    Case("eks-version-129", EKS, {"version": "1.29"}, {VERSION: M}),
    Case("eks-version-older-than-calendar", EKS, {"version": "1.15"}, {VERSION: M}),
    Case(
        "ack-version-never-offered",
        "alicloud:cs/managedKubernetes:ManagedKubernetes",
        {"version": "1.27.3-aliyun.1"},
        {VERSION: M},
    ),
    # protect-stateful (advisory in dev)
    Case("aws-key-unprotected", AWS_KMS, protect=False, expected={PROTECT: A}),
    Case("aws-key-short-window", AWS_KMS, {"deletionWindowInDays": 7}, {PROTECT: A}),
    Case("aws-key-window-default", AWS_KMS, {"deletionWindowInDays": None}),
    Case("ali-key-unprotected", ALI_KMS, protect=False, expected={PROTECT: A}),
    Case("ali-key-window-unset", ALI_KMS, {"pendingWindowInDays": None}, {PROTECT: A}),
    Case("oss-unprotected", "alicloud:oss/bucket:Bucket", protect=False, expected={PROTECT: A}),
    Case("oss-protected", "alicloud:oss/bucket:Bucket"),
    # required-tags (advisory)
    Case(
        "volume-missing-owner",
        "aws:ebs/volume:Volume",
        {"tags": {"environment": "dev", "cost-center": "x"}},
        {TAGS: A},
    ),
    Case("ali-disk-untagged", "alicloud:ecs/disk:Disk", {"tags": None}, {TAGS: A}),
    Case("tags-unknown", "aws:ebs/volume:Volume", {"tags": UNKNOWN}, {TAGS: A}),
    Case(
        "tag-value-unknown",
        "aws:ebs/volume:Volume",
        {"tags": {"environment": UNKNOWN, "owner": "o", "cost-center": "c"}},
    ),
]

UNDECIDED = {
    "instance-public-ip-unknown",
    "lb-internal-unknown",
    "lb-type-unknown-internet-facing",
    "aws-key-rotation-unknown",
    "iam-policy-unknown",
    "ng-template-type-unknown-untainted",
    "tags-unknown",
    "ali-key-protection-unknown",
    "svc-tls-policy-unknown",
    "svc-tls-port-unknown",
    "nlb-policy-versions-unknown",
    "ram-attach-admin-role-unknown",
    "svc-lbc-ports-unknown",
    "eks-access-cluster-admin-principal-unknown",
}
# Known but malformed values: could not decide, and saying why, not "unknown during preview".
MALFORMED = {
    "iam-policy-not-json": "could not decide: policy is not valid JSON",
    "ali-key-instance-not-a-string": "could not decide: dkmsInstanceId is not a string (got ['kst-a'])",
    "eks-version-number": (
        "could not decide: version is a number (1.3), not a string: a number loses its trailing zeros (1.30 arrives "
        'as 1.3), so the version meant cannot be read; quote it ("1.30")'
    ),
    "svc-ali-cert-not-a-string": (
        "could not decide: metadata.annotations[service.beta.kubernetes.io/alibaba-cloud-loadbalancer-cert-id]"
        " is not a string (got 7.0)"
    ),
}


def build(case: Case) -> Any:
    protect = case.type in STATEFUL if case.protect is None else case.protect
    by_name = {c.name: c for c in CASES}
    dependencies = {key: [urn(STACK, by_name[name].type, name)] for key, name in case.depends_on.items()}
    return resource(STACK, case.type, case.name, case.props(), protect=protect, property_dependencies=dependencies)


@pytest.fixture(scope="module")
def report(pack_dir: Path) -> PolicyReport:
    resources = [stack_resource(STACK), *(build(case) for case in CASES)]
    # gpu-cost-guard judges a stack's GPU capacity as a whole (test_gpu_cost_guard.py); these cases are not one.
    config = {
        "gpu-cost-guard": "disabled",
        "kubernetes-version-support": {"asOf": "2026-12-03"},
        "rbac-least-privilege": {"deployerRoles": [DEPLOYER_ROLE, RAM_DEPLOYER_ROLE, RAM_DEPLOYER_ROLE_ID]},
    }
    return run_policy_pack(pack_dir, resources, project="gpu-cloud", stack=STACK, config=config)


def reported(report: PolicyReport, urn: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for violation in report.violations:
        if violation.urn == urn:
            assert found.get(violation.policy, violation.level) == violation.level
            found[violation.policy] = violation.level
    return found


def test_case_names_are_unique() -> None:
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_reports_exactly_the_expected_violations(report: PolicyReport, case: Case) -> None:
    assert reported(report, build(case).urn) == case.expected


@pytest.mark.parametrize("name", sorted(UNDECIDED))
def test_unknown_value_is_reported_as_undecided(report: PolicyReport, name: str) -> None:
    urn = build(next(case for case in CASES if case.name == name)).urn
    messages = [v.message for v in report.violations if v.urn == urn]
    assert messages and all("could not decide" in m and "unknown during preview" in m for m in messages)


@pytest.mark.parametrize(("name", "message"), sorted(MALFORMED.items()))
def test_malformed_value_is_undecided_with_its_reason(report: PolicyReport, name: str, message: str) -> None:
    urn_ = build(next(case for case in CASES if case.name == name)).urn
    # The SDK puts the policy's description before the message.
    assert [v.message.splitlines()[-1] for v in report.violations if v.urn == urn_] == [message]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "ali-key-instance-empty",
            "key is a default key (no dkmsInstanceId), which rotates every 365 days whatever rotationInterval "
            "says: create it in a software KMS instance (set dkmsInstanceId)",
        ),
        (
            "ali-key-hsm-lower",
            "protectionLevel is HSM: hardware-protected keys do not rotate automatically; use a key of a "
            'software KMS instance (protectionLevel "SOFTWARE")',
        ),
    ],
)
def test_alibaba_keys_that_do_not_rotate_on_their_interval_say_why(
    report: PolicyReport, name: str, message: str
) -> None:
    urn_ = build(next(case for case in CASES if case.name == name)).urn
    assert [v.message.splitlines()[-1] for v in report.violations if v.urn == urn_] == [message]


def test_violations_name_the_resource(report: PolicyReport) -> None:
    violation = next(v for v in report.violations if v.name == "eip-association")
    assert (violation.type, violation.policy) == ("aws:ec2/eipAssociation:EipAssociation", NO_PUBLIC_IP)


def test_pack_logs_nothing_on_a_clean_run(report: PolicyReport) -> None:
    assert report.messages == ()
