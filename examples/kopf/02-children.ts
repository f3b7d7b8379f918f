/**
 * kopf's examples/02-children: the create handler makes a Pod the object's child (`ctx.adopt`: owner
 * reference, namespace; kopf's `kopf.adopt`) and creates it through the typed client. The Pod keeps its
 * `generateName`, so every object gets a Pod of its own name. Different from kopf: the CRD's `Children`
 * column types `status.create_fn.children` as a string, so the handler records the Pod's uid as one
 * string where kopf records a list of them (docs: "Printer columns over an open status").
 */
import { uses } from 'kopfgen/runtime';
import { builtins } from 'kopfgen/runtime/builtins';
import { KopfExampleCreateFn } from './generated/index.js';

uses(builtins.pods, ['create']);

KopfExampleCreateFn.onCreate(async (ctx) => {
  const field = typeof ctx.spec?.field === 'string' ? ctx.spec.field : 'default-value';
  const duration = typeof ctx.spec?.duration === 'string' ? ctx.spec.duration : '0';
  const pod = ctx.adopt(builtins.pods, {
    metadata: { generateName: `${ctx.name}-` },
    spec: {
      containers: [
        {
          name: 'the-only-one',
          image: 'busybox',
          command: ['sh', '-x', '-c'],
          args: [`echo "FIELD=$FIELD"\nsleep ${duration}\n`],
          env: [{ name: 'FIELD', value: field }],
        },
      ],
    },
  });
  const created = await ctx.client.create(builtins.pods, pod);
  ctx.logger.info(`created the pod ${String(created.metadata?.name)}`);
  return { children: String(created.metadata?.uid) };
});
