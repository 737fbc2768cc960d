"""The rehearsal of docs/deploy.md: the page's command sequence for AWS and Alibaba Cloud, run from the page itself.

What it models, each as its receiver behaves (tests/lifecycle/stub.py, checks.py):
- Pulumi backends: one login per machine, a stack lives in the backend it was created in, a StackReference resolves
  only among that backend's stacks and a parameter read only where the bootstrap published it
  (gpu_cloud.planner.offline); `up` and `preview` run the real programs offline and keep outputs and resources.
- CodeBuild: the project's service role assumed by CodeBuild (trust policy, aws:SourceAccount / aws:SourceArn), the
  source object downloaded by version (S3 + KMS), the buildspec run with bash as that role; the stack's state, its
  secrets and every parameter the program reads authorized by the planned IAM with principalmapper
  (tests/lifecycle/iam.py); an `up` of the Kubernetes layer needs the role's cluster-admin access entry.
- Cloud Assistant: the runner's command runs Pulumi in the bootstrap's OSS backend.
- A first `up` that awaits model servers whose model is not in the bucket fails; a later `up` that updates a field
  the receiving API refuses to change (JobSet) fails (tests/lifecycle/steps.py).
- Quotas: Elastic IPs, VPCs and NAT gateways counted across every stack of the account; an `up` that takes the
  account past one fails as EC2 refuses it (tests/lifecycle/quotas.py).

Limits: RAM policies are not evaluated (no local RAM evaluator exists; the Alibaba runner's permissions are tested in
tests/test_bootstrap_cn_runner.py); managed policies attached from outside a program grant nothing here; the
Kubernetes API itself is not run (only what the step plan and the awaits decide).
"""
