/**
 * The record e2e fixture operators keep of their handler runs (`gate-operator.ts`,
 * `shard-operator.ts`): one line per finished run, `kind name replica start end` (epoch ms), in a
 * `runs` file of the test's directory, appended by every replica. Read back here to check that each
 * object was handled, and that no two runs of one object overlapped (leader election's and the
 * shards' promise: one holder per object at any instant).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HandlerRun {
  /** What ran: `create`, `timer`, or a fixture's own word (`seed-fail`). */
  kind: string;
  name: string;
  replica: string;
  start: number;
  end: number;
}

export function readRuns(dir: string): HandlerRun[] {
  const file = join(dir, 'runs');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [kind, name, replica, start, end] = line.split(' ');
      return { kind, name, replica, start: Number(start), end: Number(end) };
    });
}

/**
 * Create runs of one object that overlap in time, as lines naming both. A replica paused (SIGSTOP,
 * or its loop blocked) from `from` to `to` does nothing meanwhile, so its runs are cut at the pause:
 * a run in flight across it only counts where it really ran. `pauser`, the object whose handler
 * blocks the loop, is left out: nothing can stop a handler that holds the event loop.
 */
export function overlappingRuns(
  all: HandlerRun[],
  paused: string,
  from: number,
  to: number,
  pauser?: string,
): string[] {
  const found: string[] = [];
  const byObject = new Map<string, { start: number; end: number; run: HandlerRun }[]>();
  for (const run of all.filter((r) => r.kind === 'create' && r.name !== pauser)) {
    const spans =
      run.replica === paused && run.start < to && run.end > from
        ? [
            { start: run.start, end: Math.min(run.end, from) },
            { start: Math.max(run.start, to), end: run.end },
          ].filter((s) => s.end > s.start)
        : [{ start: run.start, end: run.end }];
    byObject.set(run.name, [...(byObject.get(run.name) ?? []), ...spans.map((s) => ({ ...s, run }))]);
  }
  for (const [name, spans] of byObject) {
    spans.sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) {
      if (spans[i].run !== spans[i - 1].run && spans[i].start < spans[i - 1].end)
        found.push(`${name}: ${JSON.stringify(spans[i - 1].run)} and ${JSON.stringify(spans[i].run)}`);
    }
  }
  return found;
}
