/**
 * Seeded fuzzing of the emitter through the TypeScript compiler: fixtures are mutated (chunks
 * cut out, odd enums, nullables, odd property names and descriptions, embedded objects with
 * typed maps), then `generate` must never throw, must return files only without errors, and
 * whatever it returns must type-check under strict with zero errors.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { REPO, formatTs, tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
}

const ODD_NAMES = ['"*/"', '__proto__', 'constructor', 'a-b', '"1"', 'default', 'Object', '"x y"', '"it\'s"'];

function mutate(text: string, rnd: (n: number) => number): string {
  const at = rnd(text.length);
  switch (rnd(5)) {
    case 0:
      return text.slice(0, at) + text.slice(at + rnd(300));
    case 1:
      return text.replace(
        /(\n(\s+)type: string)/,
        `$1\n$2enum: ["a*/b", "it's", 1, null, "\\u2028", ""]\n$2nullable: true`,
      );
    case 2:
      return text.replace(
        /(\n(\s+))type: object/,
        '$1type: object$1x-kubernetes-embedded-resource: true$1additionalProperties: { type: integer }',
      );
    case 3: {
      const name = ODD_NAMES[rnd(ODD_NAMES.length)];
      return text.replace(
        /(\n(\s+)properties:)/,
        `$1\n$2  ${name}: { type: string, description: "ends */ early", default: "*/" }`,
      );
    }
    default:
      return text.replace(
        /(\n(\s+))type: (string|integer)/,
        '$1type: array$1nullable: true$1items: { x-kubernetes-int-or-string: true, nullable: true }',
      );
  }
}

test('fuzzed fixtures: generate never throws, and all it emits type-checks under strict', () => {
  const dir = join(REPO, 'test/fixtures/crds');
  const fixtures = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const rnd = random(20261202);
  const out = tempDir('fuzz');
  const files: string[] = [];
  let generated = 0;
  let rejected = 0;
  for (const fixture of fixtures) {
    const text = readFileSync(join(dir, fixture), 'utf8');
    for (let i = 0; i < 12; i++) {
      const mutated = mutate(mutate(text, rnd), rnd);
      const result = generate([{ file: `test/fixtures/crds/${fixture}`, text: mutated }], { stubs: false });
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length > 0) {
        assert.deepEqual(result.files, [], 'no files alongside errors');
        rejected++;
        continue;
      }
      generated++;
      files.push(...writeTree(join(out, String(generated)), result.files));
    }
  }
  assert.ok(generated > 50, `enough mutants generate (${generated} generated, ${rejected} rejected)`);
  assert.deepEqual(typecheck(files).slice(0, 10).map(formatTs), []);
});
