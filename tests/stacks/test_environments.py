"""Each environment of stacks/, run as `gpucloud plan` runs it: exact resource counts per type, the properties that
make it that environment, and a policy pack that finds no mandatory violation."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_cloud.components.aws.expander import priority_of
from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.model import RecordedResource, Violation
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.policy import load_policy_config, run_policy_pack
from gpu_cloud.planner.project import StackSettings, load_project, load_stack
from tests.alicloud.support import label_map

ROOT = Path(__file__).resolve().parents[2]
STACKS = ("dev", "staging", "prod", "prod-cn")
ON_NODE_GROUPS = ("dev", "staging@nodegroups", "prod@nodegroups")
"""The EKS environments on managed node groups: dev, and staging and prod planned with ``nodeProvisioner: nodegroups``
(``NODE_GROUPS``)."""

EXPECTED_COUNTS: dict[str, dict[str, int]] = {
    "dev": {
        "aws:cloudwatch/logGroup:LogGroup": 2,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 1,
        "aws:ec2/eip:Eip": 1,
        "aws:ec2/flowLog:FlowLog": 1,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 3,
        "aws:ec2/natGateway:NatGateway": 1,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 2,
        "aws:ec2/route:Route": 7,
        "aws:ec2/routeTable:RouteTable": 3,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 3,
        "aws:ec2/securityGroup:SecurityGroup": 1,
        "aws:ec2/securityGroupRule:SecurityGroupRule": 1,
        "aws:ec2/subnet:Subnet": 3,
        "aws:ec2/vpc:Vpc": 1,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 6,
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 1,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 1,
        "aws:eks/accessEntry:AccessEntry": 3,
        "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 1,
        "aws:eks/addon:Addon": 6,
        "aws:eks/cluster:Cluster": 1,
        "aws:eks/nodeGroup:NodeGroup": 3,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 4,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:iam/role:Role": 10,
        "aws:iam/rolePolicy:RolePolicy": 8,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 8,
        "aws:kms/alias:Alias": 1,
        "aws:kms/key:Key": 1,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 1,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 1,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:Service": 1,
        "kubernetes:core/v1:ServiceAccount": 1,
        "kubernetes:helm.sh/v3:Release": 5,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": 4,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
    "staging": {
        "aws:cloudwatch/eventRule:EventRule": 5,
        "aws:cloudwatch/eventTarget:EventTarget": 5,
        "aws:cloudwatch/logGroup:LogGroup": 3,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 2,
        "aws:ec2/eip:Eip": 1,
        "aws:ec2/flowLog:FlowLog": 2,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 1,
        "aws:ec2/natGateway:NatGateway": 1,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 4,
        "aws:ec2/placementGroup:PlacementGroup": 1,
        "aws:ec2/route:Route": 11,
        "aws:ec2/routeTable:RouteTable": 5,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 5,
        "aws:ec2/securityGroup:SecurityGroup": 1,
        "aws:ec2/securityGroupRule:SecurityGroupRule": 1,
        "aws:ec2/subnet:Subnet": 5,
        "aws:ec2/vpc:Vpc": 2,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 7,
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 2,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 2,
        "aws:eks/accessEntry:AccessEntry": 4,
        "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 1,
        "aws:eks/addon:Addon": 6,
        "aws:eks/cluster:Cluster": 1,
        "aws:eks/nodeGroup:NodeGroup": 1,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 6,
        "aws:iam/instanceProfile:InstanceProfile": 1,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:iam/role:Role": 13,
        "aws:iam/rolePolicy:RolePolicy": 11,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 8,
        "aws:kms/alias:Alias": 2,
        "aws:kms/key:Key": 2,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "aws:sqs/queue:Queue": 1,
        "aws:sqs/queuePolicy:QueuePolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 1,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 1,
        "kubernetes:core/v1:ConfigMap": 1,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:ResourceQuota": 1,
        "kubernetes:core/v1:Service": 1,
        "kubernetes:core/v1:ServiceAccount": 2,
        "kubernetes:helm.sh/v3:Release": 10,
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet": 1,
        "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass": 2,
        "kubernetes:karpenter.sh/v1:NodePool": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass": 3,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": 4,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
    "staging@nodegroups": {
        "aws:cloudwatch/logGroup:LogGroup": 3,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 2,
        "aws:ec2/eip:Eip": 1,
        "aws:ec2/flowLog:FlowLog": 2,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 4,
        "aws:ec2/natGateway:NatGateway": 1,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 4,
        "aws:ec2/placementGroup:PlacementGroup": 1,
        "aws:ec2/route:Route": 11,
        "aws:ec2/routeTable:RouteTable": 5,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 5,
        "aws:ec2/securityGroup:SecurityGroup": 1,
        "aws:ec2/securityGroupRule:SecurityGroupRule": 1,
        "aws:ec2/subnet:Subnet": 5,
        "aws:ec2/vpc:Vpc": 2,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 7,
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 2,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 2,
        "aws:eks/accessEntry:AccessEntry": 3,
        "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 1,
        "aws:eks/addon:Addon": 6,
        "aws:eks/cluster:Cluster": 1,
        "aws:eks/nodeGroup:NodeGroup": 4,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 5,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:iam/role:Role": 13,
        "aws:iam/rolePolicy:RolePolicy": 10,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 11,
        "aws:kms/alias:Alias": 2,
        "aws:kms/key:Key": 2,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 1,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 1,
        "kubernetes:core/v1:ConfigMap": 1,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:ResourceQuota": 1,
        "kubernetes:core/v1:Service": 1,
        "kubernetes:core/v1:ServiceAccount": 2,
        "kubernetes:helm.sh/v3:Release": 8,
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 1,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass": 3,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": 4,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
    "prod": {
        "aws:cloudwatch/eventRule:EventRule": 5,
        "aws:cloudwatch/eventTarget:EventTarget": 5,
        "aws:cloudwatch/logGroup:LogGroup": 3,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 2,
        "aws:ec2/eip:Eip": 3,
        "aws:ec2/flowLog:FlowLog": 2,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 1,
        "aws:ec2/natGateway:NatGateway": 3,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 4,
        "aws:ec2/placementGroup:PlacementGroup": 1,
        "aws:ec2/route:Route": 14,
        "aws:ec2/routeTable:RouteTable": 6,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 8,
        "aws:ec2/securityGroup:SecurityGroup": 1,
        "aws:ec2/securityGroupRule:SecurityGroupRule": 1,
        "aws:ec2/subnet:Subnet": 8,
        "aws:ec2/vpc:Vpc": 2,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 7,
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 2,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 2,
        "aws:eks/accessEntry:AccessEntry": 4,
        "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 1,
        "aws:eks/addon:Addon": 6,
        "aws:eks/cluster:Cluster": 1,
        "aws:eks/nodeGroup:NodeGroup": 1,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 8,
        "aws:iam/instanceProfile:InstanceProfile": 1,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:iam/role:Role": 15,
        "aws:iam/rolePolicy:RolePolicy": 13,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 8,
        "aws:kms/alias:Alias": 2,
        "aws:kms/key:Key": 2,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "aws:sqs/queue:Queue": 1,
        "aws:sqs/queuePolicy:QueuePolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 2,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 2,
        "kubernetes:core/v1:ConfigMap": 2,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:ResourceQuota": 1,
        "kubernetes:core/v1:Service": 2,
        "kubernetes:core/v1:ServiceAccount": 4,
        "kubernetes:helm.sh/v3:Release": 10,
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet": 2,
        "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass": 3,
        "kubernetes:karpenter.sh/v1:NodePool": 4,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass": 3,
        "kubernetes:monitoring.coreos.com/v1:PodMonitor": 1,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 2,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": 4,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
    "prod@nodegroups": {
        "aws:cloudwatch/logGroup:LogGroup": 3,
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 2,
        "aws:ec2/eip:Eip": 3,
        "aws:ec2/flowLog:FlowLog": 2,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 5,
        "aws:ec2/natGateway:NatGateway": 3,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 4,
        "aws:ec2/placementGroup:PlacementGroup": 1,
        "aws:ec2/route:Route": 14,
        "aws:ec2/routeTable:RouteTable": 6,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 8,
        "aws:ec2/securityGroup:SecurityGroup": 1,
        "aws:ec2/securityGroupRule:SecurityGroupRule": 1,
        "aws:ec2/subnet:Subnet": 8,
        "aws:ec2/vpc:Vpc": 2,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 7,
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 2,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 2,
        "aws:eks/accessEntry:AccessEntry": 3,
        "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": 1,
        "aws:eks/addon:Addon": 6,
        "aws:eks/cluster:Cluster": 1,
        "aws:eks/nodeGroup:NodeGroup": 5,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 7,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:iam/role:Role": 16,
        "aws:iam/rolePolicy:RolePolicy": 12,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 14,
        "aws:kms/alias:Alias": 2,
        "aws:kms/key:Key": 2,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 2,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 2,
        "kubernetes:core/v1:ConfigMap": 2,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:ResourceQuota": 1,
        "kubernetes:core/v1:Service": 2,
        "kubernetes:core/v1:ServiceAccount": 4,
        "kubernetes:helm.sh/v3:Release": 8,
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass": 3,
        "kubernetes:monitoring.coreos.com/v1:PodMonitor": 1,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 2,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": 1,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": 4,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
    "prod-cn": {
        "alicloud:cs/kubernetesPermission:KubernetesPermission": 3,
        "alicloud:cs/managedKubernetes:ManagedKubernetes": 1,
        "alicloud:cs/autoscalingConfig:AutoscalingConfig": 1,
        "alicloud:cs/kubernetesAddon:KubernetesAddon": 1,
        "alicloud:cs/nodePool:NodePool": 5,
        "alicloud:ecs/eipAddress:EipAddress": 1,
        "alicloud:ecs/eipAssociation:EipAssociation": 1,
        "alicloud:kms/alias:Alias": 1,
        "alicloud:kms/key:Key": 1,
        "alicloud:nlb/securityPolicy:SecurityPolicy": 1,
        "alicloud:oos/execution:Execution": 1,
        "alicloud:oos/template:Template": 1,
        "alicloud:oss/bucket:Bucket": 1,
        "alicloud:oss/bucketAcl:BucketAcl": 1,
        "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig": 1,
        "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption": 1,
        "alicloud:oss/bucketVersioning:BucketVersioning": 1,
        "alicloud:ram/policy:Policy": 6,
        "alicloud:ram/role:Role": 6,
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": 6,
        "alicloud:slb/acl:Acl": 1,
        "alicloud:slb/aclEntryAttachment:AclEntryAttachment": 3,
        "alicloud:vpc/natGateway:NatGateway": 1,
        "alicloud:vpc/network:Network": 2,
        "alicloud:vpc/peerConnection:PeerConnection": 2,
        "alicloud:vpc/routeEntry:RouteEntry": 4,
        "alicloud:vpc/snatEntry:SnatEntry": 4,
        "alicloud:vpc/switch:Switch": 6,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy": 1,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding": 1,
        "kubernetes:apps/v1:Deployment": 2,
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": 2,
        "kubernetes:core/v1:ConfigMap": 2,
        "kubernetes:core/v1:Namespace": 3,
        "kubernetes:core/v1:ResourceQuota": 1,
        "kubernetes:core/v1:Secret": 1,
        "kubernetes:core/v1:Service": 2,
        "kubernetes:core/v1:ServiceAccount": 4,
        "kubernetes:helm.sh/v3:Release": 5,
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet": 2,
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": 3,
        "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass": 3,
        "kubernetes:monitoring.coreos.com/v1:PodMonitor": 1,
        "kubernetes:monitoring.coreos.com/v1:PrometheusRule": 1,
        "kubernetes:policy/v1:PodDisruptionBudget": 2,
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": 3,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": 3,
        "kubernetes:storage.k8s.io/v1:StorageClass": 1,
    },
}

COMMON_OUTPUTS = {
    "environment",
    "region",
    "kmsKeyId",
    "kmsKeyArn",
    "vpcId",
    "privateSubnetIds",
    "privateRouteTableIds",
    "clusterName",
    "clusterEndpoint",
    "kubeconfig",
    "nodePoolNames",
    "gpuAdminRoleArn",
    "gpuUserRoleArn",
}
"""Outputs every environment exports under the same name, whatever its cloud."""


NODE_GROUPS = "@nodegroups"
"""Suffix of a stack name that plans that stack with ``nodeProvisioner: nodegroups``: staging and prod run Karpenter
(docs/provisioners.md), and the node group path is still tested on their configs."""


def settings(stack: str) -> StackSettings:
    """The config of ``stack``, or of ``<stack>@nodegroups``: that stack's config on managed node groups."""
    name, _, provisioner = stack.partition("@")
    found = load_stack(load_project(ROOT), name)
    if not provisioner:
        return found
    return replace(found, config={**found.config, "gpu-cloud:nodeProvisioner": provisioner})


@cache
def plan(stack: str) -> Plan:
    """The stack's plan (one run per stack for the whole module)."""
    project = load_project(ROOT)
    return run_program(project, settings(stack), load_offline_answers(project.config_dir))


@cache
def violations(stack: str) -> tuple[Violation, ...]:
    """What the policy pack reports on the stack's plan."""
    recorded = plan(stack)
    report = run_policy_pack(
        POLICY_PACK,
        recorded.resources,
        project=recorded.project,
        stack=stack.partition("@")[0],
        stack_config=settings(stack).config,
        # The config the deploy runner's builds and `make plan-all` give the pack (the deployer roles).
        config=load_policy_config(ROOT / "stacks" / "policy-config.json"),
    )
    return report.violations


def of_type(stack: str, type_: str) -> list[RecordedResource]:
    return [r for r in plan(stack).resources if r.type == type_]


def named(stack: str, name: str) -> RecordedResource:
    (found,) = [r for r in plan(stack).resources if r.name == name]
    return found


def stateful(stack: str) -> list[RecordedResource]:
    types = ("aws:kms/key:Key", "aws:s3/bucket:Bucket", "alicloud:kms/key:Key", "alicloud:oss/bucket:Bucket")
    return [r for r in plan(stack).resources if r.type in types]


@pytest.mark.parametrize("stack", STACKS + ON_NODE_GROUPS[1:])
def test_resource_counts_per_type(stack: str) -> None:
    counts = Counter(r.type for r in plan(stack).resources if r.custom and not r.type.startswith("pulumi:"))
    assert dict(counts) == EXPECTED_COUNTS[stack]


@pytest.mark.parametrize("stack", STACKS)
def test_the_policy_pack_finds_no_mandatory_violation(stack: str) -> None:
    assert [v for v in violations(stack) if v.level == "mandatory"] == []


def test_dev_is_only_warned_that_its_stateful_resources_are_unprotected() -> None:
    assert {(v.policy, v.level) for v in violations("dev")} == {("protect-stateful", "advisory")}


@pytest.mark.parametrize("stack", [s for s in STACKS if s != "dev"])
def test_the_other_environments_raise_no_finding_at_all(stack: str) -> None:
    # gpu_cloud/policies/README.md, "The four environments": prod-cn's shared pool isolates memory (cgpu).
    assert [(v.policy, v.level, v.urn) for v in violations(stack)] == []


@pytest.mark.parametrize("stack", STACKS)
def test_outputs_have_the_same_names_on_both_clouds(stack: str) -> None:
    outputs = plan(stack).outputs
    assert set(outputs) >= COMMON_OUTPUTS
    assert outputs["kubeconfig"] == "[secret]"
    if stack == "prod-cn":
        assert outputs["nodePoolNames"][0] == "system"
    else:  # EKS node group names end in what Terraform generates at creation (components.aws.expander)
        groups = ["[unknown]"] * len(of_type(stack, "aws:eks/nodeGroup:NodeGroup"))
        node_pools = [r.inputs["metadata"]["name"] for r in of_type(stack, "kubernetes:karpenter.sh/v1:NodePool")]
        assert sorted(outputs["nodePoolNames"]) == sorted(groups + node_pools)


@pytest.mark.parametrize("stack", ["staging", "prod", "prod-cn"])
def test_protected_environments_protect_and_retain_every_key_and_bucket(stack: str) -> None:
    found = stateful(stack)
    assert found
    assert all(r.protect and r.retain_on_delete for r in found), [r.name for r in found if not r.protect]


def test_dev_protects_nothing_and_peers_only_with_the_deploy_runner() -> None:
    assert all(not r.protect for r in plan("dev").resources)
    peering = [r.name for r in plan("dev").resources if "peer" in r.type.lower()]
    assert peering and all(name.startswith("dev-deploy-peering") for name in peering)
    assert "peeringConnectionId" not in plan("dev").outputs


@pytest.mark.parametrize("stack", STACKS)
def test_the_deploy_runner_reaches_the_private_api(stack: str) -> None:
    """The runner VPC (its bootstrap's parameters) is peered, routed both ways and admitted on the API port, and every
    Kubernetes object waits for that path (docs/deploy.md)."""
    aws_cloud = stack != "prod-cn"
    runner_cidr = "10.250.0.0/22" if aws_cloud else "10.251.0.0/24"
    if aws_cloud:
        rule = named(stack, f"{stack}-deploy-api")
        assert {k: rule.inputs[k] for k in ("type", "protocol", "fromPort", "toPort", "cidrBlocks")} == {
            "type": "ingress",
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "cidrBlocks": [runner_cidr],
        }
        assert named(stack, f"{stack}-gpu-cluster").urn in rule.dependencies
        routes = [r for r in of_type(stack, "aws:ec2/route:Route") if r.name.startswith(f"{stack}-deploy-peering")]
        assert {r.inputs["destinationCidrBlock"] for r in routes} == {
            runner_cidr,
            named(stack, f"{stack}-network-vpc").inputs["cidrBlock"],
        }
        assert named(stack, f"{stack}-deploy-peering-requester").inputs["peerVpcId"] == "vpc-0e5d7c3a9b1f24680"
    else:
        # ACK: the API server's CLB allow list admits the runner VPC (review alicloud.md F3); no security group rule.
        entries = of_type(stack, "alicloud:slb/aclEntryAttachment:AclEntryAttachment")
        assert [e.inputs["entry"] for e in entries] == ["100.104.0.0/16", "10.30.0.0/16", runner_cidr]
        routes = [r for r in of_type(stack, "alicloud:vpc/routeEntry:RouteEntry") if "deploy" in r.name]
        assert sorted(r.inputs["destinationCidrblock"] for r in routes) == ["10.251.0.0/24", "10.30.0.0/16"]
        rule = named(stack, f"{stack}-deploy-peering-connection")
    provider = named(stack, f"{stack}-kubernetes")
    assert rule.urn in provider.dependencies


def test_a_runner_in_another_region_is_read_and_peered_in_that_region(tmp_path: Path) -> None:
    """aws.md A6: with ``deploy.runnerRegion``, the bootstrap's parameters are read there and the peering's accepter,
    its options and the runner-side routes are created there (EC2 CreateVpcPeeringConnection PeerRegion: "the Region
    code for the accepter VPC")."""
    project = load_project(ROOT)
    dev = load_stack(project, "dev")
    deploy = json.dumps({**json.loads(dev.config["gpu-cloud:deploy"]), "runnerRegion": "us-west-2"})
    answers = yaml.safe_load((ROOT / "stacks" / "offline-answers.yaml").read_text(encoding="utf-8"))
    answers["parameters"]["aws:us-west-2"] = answers["parameters"].pop("aws:us-east-1")
    (tmp_path / "offline-answers.yaml").write_text(yaml.safe_dump(answers), encoding="utf-8")
    moved = replace(dev, config={**dev.config, "gpu-cloud:deploy": deploy})
    found = run_program(project, moved, load_offline_answers(project.config_dir, tmp_path / "offline-answers.yaml"))
    peering = {r.name: r.inputs for r in found.resources if r.name.startswith("dev-deploy-peering-")}
    requester = peering["dev-deploy-peering-requester"]
    assert (requester["peerRegion"], requester["peerVpcId"]) == ("us-west-2", "vpc-0e5d7c3a9b1f24680")
    in_runner_region = ["accepter", "accepter-options", "peer-route-0", "peer-route-1"]
    assert [peering[f"dev-deploy-peering-{n}"].get("region") for n in in_runner_region] == ["us-west-2"] * 4
    assert [peering[f"dev-deploy-peering-{n}"].get("region") for n in ("requester", "route-0", "route-1")] == [None] * 3


def test_dev_runs_inference_on_spot_with_an_on_demand_fall_back_that_scales_to_zero() -> None:
    spot = named("dev", "dev-inference-spot-spot").inputs
    fallback = named("dev", "dev-inference-spot-ondemand").inputs
    assert (spot["capacityType"], fallback["capacityType"]) == ("SPOT", "ON_DEMAND")
    assert spot["scalingConfig"]["minSize"] == fallback["scalingConfig"]["minSize"] == 0
    pod = named("dev", "dev-resnet-deployment").inputs["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "gpu-preemptible"
    assert {"key": "gpucloud.io/capacity", "operator": "Equal", "value": "spot", "effect": "NoSchedule"} in pod[
        "tolerations"
    ]


def test_dev_egresses_through_one_nat_gateway() -> None:
    assert len(of_type("dev", "aws:ec2/natGateway:NatGateway")) == 1


def test_staging_trains_on_efa_in_a_cluster_placement_group() -> None:
    template = named("staging@nodegroups", "staging-training-a10g-nodes-lt").inputs
    assert [i["interfaceType"] for i in template["networkInterfaces"]] == ["efa"]
    assert "placement" in template
    # g5's EFA has no RDMA read: the EFA provider, without FI_EFA_USE_DEVICE_RDMA (libfabric would abort).
    nccl = named("staging", "staging-training-nccl-training-a10g").inputs["data"]
    assert nccl == {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO", "FI_PROVIDER": "efa"}


def test_staging_peers_to_a_data_vpc_of_its_own_without_nodes_nat_or_interface_endpoints() -> None:
    """The data VPC staging referenced in another stack was in no backend of docs/deploy.md's sequence (the
    reference could not resolve); staging creates its own, as prod does, with nothing that runs there."""
    requester = named("staging", "staging-peering-requester")
    assert requester.inputs["peerRegion"] == "us-west-2"
    assert named("staging", "staging-data-network-vpc").urn in requester.property_dependencies["peerVpcId"]
    data = [r for r in plan("staging").resources if r.name.startswith("staging-data-network-")]
    assert {r.type for r in data} & {"aws:ec2/natGateway:NatGateway", "aws:ec2/securityGroup:SecurityGroup"} == set()
    assert [r.inputs["vpcEndpointType"] for r in data if r.type == "aws:ec2/vpcEndpoint:VpcEndpoint"] == ["Gateway"]
    assert plan("staging").warnings == ()


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_deployer_role_the_bootstrap_publishes_is_cluster_admin_before_any_kubernetes_object(stack: str) -> None:
    deployer = f"arn:aws:iam::123456789012:role/gpucloud-deployer-{stack}-shared"
    association = named(stack, f"{stack}-gpu-admin-0-policy")
    assert named(stack, f"{stack}-gpu-admin-0").inputs["principalArn"] == deployer
    assert association.inputs["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert (
        named(stack, f"{stack}-gpu-cluster").inputs["accessConfig"]["bootstrapClusterCreatorAdminPermissions"] is False
    )
    assert association.urn in named(stack, f"{stack}-kubernetes").dependencies


def test_staging_and_prod_scale_tensorflow_serving_on_gpu_utilization_at_seventy_percent() -> None:
    for stack in ("staging", "prod"):
        hpa = named(stack, f"{stack}-resnet-hpa").inputs["spec"]
        assert hpa["metrics"][0]["pods"]["metric"]["name"] == "gpu_utilization"
        assert hpa["metrics"][0]["pods"]["target"]["averageValue"] == "70"


def test_prod_cn_scales_tensorflow_serving_on_its_shared_pools_gpu_utilization() -> None:
    [metric] = named("prod-cn", "prod-cn-resnet-hpa").inputs["spec"]["metrics"]
    assert metric["external"]["metric"] == {
        "name": "gpu_pool_utilization",
        "selector": {"matchLabels": {"label_gpucloud_io_pool": "inference"}},
    }
    assert metric["external"]["target"] == {"type": "Value", "value": "70"}


@pytest.mark.parametrize(
    ("stack", "image", "gpu_limit"),
    [
        # EKS AL2023 NVIDIA AMI v20260714: driver 580.159.03, which runs CUDA 13.0.
        ("prod", "vllm/vllm-openai:v0.31.0", {"nvidia.com/gpu": "1"}),
        # ACK's pinned 570.169 runs CUDA 12 builds only.
        ("prod-cn", "vllm/vllm-openai:v0.31.0-cu129", {"aliyun.com/gpu-mem": "10"}),
    ],
)
def test_prod_and_prod_cn_serve_an_llm_with_vllm_scaled_on_its_requests(
    stack: str, image: str, gpu_limit: dict[str, str]
) -> None:
    pod = named(stack, f"{stack}-llm-deployment").inputs["spec"]["template"]["spec"]
    [server] = pod["containers"]
    assert server["image"] == image
    assert gpu_limit.items() <= server["resources"]["limits"].items()
    hpa = named(stack, f"{stack}-llm-hpa").inputs["spec"]
    assert [m["pods"]["metric"]["name"] for m in hpa["metrics"]] == ["vllm_requests_running", "vllm_requests_waiting"]
    assert named(stack, f"{stack}-llm-pod-monitor").inputs["kind"] == "PodMonitor"


@pytest.mark.parametrize("stack", STACKS)
def test_every_inference_pod_stages_its_model_with_its_own_identity_and_is_probed_on_its_model(stack: str) -> None:
    pod = named(stack, f"{stack}-resnet-deployment").inputs["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "resnet"
    [stage] = pod["initContainers"]
    env = {e["name"]: e["value"] for e in stage["env"]}
    assert (env["MODEL_PREFIX"], env["MODEL_NAME"], env["MODEL_BASE_PATH"]) == ("models/resnet50", "resnet", "/models")
    assert env["MODEL_BUCKET"] == plan(stack).outputs["checkpointBucket"]
    [server] = pod["containers"]
    assert server["args"][:2] == ["--model_name=resnet", "--model_base_path=/models/resnet"]
    for probe in ("startupProbe", "readinessProbe"):
        assert server[probe]["httpGet"] == {"path": "/v1/models/resnet", "port": "http"}
    if stack == "prod-cn":
        # The RRSA trust names the cluster's OIDC provider (unknown in a preview); the ServiceAccount names the role.
        account = named(stack, f"{stack}-resnet-service-account").inputs["metadata"]
        assert account["annotations"] == {"pod-identity.alibabacloud.com/role-name": "resnet-inference-prod-cn"}
        policy = json.loads(named(stack, f"{stack}-resnet-identity-policy").inputs["policyDocument"])
        assert [s["Action"] for s in policy["Statement"]] == [["oss:ListObjects"], ["oss:GetObject"], ["kms:Decrypt"]]
    else:
        association = named(stack, f"{stack}-resnet-identity-association").inputs
        assert (association["namespace"], association["serviceAccount"]) == ("gpu-inference", "resnet")


@pytest.mark.parametrize("stack", STACKS)
def test_every_inference_endpoint_is_an_internal_tls_load_balancer(stack: str) -> None:
    service = named(stack, f"{stack}-resnet-service").inputs
    assert service["spec"]["type"] == "LoadBalancer"
    assert service["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": "http"}]
    annotations = service["metadata"]["annotations"]
    if stack == "prod-cn":
        assert annotations["service.beta.kubernetes.io/alibaba-cloud-loadbalancer-protocol-port"] == "tcpssl:443"
        policy = named(stack, "prod-cn-inference-tls13-policy").inputs
        assert policy["tlsVersions"] == ["TLSv1.3"]
    else:
        assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-ports"] == "https"
        assert (
            annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy"]
            == "ELBSecurityPolicy-TLS13-1-3-2021-06"
        )


def test_prod_trains_h100_on_every_efa_interface_and_peers_to_its_own_data_vpc() -> None:
    template = named("prod@nodegroups", "prod-training-h100-nodes-lt").inputs
    assert len(template["networkInterfaces"]) == 32
    node_class = named("prod", "prod-training-h100-nodeclass").inputs["spec"]
    assert len([i for i in node_class["networkInterfaces"] if i["interfaceType"] == "efa-only"]) == 32
    assert named("prod", "prod-data-network-vpc").inputs["cidrBlock"] == "10.30.0.0/16"
    assert len(of_type("prod", "aws:ec2/natGateway:NatGateway")) == 3


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_eks_workload_identity_is_pod_identity_for_the_autoscaler(stack: str) -> None:
    association = named(stack, f"{stack}-autoscaler-identity-association").inputs
    assert (association["namespace"], association["serviceAccount"]) == ("kube-system", "cluster-autoscaler")


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_training_service_account_reaches_the_checkpoint_bucket_through_pod_identity(stack: str) -> None:
    association = named(stack, f"{stack}-training-identity-association").inputs
    assert (association["namespace"], association["serviceAccount"]) == ("gpu-training", "training")
    account = named(stack, f"{stack}-training-service-account").inputs["metadata"]
    assert "annotations" not in account


def test_prod_cn_is_alibaba_cloud_and_kubernetes_only() -> None:
    prefixes = {r.type.split(":", 1)[0] for r in plan("prod-cn").resources if r.custom}
    assert prefixes == {"alicloud", "kubernetes", "pulumi"}


def test_prod_cn_peers_with_routes_on_both_sides() -> None:
    routes = of_type("prod-cn", "alicloud:vpc/routeEntry:RouteEntry")
    data = [r for r in routes if "deploy" not in r.name]
    assert sorted(r.inputs["destinationCidrblock"] for r in data) == ["10.30.0.0/16", "10.40.0.0/16"]
    assert len({r.provider for r in data}) == 2


def test_prod_cn_training_reaches_oss_through_rrsa() -> None:
    account = named("prod-cn", "prod-cn-training-service-account").inputs["metadata"]
    assert account["annotations"] == {"pod-identity.alibabacloud.com/role-name": "gpu-training-prod-cn"}
    policy = json.loads(named("prod-cn", "prod-cn-training-identity-policy").inputs["policyDocument"])
    assert policy["Statement"][0]["Resource"][0].endswith(":gpucloud-ckpt-prod-cn-1234567890123456")


@pytest.mark.parametrize("stack", STACKS)
def test_every_cluster_has_an_untainted_cpu_system_pool(stack: str) -> None:
    pool = named(stack, f"{stack}-gpu-system").inputs
    types: Any = pool["instanceTypes"]
    assert types in (["m6i.xlarge"], ["ecs.g7.xlarge"])
    assert not pool.get("taints")


KARPENTER_KINDS = ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")


@pytest.mark.parametrize("stack", STACKS)
def test_kubernetes_objects_wait_for_the_cluster_and_its_node_pools(stack: str) -> None:
    """The Kubernetes layer's objects wait for the node groups or, on Karpenter, for its NodePools (installed with
    Karpenter on a provider of their own that waits for the cluster and the deploy path only)."""
    provider = named(stack, f"{stack}-kubernetes")
    system = named(stack, f"{stack}-gpu-system").urn
    assert system in provider.dependencies
    types = ("aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool", *KARPENTER_KINDS)
    pools = [r for r in plan(stack).resources if r.type in types]
    assert all(p.urn in provider.dependencies for p in pools)
    karpenter = [r for r in plan(stack).resources if r.name == f"{stack}-karpenter-kubernetes"]
    k8s_objects = [r for r in plan(stack).resources if r.type.startswith("kubernetes:") and r.custom]
    for r in k8s_objects:
        on_karpenter = r.type in KARPENTER_KINDS or "gpucloud:aws:Karpenter$" in r.urn
        assert r.provider.startswith((karpenter[0] if on_karpenter else provider).urn), r.name
    if karpenter:
        assert named(stack, f"{stack}-gpu-cluster").urn in karpenter[0].dependencies
        assert named(stack, f"{stack}-deploy-api").urn in karpenter[0].dependencies


def test_prod_cn_grants_bind_cluster_roles_and_namespaces_the_plan_declares() -> None:
    """ACK GrantPermissions binds only custom ClusterRoles: every role a grant names must be a ClusterRole of the plan
    (a namespaced Role would bind nothing), every namespace one of its Namespaces, and the grant waits for both."""
    cluster_roles = {r.inputs["metadata"]["name"]: r.urn for r in of_type("prod-cn", CLUSTER_ROLE)}
    namespaces = {r.inputs["metadata"]["name"] for r in of_type("prod-cn", "kubernetes:core/v1:Namespace")}
    every = of_type("prod-cn", "alicloud:cs/kubernetesPermission:KubernetesPermission")
    # The deployer role's grant is ACK's predefined admin on the cluster (ClusterAdmins); the rest bind custom roles.
    [deployer] = [g for g in every if g.name == "prod-cn-admins-ml-platform-deployer"]
    assert [(p["roleName"], p["roleType"], p["isCustom"]) for p in deployer.inputs["permissions"]] == [
        ("admin", "cluster", False)
    ]
    grants = [g for g in every if g is not deployer]
    assert len(grants) == 2
    for grant in grants:
        for permission in grant.inputs["permissions"]:
            assert permission["isCustom"] is True
            assert permission["roleName"] in cluster_roles, permission
            assert cluster_roles[permission["roleName"]] in grant.dependencies
            if permission["roleType"] == "namespace":
                assert permission["namespace"] in namespaces, permission
    assert not of_type("prod-cn", "kubernetes:rbac.authorization.k8s.io/v1:Role")
    # ACK maps no Kubernetes groups, so no binding names one.
    assert not of_type("prod-cn", "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")


CLUSTER_ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"


LEGACY_PRIORITIES = {"50": [".*\\-spot.*"], "20": [".*\\-ondemand.*"], "10": [".*"]}
"""The expander config before exact patterns: unanchored, so ``x-spot-ondemand`` matched the spot pattern too."""


def _expander_ranking_problems(stack: str, priorities: dict[str, list[str]]) -> list[str]:
    """Apply the priority expander's rule (components.aws.expander.priority_of: highest priority whose pattern an
    unanchored search finds) to the ASG name EKS gives each planned node group (eks-<nodegroup>-<uuid>, where
    Terraform names the node group <prefix><18 timestamp digits><8 hex digits>); what keeps a spot group from ranking
    strictly above its own fall-back and every on-demand group, or leaves a group unused."""
    generated, uuid = "202612031545123456" + "0000002f", "9ec6c5bb-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
    groups = {
        r.inputs["nodeGroupNamePrefix"]: r.inputs["capacityType"] for r in of_type(stack, "aws:eks/nodeGroup:NodeGroup")
    }
    ranks = {name: priority_of(f"eks-{name}{generated}-{uuid}", priorities) for name in groups}
    problems = [f"{name} matches no pattern" for name, rank in ranks.items() if rank is None]
    for spot in (n for n, capacity in groups.items() if capacity == "SPOT"):
        for other in (n for n, capacity in groups.items() if capacity == "ON_DEMAND"):
            if (ranks[other] or 0) >= (ranks[spot] or 0):
                problems.append(f"{other} ({ranks[other]}) ranks as high as {spot} ({ranks[spot]})")
    return problems


@pytest.mark.parametrize("stack", ON_NODE_GROUPS)
def test_the_expander_ranks_every_spot_group_above_its_fall_back_and_the_on_demand_pools(stack: str) -> None:
    env = stack.partition("@")[0]
    values = named(stack, f"{env}-gpu-addons-cluster-autoscaler").inputs["values"]
    assert values["extraArgs"]["expander"] == "priority"
    assert any(r.inputs["capacityType"] == "SPOT" for r in of_type(stack, "aws:eks/nodeGroup:NodeGroup"))
    assert _expander_ranking_problems(stack, values["expanderPriorities"]) == []


@pytest.mark.parametrize(
    ("stack", "fallback", "spot"),
    [
        ("dev", "inference-spot-ondemand", "inference-spot-spot"),
        ("staging@nodegroups", "inference-spot-ondemand", "inference-spot-spot"),
        ("prod@nodegroups", "training-spot-ondemand", "training-spot-spot"),
    ],
)
def test_the_same_check_fails_on_the_unanchored_spot_pattern(stack: str, fallback: str, spot: str) -> None:
    assert f"{fallback}- (50) ranks as high as {spot}- (50)" in _expander_ranking_problems(stack, LEGACY_PRIORITIES)


@pytest.mark.parametrize("stack", ON_NODE_GROUPS)
def test_the_autoscaler_template_advertises_efa_only_where_the_efa_plugin_runs_and_as_many_as_attached(
    stack: str,
) -> None:
    env = stack.partition("@")[0]
    plugin = [r for r in plan(stack).resources if r.name == f"{env}-gpu-addons-aws-efa-k8s-device-plugin"]
    plugin_pools = set(plugin[0].inputs["values"]["supportedInstanceLabels"]["values"]) if plugin else set()
    if plugin:
        assert plugin[0].inputs["values"]["supportedInstanceLabels"]["keys"] == ["gpucloud.io/pool"]
    templates = {r.urn: r for r in of_type(stack, "aws:ec2/launchTemplate:LaunchTemplate")}
    advertised = {}
    for group in of_type(stack, "aws:eks/nodeGroup:NodeGroup"):
        efa = group.inputs["tags"].get("k8s.io/cluster-autoscaler/node-template/resources/vpc.amazonaws.com/efa")
        if efa is None:
            continue
        [template] = [t for urn, t in templates.items() if urn in group.dependencies]
        devices = [i for i in template.inputs["networkInterfaces"] if i.get("interfaceType") in ("efa", "efa-only")]
        assert int(efa) == len(devices), group.name
        advertised[group.inputs["labels"]["gpucloud.io/pool"]] = int(efa)
    assert set(advertised) == plugin_pools
    assert advertised == {"dev": {}, "staging": {"training-a10g": 1}, "prod": {"training-h100": 32}}[env]


def test_prod_cn_enables_cluster_autoscaling_over_every_pool_and_its_spot_pool_buys_no_on_demand() -> None:
    [config] = of_type("prod-cn", "alicloud:cs/autoscalingConfig:AutoscalingConfig")
    assert (config.inputs["expander"], config.inputs["gpuUtilizationThreshold"]) == ("priority", "0.3")
    assert sorted(config.inputs["priorities"]) == ["10", "20", "50"]
    pools = {p.name: p.urn for p in of_type("prod-cn", "alicloud:cs/nodePool:NodePool")}
    system = pools.pop("prod-cn-gpu-system")
    # The scaling group ids are known only after apply; every autoscaled GPU pool feeds the priorities, the fixed
    # system pool does not (ACK keeps system components off autoscaled nodes).
    assert set(pools.values()) <= set(config.property_dependencies["priorities"])
    assert system not in config.property_dependencies["priorities"]
    assert "scalingConfig" not in named("prod-cn", "prod-cn-gpu-system").inputs
    spot = named("prod-cn", "prod-cn-batch-spot").inputs
    assert spot["compensateWithOnDemand"] is False
    assert label_map(spot)["gpucloud.io/capacity"] == "spot"
    assert label_map(named("prod-cn", "prod-cn-batch-ondemand").inputs)["gpucloud.io/capacity"] == "on-demand"


@pytest.mark.parametrize("stack", ["dev", "staging", "prod", *ON_NODE_GROUPS[1:]])
def test_every_node_instance_volume_and_interface_carries_the_environments_tags(stack: str) -> None:
    """The provider's default tags reach the launch templates, not what EC2 launches from them: each template tags
    its instances, volumes and network interfaces itself, with the same tags (the required ones among them)."""
    [provider] = [r for r in plan(stack).resources if r.type == "pulumi:providers:aws" and r.name == "aws"]
    # Provider inputs reach the engine JSON-encoded.
    tags = json.loads(str(provider.inputs["defaultTags"]))["tags"]
    assert {"owner", "cost-center"} <= set(tags)
    templates = of_type(stack, "aws:ec2/launchTemplate:LaunchTemplate")
    assert len(templates) == EXPECTED_COUNTS[stack]["aws:ec2/launchTemplate:LaunchTemplate"]
    for template in templates:
        assert template.inputs["tagSpecifications"] == [
            {"resourceType": kind, "tags": tags} for kind in ("instance", "volume", "network-interface")
        ], template.name
    # Karpenter tags its instances, volumes and launch templates with an EC2NodeClass's tags (nodeclasses.md
    # "spec.tags"): the same ones.
    for node_class in of_type(stack, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"):
        assert node_class.inputs["spec"]["tags"] == tags, node_class.name


def test_prod_cn_installs_gpu_sharing_once_the_system_pool_has_nodes() -> None:
    """alicloud.md F10: the add-on's install task is awaited within its create timeout, so it waits for the cluster's
    first nodes (the system pool), not for the cluster alone."""
    [addon] = of_type("prod-cn", "alicloud:cs/kubernetesAddon:KubernetesAddon")
    assert named("prod-cn", "prod-cn-gpu-system").urn in addon.dependencies


def test_prod_cn_pods_take_vswitches_of_their_own_and_the_cluster_waits_for_every_snat_entry() -> None:
    """alicloud.md F7: Terway's pod vswitches are not the node vswitches (ACK reads pod_vswitch_ids on create only).
    F9: the cluster is created once the VPC has its egress, every SNAT entry of the network."""
    cluster = named("prod-cn", "prod-cn-gpu-cluster")
    names = {
        key: sorted(urn.rsplit("::", 1)[1] for urn in cluster.property_dependencies[key])
        for key in ("vswitchIds", "podVswitchIds")
    }
    assert names == {
        "vswitchIds": ["prod-cn-network-vswitch-0", "prod-cn-network-vswitch-1"],
        "podVswitchIds": ["prod-cn-network-pod-vswitch-0", "prod-cn-network-pod-vswitch-1"],
    }
    snat = {r.urn for r in of_type("prod-cn", "alicloud:vpc/snatEntry:SnatEntry")}
    assert len(snat) == 4
    assert snat <= set(cluster.dependencies)


def test_prod_cn_installs_gpu_sharing_on_its_cluster_before_the_kubernetes_layer() -> None:
    """The shared inference pool's pods request aliyun.com/gpu-mem, which only ack-ai-installer advertises; the
    cluster's addons list reaches only a new cluster, so the add-on is its own resource, and the Kubernetes objects
    (the resnet pods among them) wait for it."""
    [addon] = of_type("prod-cn", "alicloud:cs/kubernetesAddon:KubernetesAddon")
    assert addon.inputs["name"] == "ack-ai-installer"
    assert list(addon.property_dependencies["clusterId"]) == [named("prod-cn", "prod-cn-gpu-cluster").urn]
    assert addon.urn in named("prod-cn", "prod-cn-kubernetes").dependencies
    assert label_map(named("prod-cn", "prod-cn-inference-pool").inputs)["ack.node.gpu.schedule"] == "cgpu"
    names = [a["name"] for a in named("prod-cn", "prod-cn-gpu-cluster").inputs["addons"]]
    assert "ack-ai-installer" not in names


@pytest.mark.parametrize(
    ("stack", "cluster_type"),
    [
        ("staging", "aws:eks/cluster:Cluster"),
        ("prod", "aws:eks/cluster:Cluster"),
        ("prod-cn", "alicloud:cs/managedKubernetes:ManagedKubernetes"),
    ],
)
def test_clusters_of_protected_environments_are_protected_and_deletion_protected(stack: str, cluster_type: str) -> None:
    [cluster] = of_type(stack, cluster_type)
    assert (cluster.protect, cluster.inputs["deletionProtection"]) == (True, True)


@pytest.mark.parametrize("stack", STACKS)
def test_every_cluster_keeps_its_api_audit_log(stack: str) -> None:
    eks = of_type(stack, "aws:eks/cluster:Cluster")
    ack = of_type(stack, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert len(eks + ack) == 1
    for cluster in eks:
        assert {"api", "audit", "authenticator"} <= set(cluster.inputs["enabledClusterLogTypes"])
    for cluster in ack:
        assert cluster.inputs["auditLogConfig"] == {"enabled": True}
        assert "apiserver" in cluster.inputs["controlPlaneLogComponents"]


def test_the_dev_cluster_can_be_deleted() -> None:
    [cluster] = of_type("dev", "aws:eks/cluster:Cluster")
    assert (cluster.protect, cluster.inputs["deletionProtection"]) == (False, False)


@pytest.mark.parametrize("stack", STACKS)
def test_every_alert_is_routed_to_the_environments_receiver(stack: str) -> None:
    alertmanager = named(stack, f"{stack}-gpu-addons-kube-prometheus-stack").inputs["values"]["alertmanager"]
    config = alertmanager["config"]
    assert config["route"]["receiver"] == "gpucloud"
    (receiver,) = [r for r in config["receivers"] if r["name"] == "gpucloud"]
    if stack == "prod-cn":
        assert receiver["webhook_configs"] == [
            {"url_file": "/etc/alertmanager/secrets/gpucloud-alert-receiver/url", "send_resolved": True}
        ]
        assert alertmanager["alertmanagerSpec"]["secrets"] == ["gpucloud-alert-receiver"]
        assert named(stack, f"{stack}-gpu-addons-gpucloud-alert-receiver").inputs["stringData"] == "[secret]"
    else:
        topic = f"arn:aws:sns:us-east-1:123456789012:gpucloud-{stack}-alerts"
        assert receiver["sns_configs"][0]["topic_arn"] == topic
        # Alertmanager's ServiceAccount gets a Pod Identity role that may publish to that topic only.
        association = named(stack, f"{stack}-alertmanager-identity-association").inputs
        assert (association["namespace"], association["serviceAccount"]) == ("monitoring", "alertmanager")
        assert alertmanager["serviceAccount"] == {"name": "alertmanager"}
        policy = json.loads(named(stack, f"{stack}-alertmanager-identity-policy").inputs["policy"])
        assert policy["Statement"] == [
            {"Sid": "PublishAlerts", "Effect": "Allow", "Action": "sns:Publish", "Resource": topic}
        ]


@pytest.mark.parametrize("stack", ["staging", "prod", "prod-cn"])
def test_the_nccl_config_map_of_a_pool_holds_what_the_projects_jobs_on_it_carry(stack: str) -> None:
    """k8s.md S2: the project's own JobSets carry their pool's NCCL settings in their pods' environment (a change
    replaces the JobSet); the ConfigMap ``nccl-<pool>`` offers the same settings to jobs written outside the project,
    so the two never disagree."""
    maps = {
        r.inputs["metadata"]["name"].removeprefix("nccl-"): r.inputs["data"]
        for r in plan(stack).resources
        if r.type == "kubernetes:core/v1:ConfigMap" and r.inputs["metadata"]["name"].startswith("nccl-")
    }
    checked = 0
    for jobset in of_type(stack, "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"):
        for replicated in jobset.inputs["spec"]["replicatedJobs"]:
            pod = replicated["template"]["spec"]["template"]["spec"]
            pool = (pod.get("nodeSelector") or {}).get("gpucloud.io/pool")
            if pool is None:
                continue
            for container in pod["containers"]:
                env = {e["name"]: e.get("value") for e in container.get("env", [])}
                assert {k: env.get(k) for k in maps[pool]} == maps[pool], (jobset.name, container["name"])
                checked += 1
    assert checked > 0
