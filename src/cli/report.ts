/**
 * What the CLI prints. Text for people (diagnostics on stderr as `file:line:col severity code
 * message`, colour only on a terminal and never with NO_COLOR; summaries and diffs on stdout),
 * or one JSON object per run on stdout for editors and CI (`--format json`).
 */
import type { Diagnostic } from '../diagnostics.js';
import { formatDiagnostic, sortDiagnostics } from '../diagnostics.js';
import type { Change, PlanSummary } from '../io/write.js';
import type { OutputFormat } from './options.js';

export interface OutOfDateFile {
  path: string;
  role: 'generated' | 'stub';
  /** `create`: missing, `update`: changed, `remove`: extra (stale). */
  change: Change;
  diff: string;
}

/**
 * Exit codes (docs/reference/cli.md, "Exit codes"): 0 success; 1 error diagnostics or `--check` out of date;
 * 2 usage; 3 an internal error of kopfgen (a bug: the run stopped, nothing was written).
 */
export const EXIT_INTERNAL = 3;

export interface RunReport {
  command: 'generate' | 'check' | 'init';
  exitCode: number;
  diagnostics: Diagnostic[];
  summary?: PlanSummary;
  outOfDate?: OutOfDateFile[];
  /** The command that brings out-of-date files up to date. */
  fixCommand?: string;
  stats?: { crds: number; versions: number; handlers: number };
  cache: 'hit' | 'miss' | 'off';
  timeMs: number;
}

export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

const SGR = { error: '31', warning: '33', note: '36', bold: '1', dim: '2', green: '32', red: '31' } as const;

export class Reporter {
  private progressShown = false;
  private readonly started = Date.now();

  constructor(
    private readonly streams: Streams,
    readonly format: OutputFormat,
    readonly quiet: boolean,
  ) {}

  private paint(stream: 'stdout' | 'stderr', code: keyof typeof SGR, text: string): string {
    return useColor(this.streams[stream], this.streams.env) ? `\x1b[${SGR[code]}m${text}\x1b[0m` : text;
  }

  /**
   * A one-line, self-overwriting status, only on a terminal, and only once a run has taken a
   * while or when the caller knows the next step will (`long`): generation is synchronous, so a
   * timer could not print during it.
   */
  progress(message: string, long = false): void {
    if (this.format !== 'text' || this.quiet || this.streams.stdout.isTTY !== true) return;
    if (!long && Date.now() - this.started < 250) return;
    this.streams.stdout.write(`\r\x1b[K${this.paint('stdout', 'dim', message)}`);
    this.progressShown = true;
  }

  private clearProgress(): void {
    if (this.progressShown) this.streams.stdout.write('\r\x1b[K');
    this.progressShown = false;
  }

  formatDiagnostic(d: Diagnostic): string {
    const line = formatDiagnostic(d);
    const at = `${d.file}:${d.line}:${d.col} `;
    return (
      this.paint('stderr', 'bold', at) +
      this.paint('stderr', d.severity, d.severity) +
      line.slice(at.length + d.severity.length)
    );
  }

  /** Prints a finished run. In JSON mode this is the run's only output. */
  finish(report: RunReport): void {
    this.clearProgress();
    if (this.format === 'json') {
      this.streams.stdout.write(JSON.stringify(jsonReport(report)) + '\n');
      return;
    }
    const diagnostics = sortDiagnostics(report.diagnostics).filter((d) => !this.quiet || d.severity !== 'note');
    for (const d of diagnostics) this.streams.stderr.write(this.formatDiagnostic(d) + '\n');
    if (report.outOfDate) this.printCheck(report);
    else if (report.summary) this.printSummary(report, report.summary);
    else if (report.exitCode !== 0) this.printErrorsLine(report);
  }

  private printErrorsLine(report: RunReport): void {
    const errors = report.diagnostics.filter((d) => d.severity === 'error').length;
    const what = report.command === 'init' ? 'nothing created' : 'nothing written';
    this.streams.stderr.write(`kopfgen: ${errors} error${errors === 1 ? '' : 's'}, ${what}\n`);
  }

  private printSummary(report: RunReport, s: PlanSummary): void {
    if (this.quiet) return;
    for (const file of s.removed) this.streams.stdout.write(`removed ${file}\n`);
    for (const { file, stub } of s.stubsAdded) {
      this.streams.stdout.write(`added stub ${stub.name} for handler ${stub.handlerId} (${stub.cause}) to ${file}\n`);
    }
    const parts = [
      `${s.written.length} written`,
      `${s.unchanged} unchanged`,
      `${s.removed.length} removed`,
      `${s.stubsAdded.length} stubs added`,
    ];
    const crds = report.stats ? `${report.stats.crds} CRDs, ${report.stats.handlers} handlers; ` : '';
    const cached = report.cache === 'hit' ? ', cached' : '';
    const line = `kopfgen: files ${parts.join(', ')} (${crds}${report.timeMs} ms${cached})`;
    this.streams.stdout.write(this.paint('stdout', 'green', line) + '\n');
  }

  private printCheck(report: RunReport): void {
    const files = report.outOfDate ?? [];
    if (files.length === 0) {
      if (!this.quiet && report.exitCode === 0) {
        this.streams.stdout.write(this.paint('stdout', 'green', `kopfgen: up to date (${report.timeMs} ms)`) + '\n');
      }
      if (report.exitCode !== 0) this.printErrorsLine(report);
      return;
    }
    if (!this.quiet) for (const f of files) this.streams.stdout.write(f.diff);
    const count = (c: Change): number => files.filter((f) => f.change === c).length;
    const detail = [`${count('create')} missing`, `${count('update')} changed`, `${count('remove')} extra`].join(', ');
    this.streams.stderr.write(
      this.paint(
        'stderr',
        'red',
        `kopfgen: ${files.length} file${files.length === 1 ? '' : 's'} out of date (${detail})`,
      ) + `; run \`${report.fixCommand ?? 'kopfgen generate'}\` to update\n`,
    );
    for (const f of files) this.streams.stderr.write(`  ${label(f.change)} ${f.path}\n`);
  }
}

function label(change: Change): string {
  return change === 'create'
    ? 'missing'
    : change === 'update'
      ? 'changed'
      : change === 'remove'
        ? 'extra  '
        : 'ok     ';
}

/** The stable JSON shape (documented in docs/reference/cli.md, "Output for people and tools"); `version` changes if it ever must break. */
export function jsonReport(r: RunReport): object {
  return {
    version: 1,
    command: r.command,
    ok: r.exitCode === 0,
    exitCode: r.exitCode,
    diagnostics: sortDiagnostics(r.diagnostics),
    summary: r.summary && {
      written: r.summary.written,
      unchanged: r.summary.unchanged,
      removed: r.summary.removed,
      stubsAdded: r.summary.stubsAdded.map(({ file, stub }) => ({
        file,
        name: stub.name,
        handlerId: stub.handlerId,
        cause: stub.cause,
      })),
    },
    outOfDate: r.outOfDate,
    fixCommand: r.outOfDate && r.outOfDate.length > 0 ? r.fixCommand : undefined,
    stats: r.stats,
    cache: r.cache,
    timeMs: r.timeMs,
  };
}
