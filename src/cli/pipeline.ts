/** The real generator behind the CLI: the reader and the pure pipeline. */
import { generate } from '../generate.js';
import { readInputs } from '../io/read.js';
import type { Pipeline } from './generate.js';

export const realPipeline: Pipeline = {
  read: (inputs, cwd) => readInputs(inputs, { cwd }),
  generate: (sources, options) => generate(sources, options),
};
