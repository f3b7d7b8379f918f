/**
 * The story in `examples/myresource` (its generated code is the story CRD's golden, compared in
 * golden.test.ts): its handler file is a merge fixed point, it type-checks under strict, and it runs: the handler
 * returns `{ phase: "Starting", reason: null }` (clearing the reason) and the helpers throw TemporaryErrors carrying `{ phase: "Pending", reason }`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generate } from '../../src/generate.js';
import { defaultRegistry, TemporaryError } from '../../src/runtime/index.js';
import { mergeStubFile } from '../../src/io/stub-merge.js';
import { filesUnder, typecheck } from '../helpers/golden-support.js';
import { formatErrors } from '../helpers/handler-typecheck.js';
import { needsBuild, withTsx } from '../helpers/example-support.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

const EXAMPLE = resolve(process.cwd(), 'examples/myresource');
const CRD = 'crds/myresource.yaml';

function regenerate() {
  // What `kopfgen generate crds/myresource.yaml --out examples/myresource/generated --stubs examples/myresource/handlers` computes.
  return generate([{ file: CRD, text: readFileSync(CRD, 'utf8') }], {
    stubs: { dir: 'examples/myresource/handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
}

test('regenerating leaves the filled-in handler file byte for byte as it is', () => {
  const stub = regenerate().files.find((f) => f.role === 'stub');
  assert.ok(stub && stub.path === 'myresources.ts');
  const mine = readFileSync(join(EXAMPLE, 'handlers/myresources.ts'), 'utf8');
  const merged = mergeStubFile(mine, stub);
  assert.equal(merged.text, mine);
  assert.deepEqual(merged.added, []);
});

test('the example type-checks under strict', () => {
  const files = filesUnder(EXAMPLE).filter((p) => p.endsWith('.ts'));
  assert.ok(files.includes(join(EXAMPLE, 'operator.ts')));
  assert.deepEqual(formatErrors(typecheck(files)), []);
});

test(
  "the example runs: Starting from the handler, Pending from the helpers' TemporaryErrors",
  { skip: needsBuild },
  async () => {
    await withTsx(async (load) => {
      const example = (await load(
        join(EXAMPLE, 'operator.ts'),
      )) as typeof import('../../examples/myresource/operator.js');
      const registered = defaultRegistry.handlers
        .filter((h) => h.resource.plural === 'myresources')
        .map((h) => `${h.id}/${h.cause}`);
      assert.deepEqual(registered.sort(), ['myapp/create', 'myapp/resume', 'myapp/update']);

      const context = (spec: Record<string, unknown>) =>
        ({
          body: { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'web' }, spec },
          name: 'web',
          logger: { info() {}, debug() {}, warn() {}, error() {} },
        }) as never;
      assert.deepEqual(await example.myappOnCreate(context({ image: 'nginx' })), { phase: 'Starting', reason: null });

      const pending = await example.myappOnCreate(context({ image: ' ' })).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(pending instanceof TemporaryError, 'the shared helper throws the base TemporaryError');
      assert.equal(pending.constructor, TemporaryError);
      assert.deepEqual([pending.status, pending.delay], [{ phase: 'Pending', reason: 'no-image' }, 30]);

      const scaled = await example.myappOnUpdate(context({ image: 'nginx', replicas: 0 })).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(scaled instanceof TemporaryError);
      assert.equal(scaled.name, 'MyResourceMyappTemporaryError');
      assert.deepEqual(scaled.status, { phase: 'Pending', reason: 'scaled-to-zero' });
    });
  },
);
