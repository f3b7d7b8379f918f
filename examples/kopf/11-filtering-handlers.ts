/**
 * kopf's examples/11-filtering-handlers: handlers filtered by labels, annotations (a value, present,
 * absent, a predicate of the value and the object), `when`, and a field's value or presence. kopf's
 * `field=` with `old=`/`new=` on an update handler is `onField` with `old`/`new`.
 */
import { ABSENT, defineHandler, PRESENT } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

const handler = (id: string) => defineHandler<KopfExample, never>(KopfExampleDescriptor, id);
type Spec = { spec: KopfExample['spec'] };
const sayYes = (value: string | undefined, { spec }: Spec) => value === 'somevalue' && spec?.field !== undefined;
const sayNo = (value: string | undefined, { spec }: Spec) =>
  value === 'somevalue' && spec?.field === 'not-this-value-for-sure';

handler('create_with_labels_matching').onCreate((ctx) => ctx.logger.info('Label is matching.'), {
  labels: { somelabel: 'somevalue' },
});
handler('create_with_labels_present').onCreate((ctx) => ctx.logger.info('Label is present.'), {
  labels: { somelabel: PRESENT },
});
handler('create_with_labels_absent').onCreate((ctx) => ctx.logger.info('Label is absent.'), {
  labels: { nonexistent: ABSENT },
});
handler('create_with_labels_callback_matching').onCreate((ctx) => ctx.logger.info('Label callback matching.'), {
  labels: { somelabel: sayYes },
});
handler('create_with_annotations_matching').onCreate((ctx) => ctx.logger.info('Annotation is matching.'), {
  annotations: { someannotation: 'somevalue' },
});
handler('create_with_annotations_present').onCreate((ctx) => ctx.logger.info('Annotation is present.'), {
  annotations: { someannotation: PRESENT },
});
handler('create_with_annotations_absent').onCreate((ctx) => ctx.logger.info('Annotation is absent.'), {
  annotations: { nonexistent: ABSENT },
});
handler('create_with_annotations_callback_matching').onCreate(
  (ctx) => ctx.logger.info('Annotation callback mismatch.'),
  { annotations: { someannotation: sayNo } },
);
handler('create_with_filter_satisfied').onCreate((ctx) => ctx.logger.info('Filter satisfied.'), { when: () => true });
handler('create_with_filter_not_satisfied').onCreate((ctx) => ctx.logger.info('Filter not satisfied.'), {
  when: () => false,
});
handler('create_with_field_value_satisfied').onCreate((ctx) => ctx.logger.info('Field value is satisfied.'), {
  field: 'spec.field',
  value: 'value',
});
handler('create_with_field_value_not_satisfied').onCreate(
  (ctx) => ctx.logger.info('Field value is not satisfied.'),
  { field: 'spec.field', value: 'something-else' },
);
handler('create_with_field_presence_satisfied').onCreate(
  (ctx) => ctx.logger.info('Field presence is satisfied.'),
  { field: 'spec.field', value: PRESENT },
);
handler('create_with_field_presence_not_satisfied').onCreate(
  (ctx) => ctx.logger.info('Field presence is not satisfied.'),
  { field: 'spec.inexistent', value: PRESENT },
);
handler('update_with_field_change_satisfied').onField('spec.field', (ctx) => ctx.logger.info('Field change is satisfied.'), {
  old: 'value',
  new: 'changed',
});
handler('daemon_with_field').onDaemon(
  async (ctx) => {
    while (!ctx.signal.aborted) {
      ctx.logger.info('Field daemon is satisfied.');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  },
  { field: 'spec.field', value: 'value', cancellationTimeout: 2 },
);
