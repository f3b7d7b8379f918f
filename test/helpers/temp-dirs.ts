/**
 * Temporary directories for tests, removed when the test file's process exits (each test file runs
 * in a process of its own), passing or failing: a full `npm test` leaves nothing behind in the
 * temporary directory (`suite-run.ts` checks it). A directory a test made unreadable is made
 * readable again to be removed.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeAll(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      restoreModes(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Gives the owner access back to every directory under `dir` (a test's `chmod 000`). */
function restoreModes(dir: string): void {
  try {
    chmodSync(dir, 0o700);
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) restoreModes(path);
    }
  } catch {
    // gone meanwhile, or not ours: rmSync says so
  }
}

let hooked = false;

/** A new directory `<tmpdir>/<prefix>XXXXXX`, removed when this process exits. */
export function tempDir(prefix: string): string {
  if (!hooked) {
    process.on('exit', removeAll);
    hooked = true;
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
