export * from './regions.js';
export * from './monitor-types.js';
export * from './targets.js';
export * from './monitor-settings.js';
export * from './probe.js';
export * from './subjects.js';
export * from './enrollment.js';
export * from './probe-batch.js';
