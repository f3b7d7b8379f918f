/**
 * The #693 shim in kopf 1.38 itself, without a cluster (test/fixtures/kopf/shim_check.py, on
 * Debian's Python with the generated package of crds/myresource.yaml): each registration helper
 * registers the handler id and kopf's options, keeps async async and sync sync, merges a raised
 * kopf error's status into status.<id> and raises it again, leaves other errors alone, and stores
 * a field handler's result in status.<id>. The e2e test shows the same through the API server.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO, copyKopfGolden, tempDir } from '../helpers/golden-support.js';
import { DEBIAN_PYTHON, KOPF_SRC, kopfRuntimeSkip } from '../helpers/python-support.js';

test('the shim in kopf 1.38: registrations, status merged from errors, results', { skip: kopfRuntimeSkip() }, () => {
  const dir = tempDir('kopf-shim');
  copyKopfGolden('crds-myresource', join(dir, 'generated'));
  cpSync(join(REPO, 'test/fixtures/kopf/shim_check.py'), join(dir, 'shim_check.py'));
  const run = spawnSync(DEBIAN_PYTHON, ['shim_check.py'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: `${KOPF_SRC}:${dir}`, PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 120_000,
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(run.stdout.split('\n').filter((l) => l.startsWith('ok ')).length, 10, run.stdout);
});
