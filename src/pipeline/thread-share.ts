/**
 * A Share behind a message port: the main thread's own share (same object, called after a
 * yield so the workers' requests are posted first) or a worker thread's.
 */
import { Worker } from 'node:worker_threads';
import type { SourceText } from '../api.js';
import type { CrdStageOutput } from './crd-stage.js';
import type { FileSummary } from './file-stage.js';
import { Share, type EmitRequest } from './share.js';

export interface AsyncShare {
  load(sources: SourceText[]): Promise<FileSummary[]>;
  emit(request: EmitRequest): Promise<CrdStageOutput>;
  close(): void;
}

export function localShare(): AsyncShare {
  const share = new Share();
  return {
    load: async (sources) => {
      await Promise.resolve();
      return share.load(sources);
    },
    emit: async (request) => {
      await Promise.resolve();
      return share.emit(request);
    },
    close: () => undefined,
  };
}

export function workerShare(): AsyncShare {
  const worker = new Worker(new URL('./thread-worker.js', import.meta.url));
  const pending: { resolve: (v: never) => void; reject: (e: Error) => void }[] = [];
  worker.on('message', (m: { ok: boolean; reply?: never; error?: string }) => {
    const p = pending.shift();
    if (!p) return;
    if (m.ok) p.resolve(m.reply as never);
    else p.reject(new Error(`kopfgen worker failed: ${m.error}`));
  });
  worker.on('error', (e) => pending.splice(0).forEach((p) => p.reject(e)));
  // A worker that stops without an 'error' (process.exit, or killed) must fail what it owed, not hang the run.
  worker.on('exit', (code) => {
    const error = new Error(`kopfgen worker stopped (exit code ${code}) before answering`);
    pending.splice(0).forEach((p) => p.reject(error));
  });
  const call = <T>(message: unknown) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ resolve: resolve as (v: never) => void, reject });
      worker.postMessage(message);
    });
  return {
    load: (sources) => call<FileSummary[]>({ type: 'load', sources }),
    emit: (request) => call<CrdStageOutput>({ type: 'emit', request }),
    close: () => void worker.terminate(),
  };
}
