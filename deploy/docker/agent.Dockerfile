# A Picket agent (runs the checks of its regions; work arrives over NATS).
# Build from the repository root:  docker build -f deploy/docker/agent.Dockerfile -t picket-agent .
# ICMP checks need raw sockets. The image runs as the user `node`, which does not get a capability
# from `--cap-add` alone: the node binary carries the file capability cap_net_raw+ep (set below),
# and `--cap-add NET_RAW` (with `--cap-drop ALL`) lets it take effect. Do not set
# no-new-privileges (Kubernetes: allowPrivilegeEscalation must be true): it voids file
# capabilities. Without the capability the agent says so at start and ping checks are UNKNOWN,
# never DOWN. Why and how this is tested: docs/decisions/0021-per-monitor-metrics-and-node-24.md.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
# libcap2-bin only to run setcap; removed in the same layer.
RUN apt-get update && apt-get install -y --no-install-recommends libcap2-bin \
  && setcap cap_net_raw+ep "$(readlink -f /usr/local/bin/node)" \
  && apt-get purge -y libcap2-bin && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/picket
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# Where a private region's agent keeps the NATS credentials it enrolled for (NATS_CREDS_FILE; a
# volume there keeps them across restarts, deploy/private-agent.compose.yaml).
RUN install -d -m 0700 -o node -g node /var/lib/picket-agent
USER node
ENV NODE_ENV=production AGENT_HTTP_HOST=0.0.0.0 AGENT_HTTP_PORT=9464
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.AGENT_HTTP_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# Smaller heap limits: about 105 MB RSS at 200 checks/s instead of 160-220, for 3-11 % more CPU
# per check (docs/benchmarks.md, agent). Raise the old space with AGENT_MAX_IN_FLIGHT. They are
# flags, not NODE_OPTIONS: Node ignores NODE_OPTIONS (and NODE_EXTRA_CA_CERTS) in a process that
# gained a file capability, as this one does.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=2", "dist/apps/agent/src/main.js"]
