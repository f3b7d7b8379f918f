/**
 * `kopfgen generate --watch`: one run, then a run after every (debounced) change to a CRD or to
 * the configuration, until SIGINT/SIGTERM. A run with errors reports them and writes nothing,
 * so the previous output stays in place; the writer rewrites only files whose text changed.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { CONFIG_FILES } from '../config/load.js';
import { globBase, isGlob } from '../io/read.js';
import { CACHE_DIR } from './cache.js';
import { runGenerate, type Pipeline } from './generate-command.js';
import type { ResolvedRun } from './options.js';
import { Reporter, type Streams } from './report.js';
import { messageOf } from '../runtime/error-message.js';

/** Re-reads the configuration and flags into a run (or the configuration's diagnostics). */
export type Reload = () => Promise<{ run?: ResolvedRun; diagnostics: Diagnostic[] }>;

const DEBOUNCE_MS = 120;
const RELEVANT = /\.(ya?ml|json)$/i;

interface WatchTarget {
  dir: string;
  recursive: boolean;
  /** When set, only these file names in `dir` matter. */
  names?: Set<string>;
}

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return undefined;
  }
}

/** Where to listen so that every input (existing or not yet) and the configuration are seen. */
export async function watchTargets(run: ResolvedRun): Promise<WatchTarget[]> {
  const targets: WatchTarget[] = [];
  for (const input of run.inputs) {
    // The reader decides what a glob is; watching must agree, or an input would be watched wrongly.
    const abs = resolve(run.cwd, isGlob(input) ? globBase(input) : input);
    const dir = await isDirectory(abs);
    if (dir) targets.push({ dir: abs, recursive: true });
    else if (dir === false) targets.push({ dir: dirname(abs), recursive: false, names: new Set([basename(abs)]) });
    else targets.push({ dir: await nearestExisting(dirname(abs)), recursive: true });
  }
  const configDir = run.configPath ? dirname(run.configPath) : run.cwd;
  targets.push({
    dir: configDir,
    recursive: false,
    names: new Set([...CONFIG_FILES, 'package.json', ...(run.configPath ? [basename(run.configPath)] : [])]),
  });
  return targets;
}

function isDirectorySync(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `root` and every directory below it, skipping what the reader skips (hidden, node_modules) and outputs. */
async function subdirectories(root: string, ignored: (abs: string) => boolean): Promise<string[]> {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    const entries = await fs.readdir(out[i], { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const abs = join(out[i], e.name);
      if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && !ignored(abs)) out.push(abs);
    }
  }
  return out;
}

/** A watcher's identity: the directory and what it listens for there. */
function watchKey(target: WatchTarget, dir: string): string {
  return JSON.stringify([dir, target.recursive, target.names ? [...target.names].sort() : null]);
}

async function nearestExisting(dir: string): Promise<string> {
  while (!(await isDirectory(dir)) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export async function watchLoop(
  first: ResolvedRun,
  reload: Reload,
  pipeline: Pipeline,
  streams: Streams,
): Promise<number> {
  let run = first;
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let pending = false;
  let configChanged = false;
  let stopped = false;
  const say = (text: string): void => {
    if (run.format === 'text' && !run.quiet) streams.stdout.write(`kopfgen: ${text}\n`);
  };

  const once = async (): Promise<void> => {
    const reporter = new Reporter(streams, run.format, run.quiet);
    const report = await runGenerate({ ...run, check: false }, pipeline, reporter, 'kopfgen generate');
    reporter.finish(report);
  };

  const ignored = (abs: string): boolean =>
    [run.outDir, run.stubsDir, join(run.cwd, CACHE_DIR)].some(
      (d) => d !== undefined && (abs === d || abs.startsWith(d + sep)),
    ) || basename(abs).endsWith('.kopfgen.tmp');

  const onEvent = (target: WatchTarget, dir: string, name: string | null): void => {
    const file = name ? join(dir, name) : dir;
    if (ignored(file)) return;
    if (target.names && !target.names.has(basename(file))) return;
    const isConfig =
      file === run.configPath ||
      (target.names !== undefined && (CONFIG_FILES.includes(basename(file)) || basename(file) === 'package.json'));
    if (!isConfig && !RELEVANT.test(file) && !isDirectorySync(file)) return;
    configChanged ||= isConfig;
    schedule();
  };

  /**
   * Non-recursive watchers on every directory (Node 20's recursive mode on Linux misses renames onto
   * a file). A watcher that is still wanted is kept, not reopened: closing one drops the events the
   * kernel has queued for it but Node has not read yet, so a file replaced just as a run ends would
   * go unseen.
   */
  const listen = async (): Promise<void> => {
    const targets = await watchTargets(run);
    const dirsOf = await Promise.all(targets.map((t) => (t.recursive ? subdirectories(t.dir, ignored) : [t.dir])));
    const wanted = new Map<string, { target: WatchTarget; dir: string }>();
    for (const [i, target] of targets.entries())
      for (const dir of dirsOf[i]) wanted.set(watchKey(target, dir), { target, dir });
    for (const [key, w] of watchers)
      if (stopped || !wanted.has(key)) {
        w.close();
        watchers.delete(key);
      }
    if (stopped) return;
    for (const [key, { target, dir }] of wanted) {
      if (watchers.has(key)) continue;
      try {
        const w = watch(dir, (_event, name) => onEvent(target, dir, name === null ? null : name.toString()));
        w.on('error', () => undefined); // a watched directory was removed: the next run re-lists
        watchers.set(key, w);
      } catch {
        // the directory vanished between listing and watching; the next run re-lists
      }
    }
  };

  const rerun = async (): Promise<void> => {
    if (configChanged) {
      configChanged = false;
      const next = await reload();
      if (next.run === undefined) {
        const reporter = new Reporter(streams, run.format, run.quiet);
        reporter.finish({ command: 'generate', exitCode: 2, diagnostics: next.diagnostics, cache: 'off', timeMs: 0 });
        say('configuration has errors; keeping the previous settings and output');
        return;
      }
      run = next.run;
    }
    say('change detected, regenerating…');
    await once();
    await listen(); // directories may have appeared or gone
  };

  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (pending) return;
      pending = true;
      running = running.then(async () => {
        pending = false;
        await rerun().catch((e: unknown) => streams.stderr.write(`kopfgen: error: ${messageOf(e)}\n`));
      });
    }, DEBOUNCE_MS);
  };

  await once();
  await listen();
  say(`watching ${watchers.size} director${watchers.size === 1 ? 'y' : 'ies'} for changes (Ctrl-C to stop)`);
  await new Promise<void>((stop) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  stopped = true;
  if (timer) clearTimeout(timer);
  for (const w of watchers.values()) w.close();
  watchers.clear();
  await running; // a run in progress finishes; its listen() sees `stopped` and adds no watchers
  say('stopped watching');
  return 0;
}
