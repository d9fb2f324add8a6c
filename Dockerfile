# syntax=docker/dockerfile:1
# Banking Agent Sandbox: `docker run -p 8080:8080 <image>` serves the default scenario in memory.
# Configuration is by environment variable only (see README "Configuration"; a CI service cannot pass
# arguments); nothing depends on NODE_ENV.

# Base images by tag; to pin them by digest (and move the pin): deploy/README.md "Base images".
# ---- build: full dependencies, TypeScript -> dist/ and its bundle, then the tree the sandbox runs from
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# the rest of what the build reads, in one layer: .dockerignore lets through nothing else
COPY . .
# TypeScript to dist/ and its bundle; the build also checks the shipped data once and lists it
# (dist/verified-data.json): a start skips those checks. Then only what runs (scripts/runtime-files.mjs): the
# bundle, the packages it leaves outside with their dependencies, the data and the console; not the sources,
# the compiled modules the bundle holds, or the rest of node_modules.
RUN npm run build && node scripts/runtime-files.mjs /app /runtime
# The software bill of materials (CycloneDX JSON) of every runtime package, bundled or in node_modules, from the
# lockfile (scripts/sbom.mjs): /app/sbom.cdx.json in the image, for a scanner (docs/operations.md)
RUN node scripts/sbom.mjs /app > /runtime/sbom.cdx.json

# ---- runtime
FROM node:24-bookworm-slim
# the management port fixed where an operator deploys (the command's own default is a free port: several
# sandboxes on one machine); deploy/'s manifests set it too, where their Prometheus scrapes it
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    SANDBOX_MANAGEMENT_PORT=9000 \
    NODE_COMPILE_CACHE=/app/.node-compile-cache
WORKDIR /app
COPY --from=build /runtime /app
# /data is the place for durable data; it is used only when SANDBOX_DATA_DIR=/data is set, e.g.
#   docker run -v sandbox-data:/data -e SANDBOX_DATA_DIR=/data -p 8080:8080 <image>
# Node's compile cache, filled while the image is built, by the user that runs the sandbox (a layer that only
# changed its owner would copy it again) and with CMD's V8 flags (Node keeps a cache per user and set of flags):
# every container starts with the sandbox's bundle (dist/bundle*.js, scripts/bundle.mjs) and the identity
# provider (loaded at its first use) already compiled. Loading the chunks runs no server: only dist/bundle.js
# itself starts one.
RUN mkdir -p /data /app/.node-compile-cache && chown node:node /data /app/.node-compile-cache \
    && runuser -u node -- node --max-semi-space-size=8 --max-old-space-size=1024 --no-maglev --no-memory-reducer -e "const chunks = require('node:fs').readdirSync('dist').filter((f) => /^bundle-.+\.js$/.test(f)); Promise.all(chunks.map((f) => import('./dist/' + f))).then(() => {}, (e) => { console.error(e); process.exit(1) })"
USER node
VOLUME /data
EXPOSE 8080
# the management port (SANDBOX_MANAGEMENT_PORT): /metrics, /health and /ready for Prometheus; not for partners
EXPOSE 9000
# slim images have no curl: node itself asks /health
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=1024", "--no-maglev", "--no-memory-reducer", "dist/cli.js"]
