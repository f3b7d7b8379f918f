/**
 * An operator that manages other resources: `npx kopfgen run examples/webapp/operator.ts` (after
 * `kubectl apply -f examples/webapp/webapp.yaml`). Loading this module registers the `deploy`
 * handler: on create, update and resume it applies a Deployment, a Service and a ConfigMap owned by
 * the WebApp (`ctx.client.apply`, `ctx.adopt`); its child handlers (`onChild`) re-create a deleted
 * child and mirror the Deployment's readiness into `status.deploy`. `kopfgen manifests` grants the
 * three owned kinds' verbs from those declarations.
 *
 *   generated/   kopfgen generate examples/webapp/webapp.yaml --out examples/webapp/generated
 *                --stubs examples/webapp/handlers   (never edit; a test keeps it current)
 */
export {
  deployOnCreate,
  deployOnDelete,
  deployOnDeployment,
  deployOnResume,
  deployOnUpdate,
} from './handlers/webapps.js';
export { WebAppDeploy, WebAppDescriptor } from './generated/index.js';
