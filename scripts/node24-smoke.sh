#!/usr/bin/env bash
# Node 24 smoke (run by .ci/run after `npm test`, which runs on the machine's Node): installs Node 24
# from the npm registry (the official binaries, published as node-linux-<arch>) into a temporary
# directory, rebuilds the two native addons for it in a copy (the project's node_modules keeps
# its own builds), then runs the built agent bundle and the coordinator from dist/ on Node 24 on
# loopback ports with checks off: /healthz of each, an API call with a key, the agent's /metrics.
# When Node 24 cannot be installed it prints "Node 24 smoke SKIPPED: <reason>" and exits 0.
# Why: docs/decisions/0021-per-monitor-metrics-and-node-24.md.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STARTED=$SECONDS

skip() {
  echo "Node 24 smoke SKIPPED: $*"
  exit 0
}
say() { echo "[node24-smoke $((SECONDS - STARTED))s] $*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/picket-node24.XXXXXX")
pids=()
failed() {
  echo "Node 24 smoke FAILED: $*" >&2
  for log in "$work"/*.log; do
    [ -f "$log" ] || continue
    echo "--- $(basename "$log") (last 40 lines)" >&2
    tail -n 40 "$log" >&2
  done
  exit 1
}
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

# ---- Node 24 from the npm registry ----------------------------------------------------------
[ "$(uname -s)" = Linux ] || skip "the npm registry's node binaries are used on Linux only (this is $(uname -s))"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) skip "no node-linux package for $(uname -m)" ;;
esac
package="node-linux-$arch@24"
if ! (cd "$work" && npm pack "$package" --loglevel=error >pack.log 2>&1); then
  skip "npm could not fetch $package from $(npm config get registry): $(grep -m 1 -i 'fetcherror\|code E' "$work/pack.log")"
fi
tar -xzf "$(ls "$work"/node-linux-"$arch"-*.tgz)" -C "$work" || skip "the $package tarball did not unpack"
NODE24="$work/package/bin/node"
version=$("$NODE24" --version 2>/dev/null) || skip "the node binary of $package does not run here"
case "$version" in v24.*) ;; *) skip "$package gave $version" ;; esac
[ -f "$work/package/include/node/node.h" ] || skip "$package carries no headers to build the native addons with"
say "Node $version from $package ($(npm config get registry))"

# ---- addons for Node 24 (in a copy), while dist/ and the agent bundle build on this Node ------
app="$work/app"
mkdir -p "$app" "$work/data"
cp package.json "$app/"
# Hard links where possible (same file system): quick, and nothing in the checkout is written.
cp -al node_modules "$app/node_modules" 2>/dev/null || cp -a node_modules "$app/node_modules"
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
[ -f "$gyp" ] || failed "node-gyp not found beside npm ($gyp)"
rebuild() { # <addon> <--release|--debug>: a real copy (no hard links) compiled against Node 24's headers
  rm -rf "$app/node_modules/$1"
  cp -a "node_modules/$1" "$app/node_modules/$1"
  rm -rf "$app/node_modules/$1/build"
  (cd "$app/node_modules/$1" && PATH="$work/package/bin:$PATH" "$NODE24" "$gyp" rebuild "$2" \
    --nodedir="$work/package") >"$work/rebuild-$1.log" 2>&1
}
# better-sqlite3 unoptimised: SQLite compiles in under half the CPU time, and this run checks
# that the addon builds and loads on Node 24, not its speed (it finds build/Debug by itself).
rebuild better-sqlite3 --debug &
sqlite_pid=$!
rebuild raw-socket --release &
raw_pid=$!
npm run -s build:agent >"$work/build.log" 2>&1 || failed "npm run build:agent"
say "built dist/ and dist/agent/"
cp -al dist "$app/dist" 2>/dev/null || cp -a dist "$app/dist"
wait "$raw_pid" || failed "raw-socket does not build for Node $version"
wait "$sqlite_pid" || failed "better-sqlite3 does not build for Node $version"
say "rebuilt better-sqlite3 and raw-socket for Node $version"

agent="$work/agent"
cp -a dist/agent "$agent"
addons=("$agent"/raw-*.node)
[ -f "${addons[0]}" ] || failed "the agent bundle has no raw-*.node"
cp "$app/node_modules/raw-socket/build/Release/raw.node" "${addons[0]}"

# ---- run both on Node 24 ---------------------------------------------------------------------
free_port() { "$NODE24" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
# GET <url> [bearer key]: prints the HTTP status and the body on one line.
get() {
  "$NODE24" -e "fetch(process.argv[1],{headers:process.argv[2]?{authorization:'Bearer '+process.argv[2]}:{}})
    .then(async r=>console.log(r.status+' '+(await r.text()).replace(/\n/g,' ')),e=>console.log('000 '+e.message))" "$@"
}
wait_healthy() { # <name> <url> <pid>
  for _ in $(seq 1 120); do
    kill -0 "$3" 2>/dev/null || failed "the $1 exited on Node $version"
    case "$(get "$2")" in 200*) return 0 ;; esac
    sleep 0.25
  done
  failed "the $1 did not answer $2 within 30 s"
}

cport=$(free_port)
aport=$(free_port)
key="pkt_$("$NODE24" -e "console.log(require('crypto').randomBytes(32).toString('hex'))")"
(cd "$app" && exec env DATABASE_URL="sqlite:$work/data/picket.db" HOST=127.0.0.1 PORT="$cport" CHECKS_ENABLED=false \
  BOOTSTRAP_API_KEY="$key" LOG_LEVEL=warn "$NODE24" dist/apps/coordinator/src/main.js) >"$work/coordinator.log" 2>&1 &
pids+=($!)
coordinator_pid=$!
(cd "$agent" && exec env NATS_URL="${PICKET_TEST_NATS_URL:-nats://127.0.0.1:4222}" NATS_SUBJECT_PREFIX="node24smoke$$" \
  AGENT_ID=node24-smoke AGENT_REGIONS=eu-west-1 AGENT_HTTP_HOST=127.0.0.1 AGENT_HTTP_PORT="$aport" LOG_LEVEL=warn \
  "$NODE24" picket-agent.mjs) >"$work/agent.log" 2>&1 &
pids+=($!)
agent_pid=$!

wait_healthy coordinator "http://127.0.0.1:$cport/healthz" "$coordinator_pid"
wait_healthy agent "http://127.0.0.1:$aport/healthz" "$agent_pid"
say "both answer /healthz on Node $version"

account=$(get "http://127.0.0.1:$cport/api/account" "$key")
case "$account" in 200*'"status":"ok"'*) ;; *) failed "GET /api/account with the bootstrap key: $account" ;; esac
monitors=$(get "http://127.0.0.1:$cport/api/monitors" "$key")
case "$monitors" in 200*) ;; *) failed "GET /api/monitors: $monitors" ;; esac
ready=$(get "http://127.0.0.1:$cport/readyz")
case "$ready" in 200*) ;; *) failed "coordinator /readyz: $ready" ;; esac
metrics=$(get "http://127.0.0.1:$aport/metrics")
case "$metrics" in 200*picket_probes_in_flight*) ;; *) failed "agent /metrics: ${metrics:0:300}" ;; esac
health=$(get "http://127.0.0.1:$aport/healthz")
say "coordinator: /api/account, /api/monitors and /readyz answer 200; agent /healthz: ${health#200 }"
# As root the agent may open raw sockets: then ICMP must work, i.e. the rebuilt addon loads on Node 24.
if [ "$(id -u)" = 0 ]; then
  case "$health" in *'"icmp":true'*) ;; *) failed "ICMP unavailable on Node $version as root (raw-socket addon): $health" ;; esac
fi

echo "Node 24 smoke PASSED on $version in $((SECONDS - STARTED)) s"
