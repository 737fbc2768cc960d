# Stage one version of a model from the environment's bucket before the server starts (the inference pod's init
# container): into TensorFlow Serving's layout, $MODEL_BASE_PATH/$MODEL_NAME/<version>/ (MODEL_LAYOUT=versioned), or
# as the one model directory $MODEL_BASE_PATH/$MODEL_NAME/ a vLLM server is started on (MODEL_LAYOUT=flat).
#
# Environment: MODEL_STORE (s3 or oss), MODEL_BUCKET, MODEL_PREFIX (key prefix of the model; its numeric
# sub-prefixes are the versions), MODEL_VERSION ("latest" or a version number), MODEL_NAME, MODEL_BASE_PATH;
# MODEL_WAIT_SECONDS (default 30): how often to look again while no such version exists yet; MODEL_LAYOUT
# (versioned, the default, or flat); MODEL_FORMAT: savedmodel (the default: saved_model.pb or .pbtxt), huggingface
# (config.json, as vLLM loads a model directory) or any.
# s3: the AWS CLI with the pod's EKS Pod Identity credentials (AWS_REGION from the pod).
# oss: ossutil 2 with the pod's RRSA credentials (the ack-pod-identity-webhook's ALIBABA_CLOUD_* variables),
# OSS_REGION and OSS_ENDPOINT; OSSUTIL is the binary to run.
# POSIX sh and the store's CLI only: the AWS CLI image has no other tools to rely on.
set -eu

: "${MODEL_STORE:?}" "${MODEL_BUCKET:?}" "${MODEL_PREFIX:?}" "${MODEL_VERSION:?}" "${MODEL_NAME:?}"
: "${MODEL_BASE_PATH:?}"

case "$MODEL_STORE" in
s3)
    listed="$MODEL_PREFIX/"
    versions() {
        aws s3api list-objects-v2 --bucket "$MODEL_BUCKET" --prefix "$MODEL_PREFIX/" --delimiter / \
            --query 'CommonPrefixes[].Prefix' --output text
    }
    fetch() {
        aws s3 cp --recursive --only-show-errors "s3://$MODEL_BUCKET/$MODEL_PREFIX/$1/" "$2/"
    }
    ;;
oss)
    # ossutil 2 reads OIDC role credentials from its config file (mode oidcRoleArn), not from the environment.
    config="${TMPDIR:-/tmp}/ossutilconfig"
    cat >"$config" <<EOF
[default]
mode = oidcRoleArn
OIDCProviderArn = ${ALIBABA_CLOUD_OIDC_PROVIDER_ARN:?}
OIDCTokenFilePath = ${ALIBABA_CLOUD_OIDC_TOKEN_FILE:?}
roleArn = ${ALIBABA_CLOUD_ROLE_ARN:?}
roleSessionName = stage-model
region = ${OSS_REGION:?}
endpoint = ${OSS_ENDPOINT:?}
EOF
    listed="oss://$MODEL_BUCKET/$MODEL_PREFIX/"
    versions() {
        "${OSSUTIL:?}" --config-file "$config" ls -d "oss://$MODEL_BUCKET/$MODEL_PREFIX/"
    }
    fetch() {
        "$OSSUTIL" --config-file "$config" cp -r -f "oss://$MODEL_BUCKET/$MODEL_PREFIX/$1/" "$2/"
    }
    ;;
*)
    echo "stage-model: MODEL_STORE must be s3 or oss (got $MODEL_STORE)" >&2
    exit 2
    ;;
esac

# The version directories directly under the prefix: numeric names only, as TensorFlow Serving reads them.
find_version() {
    found=""
    latest=""
    for entry in $(versions); do
        case "$entry" in "$listed"*) ;; *) continue ;; esac
        name="${entry#"$listed"}"
        name="${name%/}"
        case "$name" in '' | *[!0-9]*) continue ;; esac
        found="$found $name"
        if [ -z "$latest" ] || [ "$name" -gt "$latest" ]; then latest="$name"; fi
    done
    if [ "$MODEL_VERSION" = latest ]; then
        version="$latest"
    else
        version=""
        for name in $found; do
            if [ "$name" -eq "$MODEL_VERSION" ]; then version="$name"; fi
        done
    fi
}

# A model not uploaded yet (the first `pulumi up` creates the bucket) is waited for, not a failure: the pod stays
# in its init phase, not Ready, until the version appears (docs/deploy.md uploads it).
find_version
while [ -z "$version" ]; do
    echo "stage-model: waiting for version $MODEL_VERSION under $listed (found:${found:- none});" \
        "checking again in ${MODEL_WAIT_SECONDS:-30}s" >&2
    sleep "${MODEL_WAIT_SECONDS:-30}"
    find_version
done

case "${MODEL_LAYOUT:-versioned}" in
versioned) target="$MODEL_BASE_PATH/$MODEL_NAME/$version" ;;
flat) target="$MODEL_BASE_PATH/$MODEL_NAME" ;;
*)
    echo "stage-model: MODEL_LAYOUT must be versioned or flat (got $MODEL_LAYOUT)" >&2
    exit 2
    ;;
esac
rm -rf "${MODEL_BASE_PATH:?}/$MODEL_NAME"
mkdir -p "$target"
fetch "$version" "$target"
case "${MODEL_FORMAT:-savedmodel}" in
savedmodel)
    if [ ! -f "$target/saved_model.pb" ] && [ ! -f "$target/saved_model.pbtxt" ]; then
        echo "stage-model: $listed$version/ is not a SavedModel (no saved_model.pb)" >&2
        exit 1
    fi
    ;;
huggingface)
    if [ ! -f "$target/config.json" ]; then
        echo "stage-model: $listed$version/ is not a Hugging Face model directory (no config.json)" >&2
        exit 1
    fi
    ;;
any) ;;
*)
    echo "stage-model: MODEL_FORMAT must be savedmodel, huggingface or any (got $MODEL_FORMAT)" >&2
    exit 2
    ;;
esac
echo "stage-model: staged $listed$version/ as $target"
