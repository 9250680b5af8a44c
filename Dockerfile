# Store in a container (docs/operations.md, "Docker"). Two stages: the build stage compiles the server and the console
# with every dependency; the runtime stage holds production dependencies, dist/ and bin/ only, and runs as `node`.
#   docker build --build-arg STORE_COMMIT="$(git rev-parse HEAD)" -t store .
#   docker run -d --name store -p 9000:9000 -v store-data:/data --stop-timeout 40 store
# With an empty volume and no secrets given, the first start generates them into the volume and prints the console
# password and the S3 keys once (`store serve --init`, docs/operations.md). Both stages use the same base, so the
# native modules built in the first (better-sqlite3, argon2) load in the second. NODE_IMAGE is the official Node 20
# image unless a build names another (CI builds its own from Debian packages: .ci/container-base.sh).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# The commit `store --version` and /api/admin/version report (.git is not in the build context).
ARG STORE_COMMIT=unknown
WORKDIR /app
# Compilers for the native modules, in case no prebuilt binary matches this platform (a base that has them skips
# apt), and the headers of the base's own Node, so node-gyp does not download them.
RUN if ! command -v python3 || ! command -v make || ! command -v g++; then \
      apt-get update \
      && apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/*; \
    fi
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# The npm cache outlives the build (BuildKit and Buildah cache mounts): a rebuild downloads nothing it has.
RUN --mount=type=cache,target=/root/.npm,sharing=locked npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
COPY bin ./bin
RUN STORE_COMMIT="$STORE_COMMIT" npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=9000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 9000
# Readiness, not liveness: 503 while draining after SIGTERM. Node's fetch, since slim images have no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 9000}${process.env.MOUNT_PATH || ''}/api/admin/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM starts the drain (SHUTDOWN_DRAIN_MS, default 30 s): give `docker stop` more than that (--stop-timeout 40).
STOPSIGNAL SIGTERM
CMD ["node", "bin/store.js", "serve", "--init"]
