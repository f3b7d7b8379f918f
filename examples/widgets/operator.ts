/**
 * Webhooks from the CRD: `npx kopfgen run examples/widgets/operator.ts --webhook-url https://127.0.0.1:9443`
 * (after `kubectl apply -f examples/widgets/widgets.yaml`, against a local API server; in a cluster,
 * `kopfgen manifests` writes the Service and `--webhook-service`). Loading this module registers a
 * create/update handler, a validating and a mutating webhook (handlers/widgets.ts) and the conversion
 * between v1alpha1 and v1 (handlers/widgets.conversion.ts); `kopfgen run` serves them over HTTPS with
 * a self-signed CA kept in a Secret, and writes the caBundle into the webhook configurations and the
 * CRD's `spec.conversion`.
 *
 *   generated/   kopfgen generate examples/widgets/widgets.yaml --out examples/widgets/generated
 *                --stubs examples/widgets/handlers   (never edit; a test keeps it current)
 */
export { MAX_SIZE, sizerOnCreate, sizerOnResume, sizerOnUpdate } from './handlers/widgets.js';
export { SHAPE_ANNOTATION, widgetV1alpha1FromHub, widgetV1alpha1ToHub } from './handlers/widgets.conversion.js';
export { WidgetConversion, WidgetDescriptor, WidgetSizer } from './generated/index.js';
