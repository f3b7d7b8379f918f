/**
 * File-system failures as diagnostics: given a Node error on some path (often a temporary or a
 * path below a file), want the code and the path the user can act on, relative to the cwd.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileDiagnostic, FileError, onPath } from '../../src/io/file-errors.js';
import { tempDir } from '../helpers/temp-dirs.js';

function errno(code: string, path: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: something failed, open '${path}'`);
  e.code = code;
  e.path = path;
  return e;
}

const cwd = tempDir('kopfgen-file-errors-');
writeFileSync(join(cwd, 'outfile'), 'x');
mkdirSync(join(cwd, 'gen/a'), { recursive: true });

const cases: { name: string; given: unknown; want: [string, string, RegExp] | undefined }[] = [
  {
    name: 'ENOTDIR below a file names the file',
    given: errno('ENOTDIR', join(cwd, 'outfile/a/b.ts')),
    want: ['KG901', 'outfile', /is a file, but kopfgen needs a directory/],
  },
  {
    name: 'EISDIR names the directory',
    given: errno('EISDIR', join(cwd, 'gen/a')),
    want: ['KG901', 'gen/a', /is a directory, but kopfgen needs to write a file/],
  },
  {
    name: 'EACCES on a directory not yet created names its existing parent',
    given: errno('EACCES', join(cwd, 'gen/a/b/c')),
    want: ['KG900', 'gen/a', /not writable/],
  },
  { name: 'EROFS', given: errno('EROFS', join(cwd, 'gen')), want: ['KG900', 'gen', /read-only file system/] },
  {
    name: 'ENOSPC keeps the reason, not the path',
    given: errno('ENOSPC', join(cwd, 'gen/.x.kopfgen.tmp')),
    want: ['KG902', 'gen/.x.kopfgen.tmp', /ENOSPC \(something failed\)/],
  },
  {
    name: "a temporary renamed to the user's path",
    given: onPath(errno('EACCES', join(cwd, 'gen/a/.x1.kopfgen.tmp')), join(cwd, 'gen/a')),
    want: ['KG900', 'gen/a', /^gen\/a is not writable/],
  },
  { name: 'not a file-system error', given: new TypeError('x is undefined'), want: undefined },
];

for (const c of cases) {
  test(`file errors: ${c.name}`, () => {
    const d = fileDiagnostic(c.given, cwd);
    if (!c.want) return assert.equal(d, undefined);
    assert.ok(d);
    assert.deepEqual([d.code, d.file, d.line, d.col], [c.want[0], c.want[1], 1, 1]);
    assert.match(d.message, c.want[2]);
    assert.doesNotMatch(d.message, /kopfgen\.tmp/.test(c.want[1]) ? /$^/ : /kopfgen\.tmp/);
  });
}

test('onPath leaves other errors and FileErrors as they are', () => {
  const other = new RangeError('r');
  assert.equal(onPath(other, '/x'), other);
  const file = new FileError('/a', 'EACCES', 'm');
  assert.equal(onPath(file, '/b'), file);
});
