/**
 * `npm test`'s runner: `node --test` over the given files with a temporary directory of the run's
 * own (TMPDIR) and a mark in every process's environment; once the tests end, anything left in that
 * directory or any process still carrying the mark (an envtest, an operator, a child a test did not
 * stop) fails the run, named. So a full run is shown to leave nothing behind, on any machine.
 * The process check reads /proc (Linux); elsewhere only the directory is checked. A clean run prints
 * nothing of its own, so the output still ends with node's test runner summary (what CI reads).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MARK = 'KOPFGEN_SUITE_RUN';

/** Processes (pid and command line) whose environment carries `mark`, but this one. */
function markedProcesses(mark: string): { pid: number; command: string }[] {
  if (!existsSync('/proc')) return [];
  const out: { pid: number; command: string }[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (!environ.includes(mark)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      out.push({ pid, command });
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return out;
}

async function main(files: string[]): Promise<number> {
  const temp = mkdtempSync(join(tmpdir(), 'kopfgen-suite-'));
  const mark = `${MARK}=${temp}`;
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
      stdio: 'inherit',
      // tsx keeps its compile cache in the temporary directory on purpose (across runs): off for the run.
      env: { ...process.env, TMPDIR: temp, [MARK]: temp, TSX_DISABLE_CACHE: '1' },
    });
    child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0)));
  });
  let failed = code !== 0;
  const left = readdirSync(temp);
  if (left.length > 0) {
    failed = true;
    console.error(`# the tests left ${left.length} entries in their temporary directory: ${left.sort().join(', ')}`);
  }
  const running = markedProcesses(mark);
  for (const p of running) {
    failed = true;
    console.error(`# a process of the tests still runs: ${p.pid} ${p.command} (stopped now)`);
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  rmSync(temp, { recursive: true, force: true });
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
