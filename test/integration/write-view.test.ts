/**
 * Type tests of the two views and of the schema cases that were too loose or too strict: server
 * defaults (`Password` as read, `PasswordInput` as written, a handler's `patch` and status typed
 * by the write view), typed maps that also preserve unknown fields (`Client`), and root-level
 * `required` (`Tenant`). Each line marked `// TSxxxx` must produce exactly that error, and no
 * other line may produce any.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { REPO, tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

const FIXTURES = [
  'test/fixtures/crds/server-defaults.yaml',
  'test/fixtures/crds/preserve-typed-map.yaml',
  'test/fixtures/crds/root-required.yaml',
];

const USAGE = `import type { Password, PasswordInput, PasswordSpecInput } from "./fixtures.kopfgen.dev/v1/passwords.js";
import { PasswordRotate } from "./fixtures.kopfgen.dev/v1/passwords.js";
import type { HandlerContext } from "kopfgen/runtime";
import type { ClientSpec } from "./fixtures.kopfgen.dev/v1/clients.js";
import type { Tenant } from "./fixtures.kopfgen.dev/v1/tenants.js";

const apiVersion = "fixtures.kopfgen.dev/v1" as const;
const meta = { name: "a" };
export const written: PasswordInput = { apiVersion, kind: "Password", spec: { secretName: "s", policy: { rounds: 3 }, targets: [{ key: "k" }], templates: { t: {} } } };
export function read(p: Password): [boolean, number, string, string | undefined] {
  return [p.spec.allowRepeat, p.spec.length, p.spec.policy?.algorithm ?? "sha256", p.spec.targets?.[0].encoding];
}
export const full: Password = { apiVersion, kind: "Password", spec: { secretName: "s", length: 8, allowRepeat: true, noUpper: false } };
export const writtenFull: PasswordInput = full;
PasswordRotate.onCreate(({ patch }) => {
  patch.spec.allowRepeat = null;
  patch.spec.length = 12;
  patch.spec.templates = { t: { format: null }, gone: null };
  patch.status.rotate = { generation: 2 };
  return { generation: 1 };
});
// As stubs declare callbacks: typed by the read view, the patch then without nulls for defaulted keys.
export async function rotateOnResume(ctx: HandlerContext<Password>): Promise<void> {
  ctx.patch.spec.length = ctx.spec.length + 1;
}
PasswordRotate.onResume(rotateOnResume);
export const caps: ClientSpec = { caps: { mon: "allow r", osd: "allow rw" }, placement: { all: { tolerations: ["x"] } }, open: { any: 1 }, untyped: { any: [1] } };
export const tenant: Tenant = { apiVersion, kind: "Tenant", metadata: meta, spec: { template: { apiVersion: "v1", kind: "Pod", metadata: meta } } };

export const readMissingDefault: Password = { apiVersion, kind: "Password", spec: { secretName: "s", length: 8, allowRepeat: true } }; // TS2741
export const writtenMissingRequired: PasswordSpecInput = { length: 3 }; // TS2741
export const nestedMissingRequired: PasswordSpecInput = { secretName: "s", policy: { algorithm: "sha512" } }; // TS2741
export const enumStillChecked: PasswordSpecInput = { secretName: "s", policy: { rounds: 1, algorithm: "md5" } }; // TS2322
export function readFromWritten(p: PasswordInput): boolean {
  return p.spec.allowRepeat; // TS2322
}
PasswordRotate.onUpdate(({ patch }) => {
  patch.spec.secretName = null; // TS2322
  patch.spec.colour = "red"; // TS2339
});
PasswordRotate.onDelete(() => ({ phase: "Done" })); // TS2322
export const capsNotString: ClientSpec = { caps: { mon: 5 } }; // TS2322
export const placementUnknownKey: ClientSpec = { placement: { all: { bogus: 1 } } }; // TS2353
export const tenantNoMetadata: Tenant = { apiVersion, kind: "Tenant", spec: {} }; // TS2741
export const templateNoMetadata: Tenant = { apiVersion, kind: "Tenant", metadata: meta, spec: { template: { apiVersion: "v1", kind: "Pod" } } }; // TS2741
`;

test('both views, typed preserve-unknown maps and root-level required: valid objects pass, each mistake fails on its line', () => {
  const sources = FIXTURES.map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }));
  const result = generate(sources, { stubs: false });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const dir = tempDir('write-view');
  const files = writeTree(dir, result.files);
  const usage = join(dir, 'usage.ts');
  writeFileSync(usage, USAGE);

  const expected = USAGE.split('\n')
    .map((text, i) => ({ line: i + 1, code: /\/\/ TS(\d+)$/.exec(text)?.[1] }))
    .filter((e) => e.code !== undefined)
    .map((e) => `usage.ts:${e.line} TS${e.code}`);
  assert.equal(expected.length, 12);

  const actual = typecheck([...files, usage]).map(
    (d) =>
      `${d.file.startsWith(dir) ? d.file.slice(dir.length + 1) : d.file}:${d.line} TS${d.code} ${d.message.split('\n')[0]}`,
  );
  assert.deepEqual(actual.map((a) => a.split(' ').slice(0, 2).join(' ')).sort(), expected.sort(), actual.join('\n'));
});
