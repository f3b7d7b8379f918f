/**
 * `kopfgen run --check`'s check of declared access (src/cli/uses-check.ts): given/want over
 * sources, `run --check` on a module that calls the client with an undeclared kind, and the same
 * finding as a warning from `generate`'s project scan.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runOperator } from '../../src/cli/run.js';
import { undeclaredCalls } from '../../src/cli/uses-check.js';
import { tsMorph } from '../../src/io/ts-morph-load.js';
import { tempDir } from '../helpers/temp-dirs.js';
import { EXAMPLE_CRD, kopfgen, tempProject, writeFiles } from '../helpers/cli-support.js';

const HEAD = "import { builtins } from 'kopfgen/runtime/builtins';\nimport { uses } from 'kopfgen/runtime';\n";

test('undeclaredCalls: a client call of a built-in kind no declaration covers, at the call, with the uses() to add', () => {
  const ts = tsMorph().ts;
  const cases: { name: string; files: Record<string, string>; want: string[] }[] = [
    {
      name: 'nothing declared',
      files: {
        'h.ts': `${HEAD}async function f(ctx: any) {\n  await ctx.client.create(builtins.persistentVolumeClaims, {});\n}\n`,
      },
      want: [
        "h.ts:4:9 KG361 ctx.client.create(builtins.persistentVolumeClaims, …) uses a kind no declaration covers for create: add uses(builtins.persistentVolumeClaims, ['create'])",
      ],
    },
    {
      name: 'declared in another file, every verb by default',
      files: {
        'a.ts': `${HEAD}uses(builtins.persistentVolumeClaims);\n`,
        'h.ts': `${HEAD}async function f(ctx: any) {\n  await ctx.client.create(builtins.persistentVolumeClaims, {});\n}\n`,
      },
      want: [],
    },
    {
      name: 'declared for other verbs: apply needs patch and create',
      files: {
        'h.ts': `${HEAD}uses(builtins.configMaps, ['get', 'create']);\nasync function f(ctx: any) {\n  await ctx.client.get(builtins.configMaps, 'x');\n  await ctx.client.apply(builtins.configMaps, {});\n}\n`,
      },
      want: [
        "h.ts:6:9 KG361 ctx.client.apply(builtins.configMaps, …) uses a kind no declaration covers for apply: add uses(builtins.configMaps, ['apply'])",
      ],
    },
    {
      name: 'onChild covers every verb, defineIndex list; verbs not written as a list count as all; other kinds are not checked',
      files: {
        'h.ts':
          `${HEAD}W.onChild(builtins.deployments, f);\ndefineIndex(builtins.secrets, (s) => ({}));\nuses(builtins.services, VERBS);\n` +
          'async function f(ctx: any) {\n  await ctx.client.delete(builtins.deployments, "x");\n  await ctx.client.list(builtins.secrets);\n' +
          '  await ctx.client.create(builtins.services, {});\n  await ctx.client.create(WebApp, {});\n  await ctx.client.get(builtins.secrets, "s");\n}\n',
      },
      want: [
        "h.ts:11:9 KG361 ctx.client.get(builtins.secrets, …) uses a kind no declaration covers for get: add uses(builtins.secrets, ['get'])",
      ],
    },
  ];
  for (const c of cases) {
    const got = undeclaredCalls(
      ts,
      Object.entries(c.files).map(([file, text]) => ({ file, text })),
    ).map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message.slice(0, d.message.indexOf(' beside'))}`);
    assert.deepEqual(got, c.want, c.name);
  }
});

test('run --check: a module creating a PersistentVolumeClaim without a declaration does not start, the call named', async () => {
  const dir = tempDir('kopfgen-uses-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(process.cwd(), join(dir, 'node_modules', 'kopfgen'), 'dir');
  symlinkSync(resolve('node_modules/typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "name": "op", "private": true, "type": "module" }\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true, skipLibCheck: true } }),
  );
  writeFileSync(
    join(dir, 'operator.ts'),
    `import { builtins } from 'kopfgen/runtime/builtins';
import { defineHandler, defineResource, Registry } from 'kopfgen/runtime';
interface R { spec: { size: string } }
const r = defineResource<R>({ group: 'kopf.dev', version: 'v1', plural: 'ephemeralvolumeclaims', kind: 'EphemeralVolumeClaim', scope: 'Namespaced', statusSubresource: false, printerColumns: [] });
export const registry = new Registry();
defineHandler<R, { pvc?: string }>(r, 'create_fn').onCreate(async (ctx) => {
  await ctx.client.create(builtins.persistentVolumeClaims, { metadata: { name: ctx.name } });
  return { pvc: ctx.name };
}, { registry });
`,
  );
  const lines: string[] = [];
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    assert.equal(await runOperator('operator.ts', { check: true, write: (l) => lines.push(l) }), 1, lines.join('\n'));
  } finally {
    process.chdir(cwd);
  }
  assert.match(
    lines[0] ?? '',
    /^operator\.ts:7:9 error KG361 ctx\.client\.create\(builtins\.persistentVolumeClaims, …\) uses a kind no declaration covers for create: add uses\(builtins\.persistentVolumeClaims, \['create'\]\)/,
  );
  assert.equal(lines.at(-1), 'kopfgen run: --check: 1 client call of a kind no declaration covers, not starting');
});

test('generate: the project scan reports the same KG361 as a warning, exit 0; a declaration anywhere in the project clears it', async () => {
  const dir = await tempProject({
    'crds/my.yaml': EXAMPLE_CRD,
    'tsconfig.json': JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext' },
      include: ['src', 'handlers'],
    }),
    'src/volumes.ts': `import { builtins } from 'kopfgen/runtime/builtins';
import type { HandlerContext } from 'kopfgen/runtime';
export async function claim(ctx: HandlerContext<unknown>): Promise<void> {
  await ctx.client.create(builtins.persistentVolumeClaims, { metadata: { name: ctx.name } });
}
`,
  });
  const first = await kopfgen(['generate', 'crds'], dir);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    /^src\/volumes\.ts:4:9 warning KG361 ctx\.client\.create\(builtins\.persistentVolumeClaims, …\) uses a kind no declaration covers for create: add uses\(builtins\.persistentVolumeClaims, \['create'\]\)/m,
  );
  // Unchanged project: found again from the cache's scan.
  const again = await kopfgen(['generate', 'crds'], dir);
  assert.match(again.stderr, /^src\/volumes\.ts:4:9 warning KG361 /m);
  await writeFiles(dir, {
    'src/access.ts':
      "import { uses } from 'kopfgen/runtime';\nimport { builtins } from 'kopfgen/runtime/builtins';\nuses(builtins.persistentVolumeClaims, ['create']);\n",
  });
  const declared = await kopfgen(['generate', 'crds'], dir);
  assert.equal(declared.code, 0, declared.stderr);
  assert.doesNotMatch(declared.stderr, /KG361/);
});
