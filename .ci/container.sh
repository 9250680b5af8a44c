#!/usr/bin/env bash
# The container stage of .ci/run: installs podman (Debian), builds a Node 20 base from Debian packages and the npm
# registry (.ci/container-base.sh; no container registry is reachable), builds the project's Dockerfile on it, and
# runs test/container/ against the image: a volume, a published port, zero-config first start and restart, SDK round
# trip, console, SIGTERM drain, read-only root filesystem, HEALTHCHECK. Prints the image's size and build time.
# Exits 75 (skipped, with the reason printed) only when podman cannot run containers on this machine; any other
# problem fails the stage.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CONTAINERS_CONF=$PWD/.ci/containers.conf
SKIPPED=75

missing=()
for p in podman mmdebstrap runc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends podman mmdebstrap runc >/dev/null
fi
echo "$(podman --version), $(runc --version | head -n1), mmdebstrap $(mmdebstrap --version | awk '{print $2}')"

if ! out=$(podman info 2>&1); then
  printf 'SKIPPED: podman cannot run on this machine (podman info failed):\n%s\n' "$out"
  exit "$SKIPPED"
fi

# A machine keeps the base between runs; bump the revision when container-base.sh changes what goes into it.
base=localhost/store-ci-node:20-r1
.ci/container-base.sh "$base"
if ! out=$(podman run --rm --network=none "$base" /bin/true 2>&1); then
  printf 'SKIPPED: podman cannot start a container on this machine:\n%s\n' "$out"
  exit "$SKIPPED"
fi

image=localhost/store:ci
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
log=$(mktemp)
build() {
  podman build --format docker --network=host --build-arg NODE_IMAGE="$base" --build-arg STORE_COMMIT="$commit" \
    -t "$image" . >"$log" 2>&1
}
t=$SECONDS
# Host networking for npm and apt inside the build; the Docker format keeps the HEALTHCHECK (OCI has none). Once, a
# first build here exited non-zero after "Successfully tagged" with no error in its output: one more try, which reuses
# every finished layer, before the stage fails.
rc=0
build || rc=$?
if [ "$rc" != 0 ]; then
  tail -n 20 "$log"
  echo "podman build exited $rc; trying once more"
  rc=0
  build || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 80 "$log"
    echo "podman build failed (exit $rc)" >&2
    exit 1
  fi
fi
echo "podman build: $((SECONDS - t)) s; $image is $(podman image inspect --format '{{.Size}}' "$image") bytes"
rm -f "$log"

STORE_IMAGE=$image STORE_IMAGE_COMMIT=$commit npx vitest run --config vitest.container.config.ts
