#!/usr/bin/env bash
# gpu-cloud deploy runner, Alibaba Cloud: one `pulumi preview|up` (or the first `stack init`) of an environment,
# run on the runner ECS instance as the Cloud Assistant command the bootstrap registers (bootstrap/alicloud_account.py
# RUNNER_SCRIPT documents every step and its sources). Cloud Assistant puts an invocation's parameters in place of
# the first four values below; the bootstrap puts its own in place of the next five when it registers the command.
set -euo pipefail

STACK='{{stack}}'
PULUMI_COMMAND='{{pulumiCommand}}'
DEPLOYER_ROLE_ARN='{{deployerRoleArn}}'
SOURCE_OBJECT='{{sourceObject}}'
REGION='@@region@@'
STATE_BUCKET='@@stateBucket@@'
PASSPHRASE_SECRET='@@passphraseSecret@@'
RUNNER_ROLE='@@runnerRole@@'
ALIYUN_CLI_VERSION='@@aliyunCliVersion@@'

GPUCLOUD_HOME="${GPUCLOUD_HOME:-/opt/gpucloud}"
BIN="$GPUCLOUD_HOME/bin"

fail() {
	echo "gpucloud-runner: $*" >&2
	exit 2
}

check() { # name value pattern
	[[ $2 =~ $3 ]] || fail "$1 is not valid (got '$2')"
}

check stack "$STACK" '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$'
check pulumiCommand "$PULUMI_COMMAND" '^(preview|up|init)$'
check deployerRoleArn "$DEPLOYER_ROLE_ARN" '^acs:ram::[0-9]+:role/[A-Za-z0-9.-]{1,64}$'
check sourceObject "$SOURCE_OBJECT" '^deploy/[A-Za-z0-9._-]+\.tar\.gz$'

# Downloads go over HTTPS only (the runner's egress allows TCP 443 out and nothing else on the Internet).
fetch() { # url file
	curl --proto '=https' --tlsv1.2 -fsSL --retry 3 -o "$2" "$1"
}

verify() { # checksum-file file: the file's line of a sha256sum-format list must match it
	local line
	line="$(grep -E "[ *]$(basename "$2")\$" "$1")" || fail "no checksum for $(basename "$2") in $(basename "$1")"
	(cd "$(dirname "$2")" && sha256sum -c --quiet - <<<"$line") || fail "checksum mismatch: $(basename "$2")"
}

install_aliyun() {
	[[ "$("$BIN/aliyun" version 2>/dev/null || true)" == "$ALIYUN_CLI_VERSION" ]] && return
	local dir tgz
	dir="$(mktemp -d)"
	tgz="$dir/aliyun-cli-linux-$ALIYUN_CLI_VERSION-amd64.tgz"
	fetch "https://aliyuncli.alicdn.com/$(basename "$tgz")" "$tgz"
	fetch "https://github.com/aliyun/aliyun-cli/releases/download/v$ALIYUN_CLI_VERSION/SHASUMS256.txt" "$dir/SHASUMS256.txt"
	verify "$dir/SHASUMS256.txt" "$tgz"
	tar -xzf "$tgz" -C "$BIN" aliyun
	rm -rf "$dir"
}

install_uv() { # version
	[[ "$("$BIN/uv" --version 2>/dev/null || true)" == "uv $1"* ]] && return
	local dir tgz
	dir="$(mktemp -d)"
	tgz="$dir/uv-x86_64-unknown-linux-gnu.tar.gz"
	fetch "https://github.com/astral-sh/uv/releases/download/$1/$(basename "$tgz")" "$tgz"
	fetch "https://github.com/astral-sh/uv/releases/download/$1/$(basename "$tgz").sha256" "$tgz.sha256"
	verify "$tgz.sha256" "$tgz"
	tar -xzf "$tgz" -C "$BIN" --strip-components=1 uv-x86_64-unknown-linux-gnu/uv
	rm -rf "$dir"
}

install_pulumi() { # version
	[[ "$("$GPUCLOUD_HOME/pulumi/pulumi" version 2>/dev/null || true)" == "v$1" ]] && return
	local dir tgz
	dir="$(mktemp -d)"
	tgz="$dir/pulumi-v$1-linux-x64.tar.gz"
	fetch "https://get.pulumi.com/releases/sdk/$(basename "$tgz")" "$tgz"
	fetch "https://get.pulumi.com/releases/sdk/pulumi-$1-checksums.txt" "$dir/checksums.txt"
	verify "$dir/checksums.txt" "$tgz"
	rm -rf "$GPUCLOUD_HOME/pulumi"
	tar -xzf "$tgz" -C "$GPUCLOUD_HOME"
	rm -rf "$dir"
}

mkdir -p "$BIN" "$GPUCLOUD_HOME/home"
export HOME="$GPUCLOUD_HOME/home" PATH="$BIN:$GPUCLOUD_HOME/pulumi:$PATH"
install_aliyun

# Credentials: the instance's RAM role (profile runner) reads the source, the state and the passphrase; the deployer
# role, assumed from it and renewed by the SDKs (profile deployer), is what the program's providers act as.
umask 077
mkdir -p "$HOME/.aliyun"
cat >"$HOME/.aliyun/config.json" <<EOF
{
  "current": "runner",
  "profiles": [
    {"name": "runner", "mode": "EcsRamRole", "ram_role_name": "$RUNNER_ROLE", "region_id": "$REGION"},
    {"name": "deployer", "mode": "ChainableRamRoleArn", "source_profile": "runner",
     "ram_role_arn": "$DEPLOYER_ROLE_ARN", "ram_session_name": "gpucloud-deploy", "expired_seconds": 3600,
     "region_id": "$REGION"}
  ],
  "meta_path": ""
}
EOF

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
aliyun --profile runner oss cp "oss://$STATE_BUCKET/$SOURCE_OBJECT" "$WORK/source.tar.gz" \
	--endpoint "oss-$REGION-internal.aliyuncs.com"
mkdir "$WORK/src"
tar -xzf "$WORK/source.tar.gz" -C "$WORK/src"
cd "$WORK/src"

# The toolchain the repository pins: uv from pyproject.toml's dev group, the Pulumi CLI of uv.lock's pulumi SDK.
UV_VERSION="$(sed -n 's/^ *"uv==\([0-9.]*\)",$/\1/p' pyproject.toml)"
PULUMI_VERSION="$(awk '/^name = "pulumi"$/ {found = 1; next} found && /^version = / {gsub(/"/, "", $3); print $3; exit}' uv.lock)"
[[ -n "$UV_VERSION" && -n "$PULUMI_VERSION" ]] || fail "no uv pin in pyproject.toml or no pulumi in uv.lock"
install_uv "$UV_VERSION"
install_pulumi "$PULUMI_VERSION"
export UV_PROJECT_ENVIRONMENT="$WORK/src/.venv" UV_PYTHON_INSTALL_DIR="$GPUCLOUD_HOME/python"
uv sync --locked --python 3.11 --quiet
PYTHON="$WORK/src/.venv/bin/python"
export PULUMI_PYTHON_CMD="$PYTHON" PULUMI_HOME="$GPUCLOUD_HOME/pulumi-home" PULUMI_SKIP_UPDATE_CHECK=true

# The secrets provider is passphrase; the passphrase is a KMS secret only the runner role may read.
aliyun --profile runner kms GetSecretValue --SecretName "$PASSPHRASE_SECRET" --region "$REGION" \
	| "$PYTHON" -c 'import json, sys; sys.stdout.write(json.load(sys.stdin)["SecretData"])' >"$WORK/passphrase"
export PULUMI_CONFIG_PASSPHRASE_FILE="$WORK/passphrase"

# The OSS backend through its S3 API: the AWS SDK of the Pulumi CLI gets the runner role's STS credentials from the
# instance metadata through credential_process, and renews them when they expire.
cat >"$WORK/aws-config" <<EOF
[profile gpucloud-state]
credential_process = $PYTHON $WORK/src/bootstrap/alicloud_runner_credentials.py $RUNNER_ROLE
EOF
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
export AWS_CONFIG_FILE="$WORK/aws-config" AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_PROFILE=gpucloud-state
pulumi login "s3://$STATE_BUCKET?endpoint=https://s3.oss-$REGION-internal.aliyuncs.com&region=$REGION&request_checksum_calculation=when_required&response_checksum_validation=when_required"

export ALICLOUD_PROFILE=deployer
CONFIG_FILE="stacks/Pulumi.$STACK.yaml"
[[ -f "$CONFIG_FILE" ]] || fail "no stack config $CONFIG_FILE in the source"
if [[ "$PULUMI_COMMAND" == init ]]; then
	pulumi stack select "$STACK" 2>/dev/null || pulumi stack init "$STACK" --secrets-provider passphrase
	echo "gpucloud-runner: commit this line to $CONFIG_FILE:"
	grep '^encryptionsalt:' "$CONFIG_FILE"
	exit 0
fi
grep -q '^encryptionsalt:' "$CONFIG_FILE" || fail "$CONFIG_FILE has no encryptionsalt: run pulumiCommand=init first"
pulumi stack select "$STACK"
if [[ "$PULUMI_COMMAND" == up ]]; then
	pulumi up --yes --stack "$STACK" --policy-pack gpu_cloud/policies --policy-pack-config stacks/policy-config.json
else
	pulumi preview --stack "$STACK" --policy-pack gpu_cloud/policies --policy-pack-config stacks/policy-config.json
fi
