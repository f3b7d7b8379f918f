/**
 * The kopf shim's automatic conditions (`keep_conditions`, `conditions_after`), run by a real Python
 * against a stand-in `kopf` module (kopf's own dependencies are not needed for these pure parts; the
 * shim in kopf itself is `test/integration/kopf-shim.test.ts`): the rules per outcome, the transition
 * time kept, and the registration wrapper laying them into kopf's patch only for an opted-in resource
 * and a changing cause.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SHIM_PATH, SHIM_TEXT } from '../../src/emit-kopf/py-shim.js';
import { pythons } from '../helpers/python-support.js';

/** What the shim reads of kopf at import (any name: a class) and uses in these checks. */
const STAND_IN = `class Patch(dict):
    pass


class TemporaryError(Exception):
    def __init__(self, message="", delay=None):
        super().__init__(message)
        self.delay = delay


class PermanentError(Exception):
    pass


def __getattr__(name):
    return type(name, (), {})
`;

/** A Python with typing_extensions (the shim imports it), or undefined. */
function python(): string | undefined {
  for (const candidate of pythons().values()) {
    if (spawnSync(candidate, ['-c', 'import typing_extensions'], { timeout: 30_000 }).status === 0) return candidate;
  }
  return undefined;
}

const found = python();

test(
  'kopf shim: automatic conditions by the rules, laid into kopf’s patch for opted-in resources',
  {
    skip: found ? false : 'needs a Python 3.9–3.12 with typing_extensions',
  },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'kopfgen-shim-conditions-'));
    try {
      mkdirSync(join(dir, 'kopf'));
      writeFileSync(join(dir, 'kopf', '__init__.py'), STAND_IN);
      writeFileSync(join(dir, SHIM_PATH), SHIM_TEXT);
      cpSync('test/fixtures/kopf/conditions_check.py', join(dir, 'conditions_check.py'));
      const run = spawnSync(found ?? 'python3', ['conditions_check.py'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.equal(run.stdout.split('\n').filter((l) => l.startsWith('ok ')).length, 9, run.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
