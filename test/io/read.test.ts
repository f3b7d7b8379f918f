// What counts as a glob is decided once (src/io/read.ts): the reader and the watcher agree.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { watchTargets } from '../../src/cli/watch-mode.js';
import { decodeUtf8, firstInvalidUtf8, globBase, isGlob, readInputs, readProblem } from '../../src/io/read.js';
import type { ResolvedRun } from '../../src/cli/options.js';
import { tempDir } from '../helpers/temp-dirs.js';

test('globBase is the part before the first wildcard segment', () => {
  assert.deepEqual(['crds/**/*.yaml', './crds/v1/*.yml', '*.yaml', 'a/b?/c.yaml', 'plain/file.yaml'].map(globBase), [
    'crds',
    './crds/v1',
    '.',
    'a',
    'plain/file.yaml',
  ]);
});

test('a glob is read and watched from the same base; a name with braces is a path to both', async () => {
  const cwd = tempDir('kopfgen-glob-');
  mkdirSync(join(cwd, 'crds/v1'), { recursive: true });
  writeFileSync(join(cwd, 'crds/v1/a.yaml'), 'kind: ConfigMap\n');
  writeFileSync(join(cwd, 'crds/{b}.yaml'), 'kind: ConfigMap\n');
  const read = await readInputs(['crds/**/*.yaml', 'crds/{b}.yaml'], { cwd });
  assert.deepEqual(read.sources.map((s) => s.file).sort(), ['crds/v1/a.yaml', 'crds/{b}.yaml']);
  assert.equal(isGlob('crds/{b}.yaml'), false);
  const run = { cwd, inputs: ['crds/**/*.yaml', 'crds/{b}.yaml'] } as unknown as ResolvedRun;
  const targets = await watchTargets(run);
  assert.deepEqual(targets[0], { dir: join(cwd, 'crds'), recursive: true });
  assert.deepEqual(targets[1], { dir: join(cwd, 'crds'), recursive: false, names: new Set(['{b}.yaml']) });
});

test('firstInvalidUtf8: the offset of the first byte that starts no valid UTF-8 sequence', () => {
  const cases: [string, number[], number][] = [
    ['ASCII', [0x61, 0x62], 2],
    ['two-byte ö', [0x61, 0xc3, 0xb6], 3],
    ['Latin-1 ö', [0x61, 0x62, 0xf6, 0x63], 2],
    ['overlong C0', [0xc0, 0x80], 0],
    ['surrogate ED A0', [0x61, 0xed, 0xa0, 0x80], 1],
    ['truncated at the end', [0x61, 0xe2, 0x82], 1],
    ['four-byte emoji', [0xf0, 0x9f, 0x98, 0x80], 4],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
  ];
  for (const [name, bytes, want] of cases) assert.equal(firstInvalidUtf8(Uint8Array.from(bytes)), want, name);
});

test('decodeUtf8: text, or KG150 at the line and column (in characters) of the bad byte', () => {
  assert.equal(decodeUtf8('a.yaml', Buffer.from('kind: Größe\n')), 'kind: Größe\n');
  const bad = decodeUtf8(
    'a.yaml',
    Buffer.concat([Buffer.from('a: 1\nb: "Grö'), Buffer.from([0xdf]), Buffer.from('e"\n')]),
  );
  assert.ok(typeof bad !== 'string');
  assert.deepEqual([bad.code, bad.file, bad.line, bad.col, bad.severity], ['KG150', 'a.yaml', 2, 8, 'error']);
  assert.match(bad.message, /byte 0xDF is not valid UTF-8/);
});

test('`-` reads standard input as <stdin>; a directory yields its .json files too', async () => {
  const cwd = tempDir('kopfgen-read-');
  mkdirSync(join(cwd, 'crds'));
  writeFileSync(join(cwd, 'crds/a.json'), '{}');
  writeFileSync(join(cwd, 'crds/b.yml'), 'a: 1\n');
  writeFileSync(join(cwd, 'crds/c.txt'), 'x');
  const read = await readInputs(['crds', '-'], { cwd, stdin: async () => Buffer.from('kind: List\n') });
  assert.deepEqual(read.diagnostics, []);
  assert.deepEqual(read.sources, [
    { file: 'crds/a.json', text: '{}' },
    { file: 'crds/b.yml', text: 'a: 1\n' },
    { file: '<stdin>', text: 'kind: List\n' },
  ]);
  const latin = await readInputs(['-'], { cwd, stdin: async () => Uint8Array.from([0x61, 0x0a, 0xe9]) });
  assert.deepEqual(latin.sources, []);
  assert.deepEqual(
    latin.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`),
    ['<stdin>:2:1 KG150'],
  );
});

test('above holdBytes texts are read on use, not held: same texts, same generation serial and parallel, KG150 still found', async () => {
  const { generate, generateParallel } = await import('../../src/generate.js');
  const cwd = tempDir('kopfgen-hold-');
  const crd = (kind: string) =>
    [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      `metadata: { name: ${kind.toLowerCase()}s.example.com }`,
      'spec:',
      '  group: example.com',
      '  scope: Namespaced',
      `  names: { kind: ${kind}, plural: ${kind.toLowerCase()}s }`,
      '  versions:',
      '    - name: v1',
      '      served: true',
      '      storage: true',
      '      schema:',
      '        openAPIV3Schema: { type: object, properties: { spec: { type: object, description: "é" } } }',
      '',
    ].join('\n');
  writeFileSync(join(cwd, 'a.yaml'), crd('Apple'));
  writeFileSync(join(cwd, 'b.yaml'), crd('Banana'));
  const held = await readInputs(['.'], { cwd });
  const onUse = await readInputs(['.'], { cwd, holdBytes: 0 });
  assert.deepEqual(
    onUse.sources.map((s) => [s.file, s.text, s.bytes]),
    held.sources.map((s) => [s.file, s.text, Buffer.byteLength(s.text)]),
  );
  assert.equal(Object.getOwnPropertyDescriptor(onUse.sources[0], 'text')?.get !== undefined, true);
  const expected = generate(held.sources, { stubs: false });
  assert.ok(expected.files.length > 0);
  assert.deepEqual(generate(onUse.sources, { stubs: false }), expected);
  assert.deepEqual(await generateParallel(onUse.sources, { stubs: false }, { threads: 2, minBytes: 0 }), expected);
  writeFileSync(join(cwd, 'c.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
  const bad = await readInputs(['.'], { cwd, holdBytes: 0 });
  assert.deepEqual(
    bad.diagnostics.map((d) => [d.code, d.file, d.line, d.col]),
    [['KG150', 'c.yaml', 1, 4]],
  );
});

/** A file-system error as Node raises it (`code`, `path`, the message naming the call). */
function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, path, errno: -1, syscall: 'open' });
}

test('readProblem: why an input cannot be read, in words for that reason, never as an output problem', () => {
  const cases: [string, NodeJS.ErrnoException, string, RegExp][] = [
    ['missing', errno('ENOENT', '/p/a.yaml'), 'KG101', /^no such file or directory: a\.yaml$/],
    ['below a file', errno('ENOTDIR', '/p/a.yaml/x'), 'KG101', /^no such file or directory: a\.yaml$/],
    ['permission', errno('EACCES', '/p/a.yaml'), 'KG118', /^cannot read a\.yaml: permission denied/],
    ['EPERM', errno('EPERM', '/p/a.yaml'), 'KG118', /^cannot read a\.yaml: permission denied/],
    ['symlink loop', errno('ELOOP', '/p/a.yaml'), 'KG118', /^cannot read a\.yaml: a symbolic link loop/],
    ['I/O error', errno('EIO', '/p/a.yaml'), 'KG118', /^cannot read a\.yaml: EIO \(failed\)$/],
  ];
  for (const [name, e, code, message] of cases) {
    const d = readProblem('a.yaml', e);
    assert.equal(d.code, code, name);
    assert.match(d.message, message, name);
    assert.deepEqual([d.file, d.line, d.col, d.severity], ['a.yaml', 1, 1, 'error'], name);
    assert.doesNotMatch(d.message, /writ/, name);
  }
});

test('an input that cannot be read is KG118 naming why: a symlink loop named directly, and (not as root) unreadable files and directories', async (t) => {
  const cwd = tempDir('kopfgen-unreadable-');
  symlinkSync('loop.yaml', join(cwd, 'loop.yaml'));
  const loop = await readInputs(['loop.yaml'], { cwd });
  assert.deepEqual(
    loop.diagnostics.map((d) => `${d.code} ${d.file}: ${d.message}`),
    ['KG118 loop.yaml: cannot read loop.yaml: a symbolic link loop (or a chain of too many links)'],
  );
  if (process.getuid?.() === 0) return t.skip('running as root: permissions do not stop root from reading');
  mkdirSync(join(cwd, 'crds/locked'), { recursive: true });
  writeFileSync(join(cwd, 'secret.yaml'), 'a: 1\n');
  chmodSync(join(cwd, 'secret.yaml'), 0);
  writeFileSync(join(cwd, 'crds/ok.yaml'), 'a: 1\n');
  chmodSync(join(cwd, 'crds/locked'), 0);
  mkdirSync(join(cwd, 'closed'));
  chmodSync(join(cwd, 'closed'), 0);
  try {
    const read = await readInputs(['secret.yaml', 'crds', 'closed'], { cwd });
    assert.deepEqual(read.diagnostics.map((d) => `${d.code} ${d.file}`).sort(), [
      'KG118 closed',
      'KG118 crds/locked',
      'KG118 secret.yaml',
    ]);
    assert.ok(read.diagnostics.every((d) => /permission denied/.test(d.message)));
  } finally {
    chmodSync(join(cwd, 'crds/locked'), 0o755);
    chmodSync(join(cwd, 'closed'), 0o755);
  }
});

test('decodeUtf8: a UTF-16 or UTF-32 file (by its byte-order mark) is KG150 saying so, with the iconv that converts it', () => {
  const cases: [string, number[], string][] = [
    ['UTF-16LE', [0xff, 0xfe, 0x61, 0x00], 'UTF-16LE'],
    ['UTF-16BE', [0xfe, 0xff, 0x00, 0x61], 'UTF-16BE'],
    ['UTF-32LE', [0xff, 0xfe, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00], 'UTF-32LE'],
    ['UTF-32BE', [0x00, 0x00, 0xfe, 0xff, 0x00, 0x00, 0x00, 0x61], 'UTF-32BE'],
  ];
  for (const [name, bytes, encoding] of cases) {
    const d = decodeUtf8('a.yaml', Uint8Array.from(bytes));
    assert.ok(typeof d !== 'string', name);
    assert.deepEqual([d.code, d.line, d.col], ['KG150', 1, 1], name);
    assert.match(d.message, new RegExp(`is ${encoding} \\(byte-order mark\\)`), name);
    assert.match(d.message, new RegExp(`iconv -f ${encoding} -t UTF-8`), name);
    assert.doesNotMatch(d.message, /latin1/, name);
  }
  // A UTF-8 byte-order mark is UTF-8: the text, without the mark.
  assert.equal(decodeUtf8('a.yaml', Uint8Array.from([0xef, 0xbb, 0xbf, 0x61])), 'a');
});
