/** A worker thread serving one Partition: `load` then `emit` requests, answered in order. */
import { parentPort } from 'node:worker_threads';
import { Partition, type EmitRequest } from './share.js';
import type { SourceText } from '../api.js';

const partition = new Partition();

parentPort!.on('message', (message: { type: 'load'; sources: SourceText[] } | { type: 'emit'; request: EmitRequest }) => {
  try {
    const reply = message.type === 'load' ? partition.load(message.sources) : partition.emit(message.request);
    parentPort!.postMessage({ ok: true, reply });
  } catch (error) {
    parentPort!.postMessage({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
