/* The head of a handlers file that kopfgen scaffolds: the text of the region below, with
   `KgKind`, `KgCrd`, `KgSource` and `KgDefinition` (the first handler's constant) filled in. Imports and stubs (stub-handler.ts) follow it. */
// #region head
// Handlers for KgKind (KgCrd), scaffolded by kopfgen from KgSource.
// This file is yours: kopfgen never changes a line you write here. When the CRD names a new
// handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
// handler is gone are reported, never deleted. Import this module from your operator's entry
// point (or pass it to `kopfgen run`): loading it registers the handlers.
//
// Besides the stubs below, a handler can run on a schedule, as one long-running task per object,
// on every raw watch event, or when an object it owns changes (`ctx.adopt` makes a child its own,
// `ctx.client` writes it), and any registration can take filters (labels, annotations,
// field/value, when). Timers, daemons and child handlers return the same status type as the stubs. For example:
//   KgDefinition.onTimer(async (ctx) => ({}), { interval: 60, idle: 30 }); // every 60 s per object
//   KgDefinition.onDaemon(async (ctx) => { while (!ctx.signal.aborted) { /* … */ } }, { cancellationTimeout: 10 });
//   KgDefinition.onEvent((ctx) => ctx.logger.info(`${ctx.type}`), { labels: { audited: 'yes' } });
//   KgDefinition.onChild(builtins.deployments, async (ctx) => ({})); // a Deployment it owns changed or went (ctx.child)
//   KgDefinition.onDelete(async (ctx) => {}, { optional: true }); // no finalizer on the objects
//   onStartup(async () => {}); onCleanup(async () => {}); // operator-wide, from kopfgen/runtime
// #endregion
export {};
