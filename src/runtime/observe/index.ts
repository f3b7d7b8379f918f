/** Metrics, probes, Events and JSON logs for the runtime: the modules of this folder. */
export * from './event-correlator.js';
export * from './event-recorder.js';
export * from './health-server.js';
export * from './json-logger.js';
export * from './metrics.js';
export * from './probes.js';
