// The dashboard's build (docs/dashboard.md): Vite with its own JSX transform (oxc), no plugin.
// Output goes to dist/dashboard (gitignored), served by the coordinator's dashboard feature.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The coordinator serves index.html with a CSP forbidding inline script: no inlined module preload polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    // React Query marks its hooks "use client" (for server components); meaningless in a browser bundle.
    rolldownOptions: { checks: { moduleLevelDirective: false } },
  },
});
