# A Picket agent (runs the checks of its regions; work arrives over NATS).
# Build from the repository root:  docker build -f deploy/docker/agent.Dockerfile -t picket-agent .
# ICMP checks need raw sockets: run with `--cap-add NET_RAW` (and nothing else); without it
# the agent says so at start and ping checks are UNKNOWN, never DOWN.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /opt/picket
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
USER node
ENV NODE_ENV=production AGENT_HTTP_HOST=0.0.0.0 AGENT_HTTP_PORT=9464
# Smaller heap limits: about 105 MB RSS at 200 checks/s instead of 160-220, for 3-11 % more CPU
# per check (docs/benchmarks.md, agent). Raise the old space with AGENT_MAX_IN_FLIGHT.
ENV NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=2"
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.AGENT_HTTP_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/agent/src/main.js"]
