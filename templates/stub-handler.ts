/* One handler stub: the text of the region below, with the `Kg…`/`kg…` placeholders filled in
   (see stub-placeholders.ts). It compiles as written, so every generated stub does too. */
import type { HandlerContext } from '../src/runtime/index.js';
import { KgDefinition, kgResult, type KgPermanentError, type KgResource, type KgStatus, type KgTemporaryError } from './stub-placeholders.js';

// #region stub
/**
 * Handler `kg_id`, on kg_cause. What it returns is merged into `status.kg_id`.
 * kg_feeds
 * To fail, throw {@link KgTemporaryError} (retried after `delay` seconds) or
 * {@link KgPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function kgFunction(ctx: HandlerContext<KgResource>): Promise<KgStatus | void> {
  // The runtime's handler logger already prefixes the object and the handler id (`ns/name kg_id: …`).
  ctx.logger.info('kg_cause handler not implemented yet');
  return kgResult;
}
KgDefinition.kgRegister(kgFunction);
// #endregion
