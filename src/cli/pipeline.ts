/**
 * The real generator behind the CLI: the reader and the pure pipeline. The pipeline is loaded
 * on first use, so a cache hit never pays for loading the generator.
 */
import { readInputs } from '../io/read.js';
import type { Pipeline } from './generate.js';

export const realPipeline: Pipeline = {
  read: (inputs, cwd) => readInputs(inputs, { cwd }),
  generate: async (sources, options) => (await import('../generate.js')).generate(sources, options),
};
