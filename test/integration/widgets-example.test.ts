/**
 * The webhooks example (`examples/widgets`: a CRD with v1 and v1alpha1, validate, mutate, conversion):
 * its generated code is what `kopfgen generate` writes today, its two stub files are merge fixed
 * points, it type-checks under strict, and its conversion passes the round-trip property
 * (`from → hub → from`) over objects sampled from the v1alpha1 schema, while a conversion that drops
 * a field fails it with the field's path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { roundTrip } from '../../src/testing/index.js';
import { filesUnder, typecheck } from '../helpers/golden-support.js';
import { formatErrors } from '../helpers/handler-typecheck.js';
import { assertExampleCurrent, needsBuild, withTsx } from '../helpers/example-support.js';

const EXAMPLE = resolve(process.cwd(), 'examples/widgets');
const CRD = 'examples/widgets/widgets.yaml';

test('the generated code is current, and the filled-in stub files are merge fixed points', () => {
  // What `kopfgen generate examples/widgets/widgets.yaml --out examples/widgets/generated --stubs examples/widgets/handlers` computes.
  assert.deepEqual(assertExampleCurrent('examples/widgets', CRD), ['widgets.conversion.ts', 'widgets.ts']);
});

test('the example type-checks under strict', () => {
  const files = filesUnder(EXAMPLE).filter((p) => p.endsWith('.ts'));
  assert.deepEqual(formatErrors(typecheck(files)), []);
});

test(
  'its conversion passes the round trip; one that drops a field fails it, naming the field',
  { skip: needsBuild },
  async () => {
    await withTsx(async (load) => {
      const example = (await load(join(EXAMPLE, 'operator.ts'))) as typeof import('../../examples/widgets/operator.js');
      const { WidgetSchemaText } = (await load(
        join(EXAMPLE, 'generated/example.com/widgets.schemas.ts'),
      )) as typeof import('../../examples/widgets/generated/example.com/widgets.schemas.js');
      const functions = { v1alpha1: { toHub: example.widgetV1alpha1ToHub, fromHub: example.widgetV1alpha1FromHub } };
      assert.deepEqual(roundTrip(example.WidgetConversion, functions, WidgetSchemaText, { count: 200 }), []);

      const lossy = {
        v1alpha1: {
          toHub: example.widgetV1alpha1ToHub,
          // Forgets the colour: the rest (status included) is carried over.
          fromHub: (hub: Parameters<typeof example.widgetV1alpha1FromHub>[0]) => ({
            spec: { width: hub.spec.size },
            ...(hub.status === undefined ? {} : { status: hub.status }),
          }),
        },
      };
      const failures = roundTrip(example.WidgetConversion, lossy, WidgetSchemaText, { count: 50 });
      assert.ok(failures.length > 0 && failures.length < 50, 'objects with a colour fail, those without pass');
      assert.ok(failures.every((f) => f.version === 'v1alpha1' && f.where === 'spec.colour'));
    });
  },
);
