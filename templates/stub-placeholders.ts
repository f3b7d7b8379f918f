/**
 * Stand-ins for the names a stub template is filled with, so `stub-file.ts` and
 * `stub-handler.ts` type-check exactly as written (they are compiled with the project).
 * `src/stubs/templates.ts` replaces each `Kg…`/`kg…` placeholder with the real name.
 */
import { PermanentError, TemporaryError, defineHandler, defineResource, handlerStatus } from '../src/runtime/index.js';

export interface KgResource {
  apiVersion: 'example.com/v1';
  kind: 'Kg';
  spec?: Record<string, unknown>;
  status?: { kg_id?: KgStatus };
}

export interface KgStatus {
  phase?: string;
  readonly [handlerStatus]?: 'example.com/Kg/kg_id';
}

export class KgTemporaryError extends TemporaryError<KgStatus> {}
export class KgPermanentError extends PermanentError<KgStatus> {}

const KgDescriptor = defineResource<KgResource>({
  group: 'example.com',
  version: 'v1',
  plural: 'kgs',
  kind: 'Kg',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});

/** `kgRegister` stands for `onCreate`, `onUpdate`, `onResume` or `onDelete`. */
export const KgDefinition = { kgRegister: defineHandler<KgResource, KgStatus>(KgDescriptor, 'kg_id').onCreate };

/** Stands for the stub's honest result: `{ phase: "NotImplemented" }` when the status has a free-text phase, else nothing. */
export const kgResult: KgStatus | undefined = undefined;
