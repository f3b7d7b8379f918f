/**
 * kopf's examples/06-peering: kopf's peering keeps two operators from handling one object at once.
 * kopfgen elects a leader on a Lease instead (`--leader-election`): this module is the example's
 * handler, run with leader election on.
 */
import { defineHandler } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'create_fn_peering').onCreate(() => undefined);
