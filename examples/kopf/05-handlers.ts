/**
 * kopf's examples/05-handlers: several handlers per cause (resume, create, update, delete) and a field
 * handler, run in the order registered, each once per cause.
 */
import { defineHandler } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

const handler = (id: string) => defineHandler<KopfExample, never>(KopfExampleDescriptor, id);

handler('resume_fn_1').onResume((ctx) => ctx.logger.info('RESUMED 1st'));
handler('create_fn_1').onCreate((ctx) => ctx.logger.info('CREATED 1st'));
handler('resume_fn_2').onResume((ctx) => ctx.logger.info('RESUMED 2nd'));
handler('create_fn_2').onCreate((ctx) => ctx.logger.info('CREATED 2nd'));
handler('update_fn').onUpdate((ctx) => ctx.logger.info(`UPDATED: ${JSON.stringify(ctx.diff)}`));
handler('delete_fn_1').onDelete((ctx) => ctx.logger.info('DELETED 1st'));
handler('delete_fn_2').onDelete((ctx) => ctx.logger.info('DELETED 2nd'));
handler('field_fn').onField('spec.field', (ctx) =>
  ctx.logger.info(`FIELD CHANGED: ${JSON.stringify(ctx.old)} -> ${JSON.stringify(ctx.new)}`),
);
