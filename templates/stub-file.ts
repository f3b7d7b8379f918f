/* The head of a handlers file that kopfgen scaffolds: the text of the region below, with
   `KgKind`, `KgCrd` and `KgSource` filled in. Imports and stubs (stub-handler.ts) follow it. */
// #region head
// Handlers for KgKind (KgCrd), scaffolded by kopfgen from KgSource.
// This file is yours: kopfgen never changes a line you write here. When the CRD names a new
// handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
// handler is gone are reported, never deleted. Import this module from your operator's entry
// point (or pass it to `kopfgen run`): loading it registers the handlers.
// #endregion
export {};
