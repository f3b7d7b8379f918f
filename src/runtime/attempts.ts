/**
 * The handler attempts running in this process, across resources (the operator's one registry): what a
 * drain that runs out of time names as abandoned, what the lease's journal carries for the next leader,
 * and what a crash names. Each attempt's code runs inside an AsyncLocalStorage context, so a crash
 * raised by a handler (process.exit, an uncaught error or rejection in one of its callbacks) is
 * attributed to that attempt: Node runs `exit` listeners in the context of the code that exits.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Cause } from './api/registry.js';

export interface AttemptInfo {
  /** `<plural>.<group>/<version>` (kube/client.ts `describe`). */
  resource: string;
  namespace: string | undefined;
  name: string;
  uid: string;
  handler: string;
  /** The progress record's key (decide.ts `handlerKey`). */
  key: string;
  cause: Cause;
  /** 1 for the first attempt of the handler for this cause. */
  attempt: number;
  started: Date;
  /** A timer's or daemon's call: no progress record to count it in. */
  spawned: boolean;
}

/** A request that records an attempt as failed, made synchronously from the exit listener (kube/client.ts `requestSync`). */
export interface SyncWrite {
  method: string;
  path: string;
  body: unknown;
  contentType: string;
}

/** Builds the attempt's crash record (`reason`: how the process ends), or undefined when there is nothing to write. */
export type CrashWrite = (reason: string) => SyncWrite[] | undefined;

export interface RunningAttempt {
  readonly info: AttemptInfo;
  /** Runs `fn` as this attempt's code (crashes inside are attributed to it). */
  run<T>(fn: () => T): T;
  end(): void;
}

/** `handler myapp (create, attempt 2) of myresources.example.com/v1 ns/a`. */
export function describeAttempt(info: AttemptInfo): string {
  const object = info.namespace ? `${info.namespace}/${info.name}` : info.name;
  const kind = info.spawned ? info.cause : `${info.cause}, attempt ${info.attempt}`;
  return `handler ${info.handler} (${kind}) of ${info.resource} ${object}`;
}

export class Attempts {
  private readonly running = new Map<AttemptInfo, CrashWrite | undefined>();
  private readonly storage = new AsyncLocalStorage<AttemptInfo>();

  begin(info: AttemptInfo, onCrash?: CrashWrite): RunningAttempt {
    this.running.set(info, onCrash);
    return {
      info,
      run: (fn) => this.storage.run(info, fn),
      end: () => void this.running.delete(info),
    };
  }

  /** The write recording `info` as failed by a crash, if the attempt is still under way and has one. */
  crashWrite(info: AttemptInfo, reason: string): SyncWrite[] | undefined {
    return this.running.get(info)?.(reason);
  }

  /** The attempts under way, oldest first. */
  list(): AttemptInfo[] {
    return [...this.running.keys()].sort((a, b) => a.started.getTime() - b.started.getTime());
  }

  /** The attempt whose code runs now, if any (its AsyncLocalStorage context). */
  current(): AttemptInfo | undefined {
    const info = this.storage.getStore();
    return info && this.running.has(info) ? info : undefined;
  }
}
