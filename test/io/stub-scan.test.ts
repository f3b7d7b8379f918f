/**
 * The stubs directory as the writer sees it: handlers registered in other files, and orphan
 * diagnostics (KG320 at registrations, KG321 at the import) against what the run generates.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { orphanDiagnostics, registeredElsewhere, scanStubsDir } from '../../src/io/stub-scan.js';

const MODULE = 'export const MyResourceMyapp = 1;\nexport interface MyResource {}\n';

async function project(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'kopfgen-scan-'));
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
  const scanned = await scanStubsDir(join(dir, 'handlers'));
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
