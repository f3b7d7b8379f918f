/**
 * V8 settings for a process whose main work is an operator (`kopfgen run` applies them; a program
 * embedding `Operator` may call this too). Collection-frequency settings only: nothing the
 * operator does depends on them.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its initial size (1 MB semi-spaces). Listing thousands of objects
 * makes most of what is allocated survive (the objects are kept), and V8 answers a high survival
 * rate by doubling the young generation up to its maximum (two 16 MB semi-spaces); it gives that
 * back only when its memory reducer runs, which took about a minute of quiet after the list. With
 * 10,000 objects listed the idle operator held ~107 MB, 32 MB of it an empty young generation
 * (`npm run bench`, operator weight). `--semi-space-growth-factor` is read on every growth; V8
 * clamps it to 2 only while configuring the heap at start-up, so set here it takes effect.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
