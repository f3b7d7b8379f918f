/**
 * Conversion between the versions of Widget (widgets.example.com), hub and spoke: v1, the
 * storage version, is the hub; each other version converts to it and back. The operator serves these at
 * /convert/widgets.example.com (kopfgen run); check them with roundTrip() from kopfgen/testing.
 *
 * This file is yours: kopfgen adds the functions of a version the CRD gains and never rewrites yours.
 */
import type { ConversionResult } from "kopfgen/runtime";
import { WidgetConversion } from "../generated/example.com/widgets.conversion.js";
import type { Widget } from "../generated/example.com/v1/widgets.js";
import type { WidgetV1alpha1 } from "../generated/example.com/v1alpha1/widgets.js";

/** Where a v1-only field waits while the object is read and written as v1alpha1 (kubebuilder's way of lossless spokes). */
export const SHAPE_ANNOTATION = 'widgets.example.com/shape';

/** Widget v1alpha1 → v1: every required field of v1 is demanded; metadata, apiVersion and kind are kept. */
export function widgetV1alpha1ToHub(from: WidgetV1alpha1): ConversionResult<Widget> {
  const { [SHAPE_ANNOTATION]: shape, ...annotations } = from.metadata?.annotations ?? {};
  return {
    metadata: { annotations },
    spec: {
      size: from.spec.width,
      ...(from.spec.colour === undefined ? {} : { color: from.spec.colour }),
      ...(shape === 'round' || shape === 'square' ? { shape } : {}),
    },
    ...(from.status === undefined ? {} : { status: from.status }),
  };
}

/** Widget v1 → v1alpha1. */
export function widgetV1alpha1FromHub(hub: Widget): ConversionResult<WidgetV1alpha1> {
  const annotations = { ...hub.metadata?.annotations };
  if (hub.spec.shape !== undefined) annotations[SHAPE_ANNOTATION] = hub.spec.shape;
  return {
    metadata: { annotations },
    spec: { width: hub.spec.size, ...(hub.spec.color === undefined ? {} : { colour: hub.spec.color }) },
    ...(hub.status === undefined ? {} : { status: hub.status }),
  };
}

WidgetConversion.register("v1alpha1", { toHub: widgetV1alpha1ToHub, fromHub: widgetV1alpha1FromHub });
