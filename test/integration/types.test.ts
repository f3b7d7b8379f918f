/**
 * Type tests: objects that follow the CRD compile, and each kind of mistake fails with the
 * expected TypeScript diagnostic code on the expected line. Each line marked `// TSxxxx`
 * must produce exactly that error, and no other line may produce any.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { REPO, tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

const FIXTURES = [
  'test/fixtures/crds/required.yaml',
  'test/fixtures/crds/enum.yaml',
  'test/fixtures/crds/int-or-string.yaml',
  'test/fixtures/crds/nullable.yaml',
];

const USAGE = `import type { Widget, WidgetSpec } from "./fixtures.kopfgen.dev/v1/widgets.js";
import type { Lamp } from "./fixtures.kopfgen.dev/v1/lamps.js";
import type { Rollout } from "./fixtures.kopfgen.dev/v1/rollouts.js";
import type { Draft } from "./fixtures.kopfgen.dev/v1/drafts.js";
import { LampDescriptor } from "./fixtures.kopfgen.dev/v1/lamps.js";

const meta = { name: "a", namespace: "default", labels: { app: "x" } };
const spec: WidgetSpec = { name: "w", size: 3, ports: [{ port: 80 }], owner: { team: "core", contact: { email: "a@b.c" } }, matrix: [[{ cell: "x" }]] };
export const widget: Widget = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Widget", metadata: meta, spec, status: { ready: true } };
export const lamp: Lamp = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Lamp", spec: { color: "blue light", brightness: 2, mode: null, weekdays: ["mon"] } };
export const rollout: Rollout = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Rollout", spec: { maxSurge: "25%", maxUnavailable: 1, steps: [1, "50%"], limits: { cpu: 2 } } };
export const draft: Draft = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Draft", spec: { title: null, notes: [null, "n"], reviewer: null } };
export const scope: "Cluster" | "Namespaced" = LampDescriptor.scope;

export const wrongEnum: Lamp = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Lamp", spec: { color: "purple" } }; // TS2322
export const missingRequired: WidgetSpec = { size: 3, ports: [], owner: { team: "core" } }; // TS2741
export const wrongScalar: WidgetSpec = { name: "w", size: "three", ports: [], owner: { team: "core" } }; // TS2322
export const unknownProperty: WidgetSpec = { name: "w", size: 3, ports: [], owner: { team: "core" }, colour: "red" }; // TS2353
export const wrongKind: Widget = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Gadget", spec }; // TS2322
export const wrongApiVersion: Widget = { apiVersion: "fixtures.kopfgen.dev/v2", kind: "Widget", spec }; // TS2322
export const missingSpec: Widget = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Widget" }; // TS2741
export const nullNotAllowed: WidgetSpec = { name: null, size: 3, ports: [], owner: { team: "core" } }; // TS2322
export const boolNotIntOrString: Rollout = { apiVersion: "fixtures.kopfgen.dev/v1", kind: "Rollout", spec: { maxSurge: true } }; // TS2322
`;

test('generated types accept valid objects and reject each mistake with the expected code and line', () => {
  const sources = FIXTURES.map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }));
  const result = generate(sources, { stubs: false });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const dir = tempDir('types');
  const files = writeTree(dir, result.files);
  const usage = join(dir, 'usage.ts');
  writeFileSync(usage, USAGE);

  const expected = USAGE.split('\n')
    .map((text, i) => ({ line: i + 1, code: /\/\/ TS(\d+)$/.exec(text)?.[1] }))
    .filter((e) => e.code !== undefined)
    .map((e) => `usage.ts:${e.line} TS${e.code}`);
  assert.equal(expected.length, 9);

  const actual = typecheck([...files, usage]).map(
    (d) => `${d.file.startsWith(dir) ? d.file.slice(dir.length + 1) : d.file}:${d.line} TS${d.code}`,
  );
  assert.deepEqual(actual.sort(), expected.sort());
});
