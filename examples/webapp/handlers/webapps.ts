// Handlers for WebApp (webapps.example.com), scaffolded by kopfgen from examples/webapp/webapp.yaml.
// This file is yours: kopfgen never changes a line you write here. When the CRD names a new
// handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
// handler is gone are reported, never deleted. Import this module from your operator's entry
// point (or pass it to `kopfgen run`): loading it registers the handlers.
//
// Besides the stubs below, a handler can run on a schedule, as one long-running task per object,
// on every raw watch event, or when an object it owns changes (`ctx.adopt` makes a child its own,
// `ctx.client` writes it), and any registration can take filters (labels, annotations,
// field/value, when). Timers, daemons and child handlers return the same status type as the stubs. For example:
//   WebAppDeploy.onTimer(async (ctx) => ({}), { interval: 60, idle: 30 }); // every 60 s per object
//   WebAppDeploy.onDaemon(async (ctx) => { while (!ctx.signal.aborted) { /* … */ } }, { cancellationTimeout: 10 });
//   WebAppDeploy.onEvent((ctx) => ctx.logger.info(`${ctx.type}`), { labels: { audited: 'yes' } });
//   WebAppDeploy.onChild(builtins.deployments, async (ctx) => ({})); // a Deployment it owns changed or went (ctx.child)
//   WebAppDeploy.onDelete(async (ctx) => {}, { optional: true }); // no finalizer on the objects
//   onStartup(async () => {}); onCleanup(async () => {}); // operator-wide, from kopfgen/runtime
import { ApiError, type ChildContext, type HandlerContext, type StatusPatch } from "kopfgen/runtime";
import { builtins, type Deployment } from "kopfgen/runtime/builtins";
import { WebAppDeploy, WebAppDeployPermanentError, WebAppDeployTemporaryError, type WebApp, type WebAppDeployStatus } from "../generated/example.com/v1/webapps.js";

// The three children of a WebApp, as this operator wants them. `ctx.adopt` makes each the WebApp's
// (a controller owner reference, its namespace, its name when none is given: all three are named
// after the WebApp), so deleting the WebApp deletes them (Kubernetes' garbage collector).

/** The Deployment running `spec.image`, `spec.replicas` times. */
function deployment(ctx: HandlerContext<WebApp>) {
  const labels = { app: ctx.name };
  return ctx.adopt(builtins.deployments, {
    metadata: { labels },
    spec: {
      replicas: ctx.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: "web",
              image: ctx.spec.image,
              // protocol: a key of the list for server-side apply (Kubernetes < 1.21 has no default for it there)
              ports: [{ containerPort: ctx.spec.port ?? 8080, protocol: "TCP" }],
              volumeMounts: [{ name: "content", mountPath: "/content" }],
            },
          ],
          volumes: [{ name: "content", configMap: { name: ctx.name } }],
        },
      },
    },
  });
}

/** Server-side apply of each child: the fields listed are this operator's (field manager `kopfgen`). */
async function applyDeployment(ctx: HandlerContext<WebApp>, force = false): Promise<void> {
  await ctx.client.apply(builtins.deployments, deployment(ctx), { force });
}

async function applyService(ctx: HandlerContext<WebApp>): Promise<void> {
  await ctx.client.apply(
    builtins.services,
    ctx.adopt(builtins.services, {
      spec: { selector: { app: ctx.name }, ports: [{ port: 80, targetPort: ctx.spec.port ?? 8080, protocol: "TCP" }] },
    }),
  );
}

async function applyConfigMap(ctx: HandlerContext<WebApp>): Promise<void> {
  await ctx.client.apply(builtins.configMaps, ctx.adopt(builtins.configMaps, { data: { greeting: ctx.spec.greeting ?? "hello" } }));
}

/**
 * Handler `deploy`, on create. What it returns is merged into `status.deploy`.
 * Status fields: `message`, `phase`, `readyReplicas`. Shown by the printer columns `Phase` (`.status.deploy.phase`), `Ready` (`.status.deploy.readyReplicas`).
 * To fail, throw {@link WebAppDeployTemporaryError} (retried after `delay` seconds) or
 * {@link WebAppDeployPermanentError} (not retried); the `status` you give them is merged the same way.
 */
// StatusPatch: `message: null` clears the message an earlier attempt left (a merge patch deletes a null key).
export async function deployOnCreate(ctx: HandlerContext<WebApp>): Promise<StatusPatch<WebAppDeployStatus> | void> {
  if (ctx.spec.image.trim() === "") throw new WebAppDeployPermanentError("spec.image is empty", { status: { phase: "Deploying", message: "spec.image is empty" } });
  try {
    await applyConfigMap(ctx);
    await applyDeployment(ctx, true);
    await applyService(ctx);
  } catch (error) {
    // A refusal of the API server (an invalid child, a quota): shown in the status, tried again in 30 s.
    if (!(error instanceof ApiError)) throw error;
    throw new WebAppDeployTemporaryError(error.message, { delay: 30, status: { phase: "Deploying", message: error.message } });
  }
  // The Deployment's readiness arrives through the child handler below.
  return { phase: "Deploying", message: null };
}
WebAppDeploy.onCreate(deployOnCreate);

/**
 * Handler `deploy`, on update. What it returns is merged into `status.deploy`.
 * Status fields: `message`, `phase`, `readyReplicas`. Shown by the printer columns `Phase` (`.status.deploy.phase`), `Ready` (`.status.deploy.readyReplicas`).
 * To fail, throw {@link WebAppDeployTemporaryError} (retried after `delay` seconds) or
 * {@link WebAppDeployPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function deployOnUpdate(ctx: HandlerContext<WebApp>): Promise<StatusPatch<WebAppDeployStatus> | void> {
  // Applying the same children again is the update: only what changed changes.
  return deployOnCreate(ctx);
}
WebAppDeploy.onUpdate(deployOnUpdate);

/**
 * Handler `deploy`, on resume. What it returns is merged into `status.deploy`.
 * Status fields: `message`, `phase`, `readyReplicas`. Shown by the printer columns `Phase` (`.status.deploy.phase`), `Ready` (`.status.deploy.readyReplicas`).
 * To fail, throw {@link WebAppDeployTemporaryError} (retried after `delay` seconds) or
 * {@link WebAppDeployPermanentError} (not retried); the `status` you give them is merged the same way.
 */
export async function deployOnResume(ctx: HandlerContext<WebApp>): Promise<StatusPatch<WebAppDeployStatus> | void> {
  // Same as on create: a restarted operator makes sure the children are there.
  return deployOnCreate(ctx);
}
WebAppDeploy.onResume(deployOnResume);

/** Whether the Deployment runs what the WebApp asks for (someone may have edited it). */
function drifted(ctx: HandlerContext<WebApp>, child: Deployment): boolean {
  const container = child.spec?.template.spec?.containers[0];
  return child.spec?.replicas !== (ctx.spec.replicas ?? 1) || container?.image !== ctx.spec.image;
}

/**
 * The Deployment changed or went away (the child handler, woken by its owner reference): a deleted or
 * edited Deployment is applied again (force: the fields someone else took are taken back), and its
 * readiness is mirrored into `status.deploy`, typed as every other `deploy` status.
 */
export async function deployOnDeployment(
  ctx: ChildContext<WebApp, WebApp, Deployment>,
): Promise<StatusPatch<WebAppDeployStatus>> {
  if (!ctx.child) {
    await applyDeployment(ctx, true);
    ctx.logger.info(`deployment ${ctx.childName} was deleted: re-created`);
    return { phase: "Repairing", readyReplicas: 0, message: `deployment ${ctx.childName} was deleted: re-created` };
  }
  if (drifted(ctx, ctx.child)) {
    await applyDeployment(ctx, true);
    return { phase: "Repairing", message: `deployment ${ctx.childName} was edited: applied again` };
  }
  const ready = ctx.child.status?.readyReplicas ?? 0;
  const phase = ready >= (ctx.spec.replicas ?? 1) ? "Ready" : "Deploying";
  return { phase, readyReplicas: ready, message: null };
}
WebAppDeploy.onChild(builtins.deployments, deployOnDeployment);

// A deleted Service or ConfigMap is made again; their changes need nothing else.
WebAppDeploy.onChild(builtins.services, async (ctx) => {
  if (!ctx.child) await applyService(ctx);
});
WebAppDeploy.onChild(builtins.configMaps, async (ctx) => {
  if (!ctx.child) await applyConfigMap(ctx);
});

/** On delete: nothing to clean up by hand; the garbage collector deletes the children with their owner. */
export async function deployOnDelete(ctx: HandlerContext<WebApp>): Promise<void> {
  ctx.logger.info("deleting: its Deployment, Service and ConfigMap go with it (owner references)");
}
WebAppDeploy.onDelete(deployOnDelete);
