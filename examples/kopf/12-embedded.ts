/**
 * kopf's examples/12-embedded: the operator runs inside another program, which starts it, waits until it
 * is ready, does its own work (here: creates and deletes three objects, a second apart), then stops it
 * and exits. kopf runs `kopf.operator(ready_flag=…, stop_flag=…, memo=…)` in a thread of its own;
 * kopfgen's operator is an object of the same process: `new Operator({ memo })`, `await operator.ready`,
 * `await operator.stop()`, on the one event loop. The handlers print from templates the program put in
 * the operator's memo (kopf's `kopf.Memo(create_tpl=…, delete_tpl=…)`), which every object's memo copies.
 *
 * Run as a program, not through `kopfgen run`: `node dist/examples/kopf/12-embedded.js`. The objects go to
 * the namespace `EXAMPLE_NAMESPACE` (default `default`, as in kopf), which is also the one the operator
 * watches, so it handles only its own.
 */
import { defineHandler, Operator, operatorClient, uses } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

declare module 'kopfgen/runtime' {
  interface Memo {
    /** `{name}` is replaced by the object's name (kopf formats its templates with the handler's kwargs). */
    createTpl?: string;
    deleteTpl?: string;
  }
}

const format = (template: string | undefined, name: string) => (template ?? '').replaceAll('{name}', name);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'create_fn').onCreate(({ memo, name }) => {
  console.log(format(memo.createTpl, name));
});

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'delete_fn').onDelete(({ memo, name }) => {
  console.log(format(memo.deleteTpl, name));
});

// The program's own writes go through the operator's client, which writes only what is declared.
uses(KopfExampleDescriptor, ['create', 'delete']);

const namespace = process.env.EXAMPLE_NAMESPACE ?? 'default';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createObject(step: number): Promise<void> {
  const object = { metadata: { name: `kopf-example-${step}` } };
  try {
    await operatorClient().create(KopfExampleDescriptor, object, { namespace });
  } catch (error) {
    // kopf's example ignores a 409: the object is there already
    if ((error as { status?: number }).status !== 409) throw error;
  }
}

async function deleteObject(step: number): Promise<void> {
  // false when there is none: kopf's example ignores a 404
  await operatorClient().delete(KopfExampleDescriptor, `kopf-example-${step}`, { namespace });
}

export async function main(steps = 3): Promise<void> {
  console.log('Starting the main app.');
  const operator = new Operator({
    namespace,
    leaderElection: false,
    memo: { createTpl: 'Hello, {name}!', deleteTpl: 'Good bye, {name}!' },
  });
  await operator.start();
  // A start that cannot go on (a watch that never lists) must not leave the program waiting forever.
  const ready = await Promise.race([operator.ready.then(() => undefined), operator.failed]);
  if (ready) {
    await operator.stop();
    throw ready;
  }

  // The operator is active: the program's own work.
  for (let step = 0; step < steps; step++) {
    console.log(`Do the main app activity here. Step ${step + 1}/${steps}.`);
    await createObject(step);
    await sleep(1000);
    await deleteObject(step);
    await sleep(1000);
  }

  // Stops the operator gracefully: running handlers finish and their patches are written.
  console.log('Exiting the main app.');
  await operator.stop();
}

await main();
