/** `runOperator` failing clearly without a usable module or cluster (no server needed). */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { runOperator } from '../../src/cli/run.js';
import { typeCheck } from '../../src/cli/type-check.js';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { closedPortKubeconfig } from '../helpers/cli-support.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';
import { tempDir } from '../helpers/temp-dirs.js';

const resource = myResourceDescriptor();

describe('runOperator', () => {
  it('exits 1 naming the module when it does not exist', async () => {
    const lines: string[] = [];
    assert.equal(await runOperator('test/fixtures/runtime/missing.ts', { write: (l) => lines.push(l) }), 1);
    assert.match(lines.join('\n'), /missing\.ts: no such file/);
  });
  it('exits 1 when the module registers no handler', async () => {
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry: new Registry(),
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /no handlers are registered/);
  });
  it('exits 1 with a clear message when the cluster is not reachable', async () => {
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry,
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:1/);
  });
  it('exits 1 naming the namespace when -n is not a valid namespace name, before contacting the cluster', async () => {
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry,
      namespace: 'Bad_NS!',
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.deepEqual(lines.length, 1, lines.join('\n'));
    assert.match(lines[0], /^kopfgen run: namespace "Bad_NS!" is not a valid namespace name/);
  });
});

/** A project of its own: kopfgen (and, if asked, TypeScript) linked into node_modules. */
function tsProject(files: Record<string, string>, typescript: boolean): string {
  const dir = tempDir('kopfgen-run-ts-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(process.cwd(), join(dir, 'node_modules', 'kopfgen'), 'dir');
  if (typescript) symlinkSync(resolve('node_modules/typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "name": "op", "private": true }\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const TYPED = (status: string) => `import { defineHandler, defineResource, Registry } from 'kopfgen/runtime';
interface R { spec: { image: string } }
const r = defineResource<R>({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
export const registry = new Registry();
defineHandler<R, { phase?: string }>(r, 'myapp').onCreate(() => (${status}), { registry });
`;

describe('kopfgen run: modules and --check', () => {
  it('a .ts module outside a "type": "module" package loads (then the cluster is what fails)', async () => {
    const dir = tsProject({ 'operator.ts': TYPED("{ phase: 'Done' }") }, false);
    const lines: string[] = [];
    const code = await runOperator(join(dir, 'operator.ts'), {
      registry: new Registry(),
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /no handlers are registered/);
  });
  it('an error while importing is one line, file:line:col; the stack only with --log-level debug', async () => {
    const dir = tsProject({ 'bad.ts': "const n: number = 1;\nthrow new Error('no config');\n" }, false);
    const lines: string[] = [];
    assert.equal(await runOperator(join(dir, 'bad.ts'), { write: (l) => lines.push(l) }), 1);
    assert.deepEqual(lines, [`${join(dir, 'bad.ts')}:2:7: no config`]);
    const debug: string[] = [];
    assert.equal(await runOperator(join(dir, 'bad.ts'), { logLevel: 'debug', write: (l) => debug.push(l) }), 1);
    assert.equal(debug[0], lines[0]);
    assert.match(debug[1], /^Error: no config\n\s+at /);
  });
  it('--check refuses to start on type errors, printing them', async () => {
    const dir = tsProject(
      {
        'operator.ts': TYPED("{ phase: 'Done', colour: 'red' }"),
        'tsconfig.json': JSON.stringify({
          compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true },
        }),
      },
      true,
    );
    const lines: string[] = [];
    const code = await runOperator(join(dir, 'operator.ts'), { check: true, write: (l) => lines.push(l) });
    assert.equal(code, 1);
    // Relative to the working directory, as the user would open it.
    assert.ok(lines[0]?.startsWith(`${relative(process.cwd(), join(dir, 'operator.ts'))}(5,`), lines[0]);
    assert.match(lines[0] ?? '', /\(5,\d+\): error TS2322: /);
    assert.equal(lines.at(-1), 'kopfgen run: --check: the type check failed, not starting');
  });
  it("--check in a project whose module is under src/: paths relative to the working directory, not to the module's", async () => {
    const dir = tsProject(
      {
        'tsconfig.json': JSON.stringify({
          compilerOptions: { strict: true, module: 'nodenext', noEmit: true, skipLibCheck: true },
          include: ['src'],
        }),
      },
      true,
    );
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'operator.ts'), TYPED("{ phase: 'Done', colour: 'red' }"));
    const checked = await typeCheck('src/operator.ts', dir);
    assert.equal(checked.ok, false);
    assert.match(checked.ok ? '' : (checked.lines[0] ?? ''), /^src\/operator\.ts\(5,\d+\): error TS2322: /);
  });
  it('--check passes a module that type-checks, then starts (here: the cluster is unreachable)', async () => {
    const dir = tsProject({ 'operator.ts': TYPED("{ phase: 'Done' }") }, true);
    const lines: string[] = [];
    const code = await runOperator(join(dir, 'operator.ts'), {
      check: true,
      registry: new Registry(),
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /no handlers are registered/);
  });
  it('--check without TypeScript in the project says so', async () => {
    const dir = tsProject({ 'operator.ts': TYPED("{ phase: 'Done' }") }, false);
    const lines: string[] = [];
    assert.equal(await runOperator(join(dir, 'operator.ts'), { check: true, write: (l) => lines.push(l) }), 1);
    assert.match(lines[0], /^--check needs TypeScript in the module's project: none resolves from /);
  });
});
