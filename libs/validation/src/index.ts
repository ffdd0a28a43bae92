export * from './checks.js';
export * from './check-input.js';
export * from './field.js';
