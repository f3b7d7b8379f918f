/**
 * The story as an operator: `npx kopfgen run examples/myresource/operator.ts` (after
 * `kubectl apply -f crds/myresource.yaml`). Loading this module registers the handlers.
 *
 *   generated/            kopfgen generate crds/myresource.yaml --out examples/myresource/generated
 *                         --stubs examples/myresource/handlers   (never edit; a test keeps it current)
 *   handlers/myresources.ts  the scaffold kopfgen wrote, with the `myapp` create handler filled in
 *   helpers.ts            helpers that throw TemporaryError with a status, shared by handlers
 */
export { myappOnCreate, myappOnResume, myappOnUpdate } from './handlers/myresources.js';
export { requireImage, requireReplicas } from './helpers.js';
export { MyResourceDescriptor, MyResourceMyapp } from './generated/index.js';
