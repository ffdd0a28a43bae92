// `npm run build:agent`: the agent as one bundled file plus the raw-socket native addon, for
// regional VMs without a checkout: dist/agent/picket-agent.mjs and dist/agent/raw-*.node.
// Bundles the tsc output (dist/), whose decorator metadata NestJS's injection needs.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = process.argv[2] ?? join(root, 'dist', 'agent');
rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { 'picket-agent': 'dist/apps/agent/src/main.js' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: false,
  keepNames: true,
  define: { __PICKET_VERSION__: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version) },
  legalComments: 'none',
  // The native addon is copied beside the bundle and loaded from there.
  loader: { '.node': 'copy' },
  // CommonJS dependencies call require(); give the ES module bundle one.
  banner: {
    js: "import { createRequire as __picketRequire } from 'node:module'; const require = __picketRequire(import.meta.url);",
  },
  // Optional NestJS integrations and transports the agent does not use (Nest loads them only on
  // demand); @nestjs/microservices itself is bundled: the agent takes probe work through it.
  external: [
    '@grpc/grpc-js',
    '@grpc/proto-loader',
    'kafkajs',
    'mqtt',
    'ioredis',
    'amqplib',
    'amqp-connection-manager',
    'cache-manager',
    '@nestjs/websockets',
    '@nestjs/websockets/*',
    '@fastify/static',
    '@fastify/view',
    'class-transformer/storage',
    '@nestjs/platform-express',
    '@fastify/multipart',
  ],
  plugins: [
    {
      // The prober loads raw-socket lazily (a missing addon must not stop the agent); make that
      // require visible to the bundler so the addon travels with the bundle.
      name: 'bundle-raw-socket',
      setup(b) {
        b.onLoad({ filter: /icmp-pinger\.js$/ }, (args) => {
          const source = readFileSync(args.path, 'utf8');
          const lazy = "createRequire(import.meta.url)('raw-socket')";
          if (!source.includes(lazy)) throw new Error(`${args.path} no longer loads raw-socket as expected`);
          return { contents: source.replace(lazy, "require('raw-socket')"), loader: 'js' };
        });
      },
    },
  ],
  logLevel: 'warning',
});
process.stderr.write(`[picket] agent bundle written to ${outdir}\n`);
