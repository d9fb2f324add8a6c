# syntax=docker/dockerfile:1
# Banking Agent Sandbox: `docker run -p 8080:8080 <image>` serves the default scenario in memory.
# Configuration is by environment variable (see README "Configuration"); nothing depends on NODE_ENV.

# ---- build: full dependencies, TypeScript -> dist/
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# the build also checks the shipped data once and lists it (dist/verified-data.json): a start skips those checks
COPY scripts ./scripts
COPY fixtures ./fixtures
COPY scenarios ./scenarios
RUN npm run build

# ---- runtime: production dependencies, compiled code, fixtures and scenarios only
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY fixtures ./fixtures
COPY scenarios ./scenarios
COPY console ./console
# /data is the place for durable data; it is used only when SANDBOX_DATA_DIR=/data is set, e.g.
#   docker run -v sandbox-data:/data -e SANDBOX_DATA_DIR=/data -p 8080:8080 <image>
RUN mkdir -p /data && chown node:node /data
# Node's compile cache, filled while the image is built: every container starts with the sandbox's bundle
# (dist/bundle*.js, scripts/bundle.mjs) and the identity provider (loaded at its first use) already compiled.
# Loading the chunks runs no server: only dist/bundle.js itself starts one.
ENV NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN node -e "const chunks = require('node:fs').readdirSync('dist').filter((f) => /^bundle-.+\.js$/.test(f)); Promise.all(chunks.map((f) => import('./dist/' + f))).then(() => {}, (e) => { console.error(e); process.exit(1) })" \
    && chown -R node:node /app/.node-compile-cache
VOLUME /data
USER node
EXPOSE 8080
# the management port (SANDBOX_MANAGEMENT_PORT): /metrics, /health and /ready for Prometheus; not for partners
EXPOSE 9000
# slim images have no curl: node itself asks /health
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=8", "--no-maglev", "--no-memory-reducer", "dist/cli.js"]
