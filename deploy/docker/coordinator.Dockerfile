# The Picket coordinator (REST API, scheduling, evaluation, notifications).
# Build from the repository root:  docker build -f deploy/docker/coordinator.Dockerfile -t picket-coordinator .
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /opt/picket
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
USER node
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0
# A heap cap keeps RSS near the live data: 256 MB holds 100k monitors under load, and a
# 4 MB young generation keeps 10k monitors under 170 MB (docs/benchmarks.md, scale).
# Override NODE_OPTIONS for more monitors.
ENV NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=4"
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/coordinator/src/main.js"]
