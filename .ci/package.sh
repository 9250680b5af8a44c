#!/usr/bin/env bash
# The package stage of .ci/run: `npm pack` (prepack builds dist/ afresh), then `npm install -g` of the tarball into a
# fresh prefix with a fresh npm cache, as on a clean machine (production dependencies only, native modules built
# there), and test/package/ runs the installed `store`: --version, init + serve, serve --init, the console.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# In CI (a fresh clone, built by the stages before from this very commit, nothing changed since) the build is packed
# as it is; prepack's clean rebuild would make the same files again (30 s). Anywhere else prepack rebuilds, so files
# left in dist/ by an older build never reach the tarball.
pack_flags=()
if [ "${CI:-}" = true ] && [ -f dist/build-info.json ] && git diff --quiet HEAD -- 2>/dev/null &&
  grep -q "\"$(git rev-parse HEAD)\"" dist/build-info.json; then
  pack_flags=(--ignore-scripts)
  echo "dist/ is this commit's build (CI): packed as it is"
fi
t=$SECONDS
npm_config_cache="$work/pack-cache" npm pack --silent "${pack_flags[@]}" --pack-destination "$work" >"$work/pack.out"
tgz=$work/$(tail -n 1 "$work/pack.out")
echo "npm pack: $((SECONDS - t)) s; $(basename "$tgz") is $(stat -c %s "$tgz") bytes"

t=$SECONDS
npm_config_cache="$work/install-cache" npm install -g --prefix "$work/prefix" --no-audit --no-fund "$tgz"
echo "npm install -g (fresh cache): $((SECONDS - t)) s; installed: $(du -sh "$work/prefix/lib/node_modules/store" | cut -f1)"
"$work/prefix/bin/store" --version

STORE_PACKAGE_BIN="$work/prefix/bin/store" STORE_PACKAGE_COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  npx vitest run --config vitest.package.config.ts
