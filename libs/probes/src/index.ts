export * from './executor.js';
export * from './https.prober.js';
export * from './icmp-pinger.js';
export * from './ping.prober.js';
export * from './prober.js';
export * from './probers.js';
export * from './run-probe.js';
export * from './tcp.prober.js';
