#!/usr/bin/env bash
# One build of a deploy runner project on this commit, waited for (docs/deploy.md):
#   bootstrap/run-aws-build.sh STATE_BUCKET PROJECT [PULUMI COMMAND ...]
# e.g. bootstrap/run-aws-build.sh gpucloud-state-shared-123456789012-us-east-1 gpucloud-deploy-prod-shared up --yes
# Uploads HEAD as an object of its own (deploy/<commit>.zip: concurrent builds never share one), starts the build
# pinned to that object's version (CodeBuild StartBuild sourceVersion: "the version ID of the object that represents
# the build input ZIP file"), polls it (StartBuild returns at once and CodeBuild has no waiter) and exits non-zero
# unless it SUCCEEDED. Without a command the project's own (preview) runs.
set -euo pipefail
bucket=$1
project=$2
shift 2
key="deploy/$(git rev-parse HEAD).zip"
git archive --format=zip -o source.zip HEAD
version=$(aws s3api put-object --bucket "$bucket" --key "$key" --body source.zip --query VersionId --output text)
overrides=()
if [ $# -gt 0 ]; then
  overrides=(--environment-variables-override "name=PULUMI_COMMAND,value=$*")
fi
build=$(aws codebuild start-build --project-name "$project" --source-location-override "$bucket/$key" \
  --source-version "$version" "${overrides[@]}" --query build.id --output text)
echo "build $build started"
while status=$(aws codebuild batch-get-builds --ids "$build" --query 'builds[0].buildStatus' --output text) &&
  [ "$status" = IN_PROGRESS ]; do
  sleep 30
done
echo "build $build: $status"
[ "$status" = SUCCEEDED ]
