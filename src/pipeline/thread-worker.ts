/** A worker thread serving one Share: `load` then `emit` requests, answered in order. */
import { parentPort } from 'node:worker_threads';
import type { SourceText } from '../api.js';
import { Share, type EmitRequest } from './share.js';

const share = new Share();
const port = parentPort;
if (!port) throw new Error('kopfgen: thread-worker.js runs only as a worker thread');

port.on('message', (message: { type: 'load'; sources: SourceText[] } | { type: 'emit'; request: EmitRequest }) => {
  try {
    const reply = message.type === 'load' ? share.load(message.sources) : share.emit(message.request);
    port.postMessage({ ok: true, reply });
  } catch (error) {
    port.postMessage({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
