/**
 * kopf's examples/17-admission: validating and mutating admission callbacks on KopfExample. kopf's
 * startup hook choosing a server (`WebhookAutoServer`, tunnels, `settings.admission.managed`) is
 * `kopfgen run`'s flags here: `--webhook-port`, `--webhook-url` (a local API server) or
 * `--webhook-service` (a cluster), `--webhook-name` for the configurations the operator writes, and
 * `--webhook-cleanup` to withdraw them on a clean stop, as kopf does on exit (docs/topics/webhooks.md).
 * `authhook` reads the request's `headers` and the caller's client certificate, `sslpeer` (present when
 * the server asks for one: `--webhook-client-ca`).
 * kopf's `subresource='*'` is two registrations of one callback: the object, and its `status`.
 */
import { AdmissionError, defineHandler, type AdmissionContext } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

const handler = (id: string) => defineHandler<KopfExample, never>(KopfExampleDescriptor, id);

handler('authhook').onValidate(({ headers, sslpeer, warnings }) => {
  warnings.push(`Accessing as user-agent: ${headers['user-agent'] ?? '(unidentified)'}`);
  if (!sslpeer) warnings.push('SSL peer is not identified.');
  else if (typeof sslpeer.subject.CN === 'string') warnings.push(`SSL peer is ${sslpeer.subject.CN}.`);
  else warnings.push("SSL peer's common name is absent.");
});

handler('validate1').onValidate((ctx) => {
  if (!ctx.dryRun && ctx.spec?.field === 'wrong') throw new AdmissionError("Meh! I don't like it. Change the field.");
});

handler('validate2').onValidate(
  () => {
    throw new AdmissionError("I'm too lazy anyway. Go away!", { code: 555 });
  },
  { field: 'spec.field', value: 'not-allowed' },
);

function validateSubresources(ctx: AdmissionContext<KopfExample>): void {
  const field = ctx.spec?.field;
  const statusField = ctx.body.status?.field;
  if (ctx.subresource === 'status' && statusField !== field)
    throw new AdmissionError('status.field MUST be equal to spec.field!');
  if (ctx.subresource === undefined && statusField !== field)
    ctx.warnings.push(
      `Also update status.field to match spec.field: ${JSON.stringify(field)} != ${JSON.stringify(statusField)}`,
    );
}
handler('validate_subresources').onValidate(validateSubresources);
handler('validate_subresources').onValidate(validateSubresources, { subresource: 'status' });

handler('mutate1').onMutate(
  (ctx) => {
    ctx.object.spec = { ...ctx.object.spec, injected: 123 };
  },
  { labels: { somelabel: 'somevalue' } },
);
