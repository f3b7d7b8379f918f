/**
 * A CRD whose schema has one object with N keys (`properties` of `spec`), N = 10,000, 20,000 and
 * 40,000: parse, check duplicate keys, model and emit, against the yaml-parse floor of the same
 * text. The floor parses with `uniqueKeys: false`, as kopfgen does: the `yaml` package's own
 * duplicate-key check is quadratic (the floor alone took 94 s at 40,000 keys); yaml-tree.ts checks
 * through a set instead, so the time per key stays flat as N doubles.
 */
import { parseAllDocuments } from 'yaml';
import { generate } from '../src/generate.js';
import { wideCrd } from './wide-crd.js';

const RUNS = 3;

/** `spec` with `keys` string properties. */
function wideObject(keys: number): string {
  return wideCrd(
    (i) => `                field${i}: { type: string }`,
    (i) => i < keys,
  );
}

function best(fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    globalThis.gc?.();
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return Math.min(...times);
}

for (const keys of [10_000, 20_000, 40_000]) {
  const text = wideObject(keys);
  let files = 0;
  const floor = best(() => {
    for (const doc of parseAllDocuments(text, { uniqueKeys: false })) doc.toJS();
  });
  const ms = best(() => {
    const result = generate([{ file: 'wide.yaml', text }], { stubs: false });
    if (result.files.length === 0)
      throw new Error(`generation failed: ${result.diagnostics.map((d) => d.message).join('; ')}`);
    files = result.files.length;
  });
  const perKey = (ms * 1000) / keys;
  console.log(
    `  ${String(keys).padStart(6)}-key object: generate ${ms.toFixed(0).padStart(5)} ms (${perKey.toFixed(1)} µs/key, ${files} files), ` +
      `yaml parse floor ${floor.toFixed(0)} ms, ${(ms / floor).toFixed(2)}x the floor (best of ${RUNS})`,
  );
}
