// Handlers for Widget (widgets.example.com), scaffolded by kopfgen from examples/widgets/widgets.yaml.
// This file is yours: kopfgen never changes a line you write here. When the CRD names a new
// handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
// handler is gone are reported, never deleted. Import this module from your operator's entry
// point (or pass it to `kopfgen run`): loading it registers the handlers.
//
// Besides the stubs below, a handler can run on a schedule, as one long-running task per object,
// or on every raw watch event, and any registration can take filters (labels, annotations,
// field/value, when). Timers and daemons return the same status type as the stubs. For example:
//   WidgetSizer.onTimer(async (ctx) => ({}), { interval: 60, idle: 30 }); // every 60 s per object
//   WidgetSizer.onDaemon(async (ctx) => { while (!ctx.signal.aborted) { /* … */ } }, { cancellationTimeout: 10 });
//   WidgetSizer.onEvent((ctx) => ctx.logger.info(`${ctx.type}`), { labels: { audited: 'yes' } });
//   WidgetSizer.onDelete(async (ctx) => {}, { optional: true }); // no finalizer on the objects
//   onStartup(async () => {}); onCleanup(async () => {}); // operator-wide, from kopfgen/runtime
import { AdmissionError, type HandlerContext } from "kopfgen/runtime";
import { WidgetSizer, WidgetSizerPermanentError, WidgetSizerTemporaryError, type Widget, type WidgetSizerStatus } from "../generated/example.com/v1/widgets.js";

/**
 * Handler `sizer`, on create. What it returns is merged into `status.sizer`.
 * Status fields: `phase`. Shown by the printer column `Sizer` (`.status.sizer.phase`).
 * To fail, throw {@link WidgetSizerTemporaryError} (retried after `delay` seconds) or
 * {@link WidgetSizerPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function sizerOnCreate(ctx: HandlerContext<Widget>): Promise<WidgetSizerStatus | void> {
  if (ctx.spec.size > 100) throw new WidgetSizerPermanentError('too big to make', { status: { phase: 'Refused' } });
  if (ctx.spec.color === undefined) throw new WidgetSizerTemporaryError('no colour yet', { delay: 5 });
  return { phase: 'Made' };
}
WidgetSizer.onCreate(sizerOnCreate);

/**
 * Handler `sizer`, on update.
 */
export async function sizerOnUpdate(ctx: HandlerContext<Widget>): Promise<WidgetSizerStatus | void> {
  return { phase: ctx.spec.size > 50 ? 'Large' : 'Made' };
}
WidgetSizer.onUpdate(sizerOnUpdate);

/**
 * Handler `sizer`, on resume.
 */
export async function sizerOnResume(ctx: HandlerContext<Widget>): Promise<WidgetSizerStatus | void> {
  return sizerOnUpdate(ctx);
}
WidgetSizer.onResume(sizerOnResume);

/** The largest size the factory makes: a bigger widget is refused before it is stored. */
export const MAX_SIZE = 100;

/**
 * Validating webhook: `kubectl apply` of a widget above MAX_SIZE prints this message and stores
 * nothing; a shrinking update is allowed with a warning.
 */
WidgetSizer.onValidate((ctx) => {
  if (ctx.spec.size > MAX_SIZE) throw new AdmissionError(`size ${ctx.spec.size} is above ${MAX_SIZE}`);
  if (ctx.operation === 'UPDATE' && ctx.spec.size < ctx.old.spec.size)
    return [`size shrinks from ${ctx.old.spec.size} to ${ctx.spec.size}`];
});

/** Mutating webhook: a widget without a colour is grey (the stored object has it). */
WidgetSizer.onMutate((ctx) => {
  ctx.object.spec.color ??= 'grey';
});
