/**
 * The seed story in real kopf: kopf 1.38.0 (../shared/kopf-1.38.0) on Debian's Python runs a
 * handlers module written against the kopf target's generated package, against a real API server.
 * A generated TemporaryError with `status={"phase": "Pending"}` puts Pending in `kubectl get`'s
 * column (kopf writes its `patch` after the failed attempt; the shim merged the status into it),
 * the retry returns `{"phase": "Starting"}` and the column shows Starting; a PermanentError with a
 * status leaves it visible, and kopf does not retry it. The kopf process is bounded and always killed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generate } from '../../src/generate.js';
import { REPO, tempDir, writeTree } from '../helpers/golden-support.js';
import { eventually, skip as envtestSkip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { create, myResourceObject, myResources as my, namespace, sleep } from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';
import { DEBIAN_PYTHON, KOPF_SRC, kopfRuntimeSkip } from '../helpers/python-support.js';

const skip = envtestSkip || kopfRuntimeSkip();
const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

/** What a kopf user writes against the generated package (the kopf story of docs/topics/kopf-target.md). */
const HANDLERS = `
from typing import Any, Optional

import kopf

from generated.example_com.v1.myresources import (
    MyResourceMyapp,
    MyResourceMyappPermanentError,
    MyResourceMyappStatus,
    MyResourceMyappTemporaryError,
    MyResourceSpec,
)


@MyResourceMyapp.on_create()
async def create(spec: MyResourceSpec, logger: kopf.Logger, **_: Any) -> Optional[MyResourceMyappStatus]:
    logger.info(f"handler myapp called for image {spec['image']}")
    if spec["image"] == "broken":
        raise MyResourceMyappPermanentError("the image is broken", status={"phase": "Failed"})
    if spec.get("replicas", 1) < 1:
        raise MyResourceMyappTemporaryError("scaled to zero", delay=1, status={"phase": "Pending"})
    return {"phase": "Starting"}
`;

/** The package from crds/myresource.yaml and the handlers module, in a directory of their own. */
function project(): string {
  const dir = tempDir('kopf-story');
  const file = MYRESOURCES_CRD.file;
  const result = generate([{ file, text: readFileSync(join(REPO, file), 'utf8') }], { target: 'kopf', stubs: false });
  writeTree(join(dir, 'generated'), result.files);
  writeFileSync(join(dir, 'story.py'), HANDLERS);
  return dir;
}

/** `kopf run story.py` in namespace `ns`, killed after `limitMs` whatever happens. */
function runKopf(
  dir: string,
  ns: string,
  limitMs: number,
): { child: ChildProcess; output: () => string; stop: () => Promise<void> } {
  const child = spawn(DEBIAN_PYTHON, ['-m', 'kopf', 'run', 'story.py', '--standalone', '--namespace', ns], {
    cwd: dir,
    env: { ...process.env, PYTHONPATH: KOPF_SRC, KUBECONFIG: suite.cluster.kubeconfig, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: limitMs,
    killSignal: 'SIGKILL',
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!stopped) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  return { child, output: () => output, stop };
}

/** The STATUS column of `kubectl get myresources <name>` (the CRD's printer column `.status.myapp.phase`). */
function column(ns: string, name: string): string {
  const row = suite.cluster.kubectl('get', 'myresources', name, '-n', ns, '--no-headers').trim();
  const cells = row.split(/\s+/);
  return cells.length >= 3 ? cells[1] : '';
}

const untilColumn = (ns: string, name: string, want: string) =>
  eventually(
    `kubectl get to show ${want} for ${name}`,
    async () => (column(ns, name) === want ? true : undefined),
    60_000,
  );

describe('kopf 1.38 with the generated package', { skip }, () => {
  suite.hooks();

  it(
    'TemporaryError status Pending in kubectl get, the retry returns Starting; a PermanentError status stays',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'kopf');
      const kopf = runKopf(project(), ns, TEST_TIMEOUT - 10_000);
      try {
        await create(suite.client, my(ns), myResourceObject('web', { image: 'nginx', replicas: 0 }));
        await create(suite.client, my(ns), myResourceObject('broken', { image: 'broken' }));

        await untilColumn(ns, 'web', 'Pending');
        // Still Pending while kopf retries (the handler raises again after each 1 s delay, its status merged again).
        const temporary = () =>
          (kopf.output().match(/Handler 'myapp' failed temporarily: scaled to zero/g) ?? []).length;
        await eventually('kopf to retry myapp', async () => (temporary() >= 2 ? true : undefined), 60_000);
        assert.equal(column(ns, 'web'), 'Pending');
        await suite.mergePatch(my(ns, 'web'), { spec: { replicas: 2 } });
        await untilColumn(ns, 'web', 'Starting');

        await untilColumn(ns, 'broken', 'Failed');
        await sleep(3_000);
        assert.equal(column(ns, 'broken'), 'Failed', 'the permanent failure stays visible');
        const broken = kopf.output().match(/handler myapp called for image broken/g) ?? [];
        assert.equal(broken.length, 1, 'kopf did not retry the permanent failure');
        assert.match(kopf.output(), /Handler 'myapp' failed permanently: the image is broken/);
        const web = await suite.get(my(ns, 'web'));
        assert.deepEqual(web.status.myapp, { phase: 'Starting' });
      } catch (error) {
        throw new Error(`${(error as Error).message}\nkopf's output:\n${kopf.output()}`, { cause: error });
      } finally {
        await kopf.stop();
      }
    },
  );
});
