/**
 * Two output roots never remove each other's files; the summary names every removed file; a
 * mistyped `--out` at a directory of the user's is refused before anything is written.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_CRD, WIDGET_CRD, kopfgen, snapshot, tempProject, tree } from '../helpers/cli-support.js';
import { outsideUnitScope } from '../helpers/test-scope.js';

const skip = outsideUnitScope('CLI processes');

test(
  "generate vendor --out src/generated/vendor, then generate into src/generated: neither removes the other's files",
  { skip },
  async () => {
    const dir = await tempProject({
      'crds/my.yaml': EXAMPLE_CRD,
      'vendor/widget.yaml': WIDGET_CRD,
      'kopfgen.config.json': JSON.stringify({ inputs: ['crds'], out: 'src/generated', stubs: false }),
    });
    const vendor = await kopfgen(['generate', 'vendor', '--out', 'src/generated/vendor', '--no-stubs'], dir);
    assert.equal(vendor.code, 0, vendor.stderr);
    const vendorFiles = (await tree(dir)).filter((p) => p.startsWith('src/generated/vendor/'));
    assert.ok(vendorFiles.includes('src/generated/vendor/example.com/v1/widgets.ts'));

    const own = await kopfgen(['generate'], dir);
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stdout, /0 removed/);
    assert.deepEqual(
      (await tree(dir)).filter((p) => p.startsWith('src/generated/vendor/')),
      vendorFiles,
    );
    // And back: regenerating vendor leaves the enclosing run's files alone.
    const again = await kopfgen(['generate', 'vendor', '--out', 'src/generated/vendor', '--no-stubs'], dir);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 removed/);
    assert.ok((await tree(dir)).includes('src/generated/example.com/v1/myresources.ts'));
  },
);

test('the summary names every removed file, in text and JSON', { skip }, async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'crds/widget.yaml': WIDGET_CRD });
  assert.equal((await kopfgen(['generate', 'crds', '--no-stubs'], dir)).code, 0);
  await fs.rm(join(dir, 'crds/widget.yaml'));
  const r = await kopfgen(['generate', 'crds', '--no-stubs', '--format', 'json'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { summary: { removed: string[] } }).summary.removed, [
    'generated/example.com/v1/widgets.ts',
  ]);
});

test(
  "--out at a directory of the user's (a mistyped --out src) is refused with KG322 before anything is written",
  { skip },
  async () => {
    const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'src/main.ts': 'export {};\n' });
    assert.equal((await kopfgen(['generate', 'crds', '--out', 'src/generated', '--no-stubs'], dir)).code, 0);
    const before = await snapshot(dir);
    const r = await kopfgen(['generate', 'crds', '--out', 'src', '--no-stubs'], dir);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^src:1:1 error KG322 refusing to generate into src: it has no \.kopfgen-manifest\.json and holds 1 file kopfgen did not generate \(src\/main\.ts\)/m,
    );
    assert.deepEqual(await snapshot(dir), before, 'nothing written, nothing removed');
  },
);

test(
  'a directory generated before manifests: its generated files are taken over once, then tracked',
  { skip },
  async () => {
    const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'crds/widget.yaml': WIDGET_CRD });
    assert.equal((await kopfgen(['generate', 'crds', '--no-stubs'], dir)).code, 0);
    await fs.rm(join(dir, 'generated/.kopfgen-manifest.json'));
    await fs.rm(join(dir, 'crds/widget.yaml'));
    const r = await kopfgen(['generate', 'crds', '--no-stubs'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^removed generated\/example\.com\/v1\/widgets\.ts$/m);
    assert.deepEqual(JSON.parse(await fs.readFile(join(dir, 'generated/.kopfgen-manifest.json'), 'utf8')), {
      kopfgen: 1,
      files: ['example.com/myresources.schemas.ts', 'example.com/v1/myresources.ts', 'index.ts'],
    });
  },
);
