/**
 * The real generator behind the CLI: the reader and the pipeline, spread over worker threads
 * for large inputs (same output as the serial `generate`; small inputs take the serial path).
 * Loaded on first use, so a cache hit never pays for loading the generator.
 */
import { readInputs } from '../io/read.js';
import type { Pipeline } from './generate-command.js';

export const realPipeline: Pipeline = {
  // The cluster reader (and the kubeconfig reader) is loaded only for --from-cluster.
  read: async (inputs, cwd, cluster) =>
    cluster ? (await import('./from-cluster.js')).readCluster(cluster) : readInputs(inputs, { cwd }),
  generate: async (sources, options) => (await import('../generate.js')).generateParallel(sources, options),
};
