import { availableParallelism } from 'node:os';

/** @type {import('jest').Config} */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    '^#(contracts|probes|runtime|validation)$': '<rootDir>/libs/$1/src/index.ts',
    '^#runtime/nats-server$': '<rootDir>/libs/runtime/src/nats-server.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // Most end-to-end suites wait on checks, timers and child processes rather than compute, so
  // workers outnumber cores: on a 2-core machine two workers left the cores idle while both
  // waited; three cut a fresh clone's run from 925 s to 591 s with the cores busy throughout
  // (jest's default there is one, which runs everything in turn).
  maxWorkers: Math.max(3, availableParallelism() - 1),
  testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
