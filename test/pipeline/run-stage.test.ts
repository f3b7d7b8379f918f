/**
 * The run-wide stage decides once, over every file's summary in path order, whatever the share
 * each file was loaded in: duplicates (KG112/KG113), KG103, KG207, prefixes and stub paths.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SourceText, Target } from '../../src/api.js';
import { loadFile, type FileSummary } from '../../src/pipeline/file-stage.js';
import { decideRun, sortSources } from '../../src/pipeline/run-stage.js';

function crdText(kind: string, group: string): string {
  const plural = kind.toLowerCase() + 's';
  return [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    `metadata: {name: ${plural}.${group}}`,
    `spec: {group: ${group}, scope: Namespaced, names: {kind: ${kind}, plural: ${plural}},`,
    '  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}',
    '',
  ].join('\n');
}

const SOURCES: SourceText[] = [
  { file: 'a.yaml', text: crdText('Widget', 'a.io') },
  { file: 'b.yaml', text: crdText('Widget', 'b.io') },
  { file: 'c.yaml', text: crdText('Widget', 'a.io') },
  // The name of a.yaml's CRD with another content: a conflicting duplicate.
  { file: 'd.yaml', text: crdText('Gadget', 'a.io').replace('gadgets.a.io', 'widgets.a.io') },
];

/** Loads the sorted files into shares as `assignment` says and decides the run. */
function run(assignment: number[][], handlers?: Record<string, string[]>, target?: Target) {
  const ordered = sortSources(SOURCES);
  const loaded: FileSummary[][] = assignment.map((files) => files.map((fi) => loadFile(ordered[fi]).summary));
  return decideRun(ordered, assignment, loaded, { handlers, ...(target ? { target } : {}) }, undefined);
}

test('the same decisions whether the files are in one share or spread over two', () => {
  const one = run([[0, 1, 2, 3]]);
  const two = run([
    [1, 2],
    [0, 3],
  ]);
  assert.deepEqual(two.diagnostics, one.diagnostics);
  assert.equal(one.crds, 2);
  const decisions = (plan: typeof one) =>
    plan.requests.flatMap((r) => r.keep.map((k) => k.decision)).sort((a, b) => (a.prefix < b.prefix ? -1 : 1));
  assert.deepEqual(decisions(two), decisions(one));
  assert.deepEqual(decisions(one), [
    { prefix: 'AWidget', stubPath: 'widgets.a.io.ts', groupDir: 'a.io' },
    { prefix: 'BWidget', stubPath: 'widgets.b.io.ts', groupDir: 'b.io' },
  ]);
  // The kopf target: the same prefixes; Python module names for the stubs and the group packages.
  const kopf = run([[0, 1, 2, 3]], undefined, 'kopf');
  assert.deepEqual(decisions(kopf), [
    { prefix: 'AWidget', stubPath: 'widgets_a_io.py', groupDir: 'a_io' },
    { prefix: 'BWidget', stubPath: 'widgets_b_io.py', groupDir: 'b_io' },
  ]);
});

test('an identical duplicate is merged with a note, a different one is an error, each at the later file', () => {
  const plan = run([[0, 1, 2, 3]]);
  assert.deepEqual(
    plan.diagnostics.map((d) => `${d.file} ${d.code}`),
    ['c.yaml KG112', 'd.yaml KG113'],
  );
  assert.equal(plan.requests[0].emit, false, 'an error stops emission everywhere');
});

test('KG207 once for the run: a configured kind matched in any share is not reported', () => {
  const plan = run(
    [
      [0, 2],
      [1, 3],
    ],
    { Widget: ['x'], 'widgets.b.io': ['y'], Nothing: ['z'] },
  );
  const unmatched = plan.diagnostics.filter((d) => d.code === 'KG207');
  assert.deepEqual(
    unmatched.map((d) => d.pointer),
    ['/handlers/Nothing'],
  );
});

test('KG103 when no input holds a CRD', () => {
  const ordered = [{ file: 'x.yaml', text: 'kind: ConfigMap\n' }];
  const plan = decideRun(ordered, [[0]], [[loadFile(ordered[0]).summary]], {}, undefined);
  assert.deepEqual(
    plan.diagnostics.map((d) => d.code),
    ['KG106', 'KG103'],
  );
});
