/**
 * The handler attempts running in this process, across resources (the operator's one registry): what a
 * drain that runs out of time names as abandoned, what the lease's journal carries for the next leader,
 * and what a crash names. A crash raised by a handler (process.exit, an uncaught error or rejection in
 * one of its callbacks) is attributed to its attempt when only that one runs, and, when attempts run in
 * `precise` mode, through an AsyncLocalStorage context each attempt's code runs in (Node runs `exit`
 * listeners in the context of the code that exits). Precise mode costs every promise of the process an
 * async hook (about 5-9% of the operator's CPU), so the operator asks for it only where a crash can be
 * counted no other way: without leader election, and in a term that took over from a crashed leader.
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
  private storage: AsyncLocalStorage<AttemptInfo> | undefined;

  /** Attempts begun from now on run in their own async context (see above); stays on once set. */
  precise(): void {
    this.storage ??= new AsyncLocalStorage<AttemptInfo>();
  }

  begin(info: AttemptInfo, onCrash?: CrashWrite): RunningAttempt {
    this.running.set(info, onCrash);
    const storage = this.storage;
    return {
      info,
      run: (fn) => (storage ? storage.run(info, fn) : fn()),
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

  /**
   * The attempt whose code runs now: its async context's (precise mode), else, when `guess`, the only
   * attempt under way; undefined when that cannot be told.
   */
  current(guess = true): AttemptInfo | undefined {
    const info = this.storage?.getStore();
    if (info && this.running.has(info)) return info;
    return guess && this.running.size === 1 ? this.running.keys().next().value : undefined;
  }
}
