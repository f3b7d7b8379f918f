/**
 * Inputs from anywhere, through the real CLI: a `helm template`-style stream on standard input
 * (`-`, with non-CRD documents among the CRDs), `.json` CRD files, non-UTF-8 bytes as a
 * positioned diagnostic, and the configuration found from a subdirectory of the project.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { foreignSources } from '../../src/cli/options.js';
import {
  EXAMPLE_CRD,
  kopfgen,
  kopfgenPiped,
  read,
  tempProject,
  tree,
  WIDGET_CRD,
  writeFiles,
} from '../helpers/cli-support.js';

/** What `helm template` prints: `# Source:` comments, a ServiceAccount and two CRDs in one stream. */
const HELM_OUTPUT = `---
# Source: chart/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: release-chart
---
# Source: chart/crds/myresource.yaml
${EXAMPLE_CRD}---
# Source: chart/crds/widget.yaml
${WIDGET_CRD}`;

test('generate -: a helm template stream on standard input; the non-CRD is a note at <stdin>', async () => {
  const dir = await tempProject();
  const r = await kopfgenPiped(['generate', '-', '--out', 'gen', '--no-stubs', '--format', 'json'], dir, HELM_OUTPUT);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const report = JSON.parse(r.stdout) as { diagnostics: { code: string; file: string; line: number }[] };
  assert.deepEqual(
    report.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}`),
    // KG209: the example CRD has handlers but no conditions in its status schema.
    ['KG106 <stdin>:3', 'KG209 <stdin>:25'],
  );
  const files = await tree(dir);
  assert.ok(files.includes('gen/example.com/v1/myresources.ts'), files.join('\n'));
  assert.ok(files.includes('gen/example.com/v1/widgets.ts'), files.join('\n'));
});

test('generate -: an error in the stream is positioned in <stdin>', async () => {
  const dir = await tempProject();
  const r = await kopfgenPiped(
    ['generate', '-', '--out', 'gen', '--no-stubs'],
    dir,
    `${WIDGET_CRD}---\nkind: [unclosed\n`,
  );
  assert.equal(r.code, 1);
  assert.match(r.stderr + r.stdout, /^<stdin>:\d+:\d+ error KG104 malformed YAML/m);
  assert.deepEqual(await tree(dir), []);
});

test('a .json CRD (named, or found in a directory) generates the same files as its YAML', async () => {
  const json = JSON.stringify(parse(WIDGET_CRD), null, 2);
  const dir = await tempProject({ 'yaml/widget.yaml': WIDGET_CRD, 'json/widget.json': json });
  const fromYaml = await kopfgen(['generate', 'yaml', '--out', 'a', '--no-stubs', '--no-cache'], dir);
  const fromJson = await kopfgen(['generate', 'json', '--out', 'b', '--no-stubs', '--no-cache'], dir);
  assert.equal(fromJson.code, 0, fromJson.stderr + fromJson.stdout);
  assert.equal(fromYaml.code, 0, fromYaml.stderr);
  const a = (await tree(dir)).filter((f) => f.startsWith('a/')).map((f) => f.slice(2));
  const b = (await tree(dir)).filter((f) => f.startsWith('b/')).map((f) => f.slice(2));
  assert.deepEqual(b, a);
  assert.ok(b.includes('example.com/v1/widgets.ts'));
});

test('a .json CRD with a bad schema value: the diagnostic points into the JSON', async () => {
  const crd = parse(WIDGET_CRD) as {
    spec: {
      versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[];
    };
  };
  crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { type: 'integer', enum: 'ten' };
  const text = JSON.stringify(crd, null, 2);
  const dir = await tempProject({ 'widget.json': text });
  const r = await kopfgen(['generate', 'widget.json', '--out', 'gen', '--no-stubs', '--format', 'json'], dir);
  const report = JSON.parse(r.stdout) as { diagnostics: { code: string; file: string; line: number; col: number }[] };
  const found = report.diagnostics.find((d) => d.file === 'widget.json' && d.code === 'KG114');
  assert.ok(found, r.stdout);
  const lines = text.split('\n');
  assert.match(lines[found.line - 1].slice(found.col - 1), /^"ten"/, `${found.line}:${found.col}`);
});

test('a Latin-1 CRD is KG150 at the first byte that is not UTF-8, and nothing is written', async () => {
  const dir = await tempProject();
  const text = WIDGET_CRD.replace('size: { type: integer }', 'size: { type: integer, description: "Gr\u00f6\u00dfe" }');
  writeFileSync(join(dir, 'widget.yaml'), Buffer.from(text, 'latin1'));
  const r = await kopfgen(['generate', 'widget.yaml', '--out', 'gen', '--no-stubs'], dir);
  assert.equal(r.code, 1);
  const line = text.split('\n').findIndex((l) => l.includes('Gr\u00f6')) + 1;
  const col = text.split('\n')[line - 1].indexOf('\u00f6') + 1;
  assert.match(r.stderr + r.stdout, new RegExp(`^widget\\.yaml:${line}:${col} error KG150 not UTF-8: byte 0xF6`, 'm'));
  assert.deepEqual(await tree(dir), ['widget.yaml']);
});

test('the configuration is found from a subdirectory, up to the repository root', async () => {
  const dir = await tempProject({
    'crds/widget.yaml': WIDGET_CRD,
    'kopfgen.config.json': '{ "inputs": ["crds"], "out": "gen", "stubs": false }\n',
  });
  mkdirSync(join(dir, '.git'));
  mkdirSync(join(dir, 'src/deep'), { recursive: true });
  const r = await kopfgen(['generate'], join(dir, 'src/deep'));
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok((await tree(dir)).includes('gen/example.com/v1/widgets.ts'));
});

test('"no inputs" names where the configuration was looked for, and stops at the repository root', async () => {
  const outer = await tempProject({ 'kopfgen.config.json': '{ "inputs": ["crds"] }\n' });
  const repo = join(outer, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'src'));
  const r = await kopfgen(['generate'], join(repo, 'src'));
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    new RegExp(`no configuration .* found in ${join(repo, 'src')} or any directory above it up to ${repo}$`, 'm'),
  );
});

test('generate - --watch is a usage error: standard input cannot be watched', async () => {
  const dir = await tempProject();
  const r = await kopfgenPiped(['generate', '-', '--watch'], dir, WIDGET_CRD);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--watch cannot watch standard input \(-\)/);
});

test('stubs only for CRDs the project owns: not for one read from node_modules, outside the project or a cluster, unless the configuration names its handlers', async () => {
  const gadget = EXAMPLE_CRD.replace(/myresources/g, 'gadgets')
    .replace(/MyResource/g, 'Gadget')
    .replace(/myresource\b/g, 'gadget')
    .replace('shortNames: [myr]', 'shortNames: [gad]');
  const parent = await tempProject({ 'elsewhere/gadget.yaml': gadget });
  const dir = join(parent, 'project');
  await writeFiles(dir, {
    'crds/my.yaml': EXAMPLE_CRD,
    'node_modules/vendor/crds/gadget.yaml': gadget
      .replace(/gadget/g, 'sprocket')
      .replace(/Gadget/g, 'Sprocket')
      .replace('[gad]', '[spr]'),
    'kopfgen.config.json': JSON.stringify({ inputs: ['crds', 'node_modules/vendor/crds', '../elsewhere'] }),
  });
  const r = await kopfgen(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const files = await tree(dir);
  assert.deepEqual(
    files.filter((f) => f.startsWith('handlers/')),
    ['handlers/myresources.ts'],
  );
  assert.ok(
    files.includes('generated/example.com/v1/gadgets.ts') && files.includes('generated/example.com/v1/sprockets.ts'),
  );
  assert.match(
    await read(dir, 'generated/example.com/v1/gadgets.ts'),
    /export class GadgetMyappTemporaryError/,
    'handler types still',
  );
  const named = await kopfgen(['generate', '--handlers', 'Sprocket=myapp'], dir);
  assert.equal(named.code, 0, named.stderr);
  assert.ok((await tree(dir)).includes('handlers/sprockets.ts'), 'named in the configuration: its stubs');
  assert.deepEqual(foreignSources({ cwd: dir, projectDir: dir, cluster: { names: ['x'] } }, ['kind/crd/x']), [
    'kind/crd/x',
  ]);
  assert.deepEqual(foreignSources({ cwd: dir, projectDir: dir }, ['<stdin>', 'crds/my.yaml']), []);
});
