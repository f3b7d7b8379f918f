// Handlers for MyResource (myresources.example.com), scaffolded by kopfgen from crds/myresource.yaml.
// This file is yours: kopfgen never changes a line you write here. When the CRD names a new
// handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
// handler is gone are reported, never deleted. Import this module from your operator's entry
// point (or pass it to `kopfgen run`): loading it registers the handlers.
import type { HandlerContext } from "kopfgen/runtime";
import { requireImage, requireReplicas } from "../helpers.js";
import { MyResourceMyapp, MyResourceMyappPermanentError, MyResourceMyappTemporaryError, type MyResource, type MyResourceMyappStatus } from "../generated/example.com/v1/myresources.js";

/**
 * Handler `myapp`, on create. What it returns is merged into `status.myapp`.
 * Status fields: `phase`. Shown by the printer column `Status` (`.status.myapp.phase`).
 * To fail, throw {@link MyResourceMyappTemporaryError} (retried after `delay` seconds) or
 * {@link MyResourceMyappPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function myappOnCreate(ctx: HandlerContext<MyResource>): Promise<MyResourceMyappStatus | void> {
  const image = requireImage(ctx.body); // throws TemporaryError with { phase: "Pending", reason }
  const replicas = requireReplicas(ctx.body); // throws MyResourceMyappTemporaryError with { phase: "Pending", reason }
  ctx.logger.info('myapp: starting', { name: ctx.name, image, replicas });
  // The status is merged into status.myapp: `null` deletes the reason an earlier error left there.
  return { phase: "Starting", reason: null };
}
MyResourceMyapp.onCreate(myappOnCreate);

/**
 * Handler `myapp`, on update. What it returns is merged into `status.myapp`.
 * Status fields: `phase`. Shown by the printer column `Status` (`.status.myapp.phase`).
 * To fail, throw {@link MyResourceMyappTemporaryError} (retried after `delay` seconds) or
 * {@link MyResourceMyappPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function myappOnUpdate(ctx: HandlerContext<MyResource>): Promise<MyResourceMyappStatus | void> {
  // Same checks as on create: a changed spec or a restarted operator starts over.
  return myappOnCreate(ctx);
}
MyResourceMyapp.onUpdate(myappOnUpdate);

/**
 * Handler `myapp`, on resume. What it returns is merged into `status.myapp`.
 * Status fields: `phase`. Shown by the printer column `Status` (`.status.myapp.phase`).
 * To fail, throw {@link MyResourceMyappTemporaryError} (retried after `delay` seconds) or
 * {@link MyResourceMyappPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function myappOnResume(ctx: HandlerContext<MyResource>): Promise<MyResourceMyappStatus | void> {
  // Same checks as on create: a changed spec or a restarted operator starts over.
  return myappOnCreate(ctx);
}
MyResourceMyapp.onResume(myappOnResume);
