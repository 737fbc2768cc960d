"""Reusable Pulumi components for GPU clusters on AWS (EKS) and Alibaba Cloud (ACK)."""
