"""Compliant properties per resource type, in the engine's camelCase; tests change one field at a time."""

from __future__ import annotations

import json
from typing import Any

from tests.policies.wire import REQUIRED_TAGS, UNKNOWN

TLS13 = "ELBSecurityPolicy-TLS13-1-3-2021-06"
GPU_TAINT_AWS = {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}
GPU_TAINT_ALICLOUD = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def iam_document(*statements: dict[str, Any]) -> str:
    """An IAM/RAM policy document as the JSON string the provider takes."""
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


READ_ONLY = iam_document({"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::ckpt/*"})

COMPLIANT: dict[str, dict[str, Any]] = {
    "aws:ec2/instance:Instance": {
        "instanceType": "p4d.24xlarge",
        "subnetId": "subnet-0a1b",
        "associatePublicIpAddress": False,
        "rootBlockDevice": {"encrypted": True, "volumeSize": 200},
        "ebsBlockDevices": [{"deviceName": "/dev/sdb", "encrypted": True}],
        "tags": REQUIRED_TAGS,
    },
    "aws:ec2/launchTemplate:LaunchTemplate": {
        "networkInterfaces": [{"associatePublicIpAddress": "false", "deleteOnTermination": "true"}],
        "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "true", "volumeSize": 100}}],
        "tags": REQUIRED_TAGS,
    },
    "aws:ec2/launchConfiguration:LaunchConfiguration": {
        "imageId": "ami-1",
        "instanceType": "g5.xlarge",
        "associatePublicIpAddress": False,
    },
    "aws:ec2/subnet:Subnet": {"vpcId": "vpc-1", "cidrBlock": "10.0.0.0/20", "tags": REQUIRED_TAGS},
    "aws:ec2/eip:Eip": {"domain": "vpc", "tags": REQUIRED_TAGS},
    "aws:eks/cluster:Cluster": {
        "roleArn": "arn:aws:iam::1:role/eks",
        "vpcConfig": {"endpointPublicAccess": False, "endpointPrivateAccess": True, "subnetIds": ["s-1"]},
        "encryptionConfig": {"resources": ["secrets"], "provider": {"keyArn": UNKNOWN}},
        "tags": REQUIRED_TAGS,
    },
    "aws:lb/loadBalancer:LoadBalancer": {
        "internal": True,
        "loadBalancerType": "application",
        "tags": REQUIRED_TAGS,
    },
    "aws:alb/loadBalancer:LoadBalancer": {
        "internal": True,
        "loadBalancerType": "network",
        "tags": REQUIRED_TAGS,
    },
    "aws:lb/listener:Listener": {"protocol": "HTTPS", "port": 443, "sslPolicy": TLS13, "tags": REQUIRED_TAGS},
    "aws:alb/listener:Listener": {
        "protocol": "HTTP",
        "port": 80,
        "defaultActions": [{"type": "redirect", "redirect": {"protocol": "HTTPS", "port": "443"}}],
        "tags": REQUIRED_TAGS,
    },
    "aws:kms/key:Key": {
        "enableKeyRotation": True,
        "rotationPeriodInDays": 90,
        "deletionWindowInDays": 30,
        "tags": REQUIRED_TAGS,
    },
    "aws:ebs/volume:Volume": {
        "availabilityZone": "us-east-1a",
        "size": 100,
        "encrypted": True,
        "tags": REQUIRED_TAGS,
    },
    "aws:s3/bucket:Bucket": {"bucket": "ckpt", "tags": REQUIRED_TAGS},
    "aws:eks/nodeGroup:NodeGroup": {
        "clusterName": "gpu",
        "amiType": "AL2_x86_64_GPU",
        "instanceTypes": ["p4d.24xlarge"],
        "taints": [GPU_TAINT_AWS],
        "tags": REQUIRED_TAGS,
    },
    "aws:iam/policy:Policy": {"policy": READ_ONLY, "tags": REQUIRED_TAGS},
    "aws:iam/rolePolicy:RolePolicy": {"role": "r", "policy": READ_ONLY},
    "aws:iam/userPolicy:UserPolicy": {"user": "u", "policy": READ_ONLY},
    "aws:iam/groupPolicy:GroupPolicy": {"group": "g", "policy": READ_ONLY},
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
        "role": "r",
        "policyArn": "arn:aws:iam::aws:policy/ReadOnlyAccess",
    },
    "aws:iam/userPolicyAttachment:UserPolicyAttachment": {
        "user": "u",
        "policyArn": "arn:aws:iam::aws:policy/ReadOnlyAccess",
    },
    "aws:iam/groupPolicyAttachment:GroupPolicyAttachment": {
        "group": "g",
        "policyArn": "arn:aws:iam::aws:policy/ReadOnlyAccess",
    },
    "aws:iam/policyAttachment:PolicyAttachment": {
        "roles": ["r"],
        "policyArn": "arn:aws:iam::aws:policy/ReadOnlyAccess",
    },
    "alicloud:ecs/instance:Instance": {
        "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "internetMaxBandwidthOut": 0,
        "tags": REQUIRED_TAGS,
    },
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate": {"internetMaxBandwidthOut": 0, "tags": REQUIRED_TAGS},
    "alicloud:ecs/eipAssociation:EipAssociation": {
        "allocationId": "eip-1",
        "instanceId": "ngw-1",
        "instanceType": "Nat",
    },
    "alicloud:cs/nodePool:NodePool": {
        "clusterId": "c-1",
        "instanceTypes": ["ecs.gn7i-c32g1.8xlarge"],
        "internetMaxBandwidthOut": 0,
        "scalingConfig": {"isBondEip": False},
        "systemDiskEncrypted": True,
        "dataDisks": [{"category": "cloud_essd", "size": 200, "encrypted": "true"}],
        "taints": [GPU_TAINT_ALICLOUD],
        "tags": REQUIRED_TAGS,
    },
    "alicloud:cs/managedKubernetes:ManagedKubernetes": {"slbInternetEnabled": False, "tags": REQUIRED_TAGS},
    "alicloud:slb/loadBalancer:LoadBalancer": {"addressType": "intranet", "tags": REQUIRED_TAGS},
    "alicloud:nlb/listener:Listener": {
        "listenerProtocol": "TCPSSL",
        "securityPolicyId": "sp-tls13",
        "tags": REQUIRED_TAGS,
    },
    "alicloud:nlb/securityPolicy:SecurityPolicy": {
        "tlsVersions": ["TLSv1.3"],
        "ciphers": ["TLS_AES_128_GCM_SHA256"],
        "tags": REQUIRED_TAGS,
    },
    "alicloud:nlb/loadBalancer:LoadBalancer": {
        "addressType": "Intranet",
        "loadBalancerType": "Network",
        "vpcId": "vpc-1",
        "tags": REQUIRED_TAGS,
    },
    "alicloud:slb/listener:Listener": {
        "loadBalancerId": "lb-1",
        "protocol": "https",
        "frontendPort": 443,
        "tlsCipherPolicy": "tls-tls13only",
    },
    "alicloud:slb/tlsCipherPolicy:TlsCipherPolicy": {
        "tlsCipherPolicyName": "tls13",
        "tlsVersions": ["TLSv1.3"],
        "ciphers": ["TLS_AES_128_GCM_SHA256"],
    },
    "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": {
        "roleName": "gpu-user",
        "policyName": "AliyunOSSReadOnlyAccess",
        "policyType": "System",
    },
    "alicloud:ram/userPolicyAttachment:UserPolicyAttachment": {
        "userName": "ci",
        "policyName": "AliyunOSSReadOnlyAccess",
        "policyType": "System",
    },
    "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment": {
        "groupName": "ops",
        "policyName": "AliyunOSSReadOnlyAccess",
        "policyType": "System",
    },
    "alicloud:cs/kubernetesPermission:KubernetesPermission": {
        "uid": "2345678901234567",
        "permissions": [
            {"cluster": "c-1", "roleName": "gpu-admin", "roleType": "cluster", "isCustom": True, "isRamRole": True},
            {"cluster": "c-1", "roleName": "dev", "roleType": "namespace", "namespace": "gpu-training"},
        ],
    },
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": {
        "clusterName": "gpu",
        "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        "principalArn": "arn:aws:iam::123456789012:role/ml-researcher",
        "accessScope": {"type": "cluster"},
    },
    "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer": {
        "addressType": "intranet",
        "tags": REQUIRED_TAGS,
    },
    "alicloud:alb/loadBalancer:LoadBalancer": {"addressType": "Intranet", "tags": REQUIRED_TAGS},
    "alicloud:kms/key:Key": {
        "automaticRotation": "Enabled",
        "rotationInterval": "7776000s",
        "dkmsInstanceId": "kst-hzz6a7b8c9d0e1f2g3h4",
        "pendingWindowInDays": 30,
        "tags": REQUIRED_TAGS,
    },
    "alicloud:ecs/disk:Disk": {"size": 100, "encrypted": True, "tags": REQUIRED_TAGS},
    "alicloud:ecs/ecsDisk:EcsDisk": {"size": 100, "encrypted": True, "tags": REQUIRED_TAGS},
    "alicloud:oss/bucket:Bucket": {"bucket": "ckpt", "tags": REQUIRED_TAGS},
    "alicloud:ram/policy:Policy": {
        "policyName": "read",
        "tags": REQUIRED_TAGS,
        "policyDocument": iam_document(
            {"Effect": "Allow", "Action": ["oss:GetObject"], "Resource": ["acs:oss:*:*:ckpt/*"]}
        ),
    },
    "kubernetes:core/v1:Service": {
        "metadata": {"name": "web"},
        "spec": {"type": "ClusterIP", "ports": [{"port": 80}]},
    },
    "kubernetes:apps/v1:Deployment": {
        "metadata": {"name": "server"},
        "spec": {
            "replicas": 2,
            "template": {
                "spec": {
                    "nodeSelector": {"gpucloud.io/pool": "inference"},
                    "priorityClassName": "gpu-standard",
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{"name": "server", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                }
            },
        },
    },
    "kubernetes:helm.sh/v3:Release": {
        "chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
        "values": {"gpuResourcesEnabledOverride": True, "kubeletPlugin": {"nodeSelector": {"gpu-allocator": "dra"}}},
    },
    "aws:autoscaling/group:Group": {
        "name": "gpu-asg",
        "launchTemplate": {"name": "gpu-lt", "version": "1"},
        "minSize": 0,
        "maxSize": 2,
    },
    "kubernetes:rbac.authorization.k8s.io/v1:Role": {
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}],
    },
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": {
        "rules": [
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
            {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"], "verbs": ["get"]},
        ],
    },
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": {
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "gpu-admin"},
        "subjects": [{"kind": "Group", "name": "gpu-admins"}],
    },
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": {
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gpu-admin"},
        "subjects": [{"kind": "Group", "name": "gpu-admins"}],
    },
}
"""Per type: properties that every policy accepts (stateful ones are also registered protected)."""

STATEFUL = frozenset({"aws:kms/key:Key", "alicloud:kms/key:Key", "aws:s3/bucket:Bucket", "alicloud:oss/bucket:Bucket"})


def compliant(type_: str, **changes: Any) -> dict[str, Any]:
    """Compliant properties of ``type_`` (none for always-violating types) with ``changes`` (None removes)."""
    props = {**COMPLIANT.get(type_, {}), **changes}
    return {key: value for key, value in props.items() if value is not None}
