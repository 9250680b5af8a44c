# Store in a container (docs/operations.md, "Docker"). Two stages: the build stage compiles the server and the console
# with every dependency; the runtime stage holds production dependencies, dist/ and bin/ only, and runs as `node`.
#   docker build -t store .
#   docker run -d --name store -p 9000:9000 -v store-data:/data --env-file store.env --stop-timeout 40 store
# Both stages use the same Debian release, so the native modules built in the first (better-sqlite3, argon2) load in
# the second.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Compilers for the native modules, in case no prebuilt binary matches this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
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
CMD ["node", "bin/store.js", "serve"]
