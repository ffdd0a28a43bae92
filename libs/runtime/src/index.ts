export * from './clock.js';
export * from './env.js';
export * from './mutex.js';
export * from './object-id.js';
export * from './metrics.js';
export * from './version.js';
export * from './nats.js';
export * from './network.js';
