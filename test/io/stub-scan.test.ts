/**
 * The project as the writer sees it: the stubs directory and every file the tsconfig.json
 * includes, handlers registered in other files, and orphan diagnostics (KG320 at registrations,
 * KG321 at the import) against what the run generates.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { orphanDiagnostics, registeredElsewhere, scanProject } from '../../src/io/stub-scan.js';
import { tempDir } from '../helpers/temp-dirs.js';

const MODULE = 'export const MyResourceMyapp = 1;\nexport interface MyResource {}\n';

async function project(files: Record<string, string>): Promise<string> {
  const dir = tempDir('kopfgen-scan-');
  for (const [path, text] of Object.entries(files)) {
    await fs.mkdir(join(dir, path, '..'), { recursive: true });
    await fs.writeFile(join(dir, path), text);
  }
  return dir;
}

test('registrations anywhere under the stubs directory; orphans positioned; extensionless and barrel imports resolve', async () => {
  const dir = await project({
    'handlers/a.ts':
      'import { MyResourceMyapp, MyResourceGone } from "../generated/example.com/v1/myresources.js";\nMyResourceMyapp.onCreate(f);\nMyResourceGone.onUpdate(g);\n',
    'handlers/deep/b.ts':
      'import type { MyResource } from "../../generated/example.com/v1/myresources";\nimport { MyResourceMyapp } from "../../generated";\n',
    'handlers/types.d.ts': 'MyResourceX.onCreate(f);\n',
  });
  const { files: scanned } = await scanProject(join(dir, 'generated'), join(dir, 'handlers'), new Set());
  assert.deepEqual(
    scanned.map((f) => f.absPath.slice(dir.length + 1)),
    ['handlers/a.ts', 'handlers/deep/b.ts'],
  );
  assert.deepEqual([...registeredElsewhere(scanned, join(dir, 'handlers/deep/b.ts'))].sort(), [
    'MyResourceGone',
    'MyResourceMyapp',
  ]);
  assert.deepEqual([...registeredElsewhere(scanned, join(dir, 'handlers/a.ts'))], []);
  const texts: Record<string, string> = {
    'example.com/v1/myresources.ts': MODULE,
    'index.ts': 'export { MyResourceMyapp } from "./example.com/v1/myresources.js";\n',
  };
  const diagnostics = await orphanDiagnostics(scanned, join(dir, 'generated'), dir, async (rel) => texts[rel]);
  assert.deepEqual(
    diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code}`),
    ['handlers/a.ts:1:27 error KG321', 'handlers/a.ts:3:1 warning KG320'],
  );
  const gone = await orphanDiagnostics(scanned, join(dir, 'generated'), dir, async () => undefined);
  assert.deepEqual(
    gone.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line} ${d.code}`),
    ['handlers/a.ts:1 KG321', 'handlers/deep/b.ts:1 KG321', 'handlers/deep/b.ts:2 KG321'],
    'one error per module no longer generated',
  );
});

test('with a tsconfig.json: every file it includes (a helper in src/lib), not what it excludes, the stubs directory always', async () => {
  const dir = await project({
    'tsconfig.json': '{ "compilerOptions": { "strict": true }, "include": ["src"], "exclude": ["src/old"] }',
    'src/handlers/a.ts': 'import { MyResourceMyapp } from "../generated/index.js";\nMyResourceMyapp.onCreate(f);\n',
    'src/lib/helper.ts':
      '// shared by several handlers\nimport { MyResourceGoneTemporaryError } from "../generated/example.com/v1/myresources.js";\nexport const e = MyResourceGoneTemporaryError;\n',
    'src/lib/unrelated.ts': 'export const x = 1;\n',
    'src/lib/quoted.ts': 'export const doc = "MyResourceOther.onCreate(fn) in ../generated";\n',
    'src/old/legacy.ts': 'import { MyResourceGone } from "../generated/index.js";\n',
    'src/generated/index.ts': 'export { MyResourceMyapp } from "./example.com/v1/myresources.js";\n',
    'scripts/tool.ts': 'import { MyResourceGone } from "../src/generated/index.js";\n',
  });
  const { files: scanned } = await scanProject(join(dir, 'src/generated'), join(dir, 'src/handlers'), new Set());
  assert.deepEqual(
    scanned.map((f) => f.absPath.slice(dir.length + 1)),
    ['src/handlers/a.ts', 'src/lib/helper.ts', 'src/lib/quoted.ts'],
    'files that mention the output, of those tsc compiles; never the output itself',
  );
  assert.deepEqual([...registeredElsewhere(scanned, join(dir, 'src/handlers/x.ts'))], ['MyResourceMyapp']);
  const texts: Record<string, string> = {
    'example.com/v1/myresources.ts': MODULE,
    'index.ts': 'export { MyResourceMyapp } from "./example.com/v1/myresources.js";\n',
  };
  const diagnostics = await orphanDiagnostics(scanned, join(dir, 'src/generated'), dir, async (rel) => texts[rel]);
  assert.deepEqual(
    diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code}`),
    ['src/lib/helper.ts:2:10 error KG321'],
  );
  // Without a tsconfig.json, the stubs directory alone.
  await fs.rm(join(dir, 'tsconfig.json'));
  const { files: alone } = await scanProject(join(dir, 'src/generated'), join(dir, 'src/handlers'), new Set());
  assert.deepEqual(
    alone.map((f) => f.absPath.slice(dir.length + 1)),
    ['src/handlers/a.ts'],
  );
});

test('solution-style tsconfig.json: the files of its references', async () => {
  const dir = await project({
    'tsconfig.json': '{ "files": [], "references": [{ "path": "./app" }] }',
    'app/tsconfig.json': '{ "compilerOptions": { "composite": true }, "include": ["**/*.ts"] }',
    'app/lib/helper.ts': 'import { MyResourceGone } from "../../generated/index.js";\n',
  });
  const { files: scanned } = await scanProject(join(dir, 'generated'), undefined, new Set());
  assert.deepEqual(
    scanned.map((f) => f.absPath.slice(dir.length + 1)),
    ['app/lib/helper.ts'],
  );
});

test('the listing and the scans are kept: an unchanged project is not listed or parsed again, a new file or an edit is seen', async () => {
  const dir = await project({
    'tsconfig.json': '{ "include": ["src"] }',
    'src/lib/a.ts': 'import { MyResourceGone } from "../../generated/index.js";\n',
  });
  const out = join(dir, 'generated');
  const first = await scanProject(out, undefined, new Set());
  assert.ok(first.memo.listing, 'a tsconfig.json: its listing is kept');
  // The kept listing is what the next run uses while nothing it depends on changed.
  const doctored = { ...first.memo, listing: { ...first.memo.listing, files: [] as string[] } };
  assert.deepEqual((await scanProject(out, undefined, new Set(), doctored)).files, []);
  // A kept scan is used for the same text, never for another.
  const fake = { imports: [], registrations: [{ definition: 'Kept', method: 'onCreate', line: 1, col: 1 }] };
  const path = join(dir, 'src/lib/a.ts');
  const { hash, access } = first.memo.scans[path];
  const kept = { ...first.memo, scans: { [path]: { hash, scan: fake, access } } };
  assert.deepEqual((await scanProject(out, undefined, new Set(), kept)).files[0].scan, fake);
  // A scan kept by a kopfgen that kept no access facts (KG361) is parsed again.
  const older = { ...first.memo, scans: { [path]: { hash, scan: fake } } };
  assert.notDeepEqual((await scanProject(out, undefined, new Set(), older)).files[0].scan, fake);
  await fs.writeFile(path, 'import { MyResourceGone } from "../../generated/index.js";\nMyResourceGone.onCreate(f);\n');
  assert.deepEqual(
    (await scanProject(out, undefined, new Set(), kept)).files[0].scan.registrations.map((r) => r.definition),
    ['MyResourceGone'],
  );
  // A file in a new directory changes a directory's mtime: listed again, with the new file.
  await fs.mkdir(join(dir, 'src/lib/deep/er'), { recursive: true });
  await fs.writeFile(join(dir, 'src/lib/deep/er/b.ts'), 'import { X } from "../../../../generated/index.js";\n');
  const again = await scanProject(out, undefined, new Set(), doctored);
  assert.deepEqual(
    again.files.map((f) => f.absPath.slice(dir.length + 1)),
    ['src/lib/a.ts', 'src/lib/deep/er/b.ts'],
  );
});
