/**
 * Conversion between a CRD's versions, hub and spoke (controller-runtime's `conversion.Hub` and
 * `conversion.Convertible`, kubebuilder's "Hubs, spokes"): the storage version is the hub, and each
 * other served version converts to it and back. A request between two spokes goes through the hub.
 * The generated `<plural>.conversion.ts` module types one definition per CRD; the user's conversion
 * file registers the functions with it, and the webhook server answers the API server's
 * `ConversionReview`s at `/convert/<plural>.<group>`.
 */
import type { ConversionFn } from './conversion-fn.js';
import { defaultRegistry, type Registry, type SpokeFunctions } from './registry.js';
import type { ResourceDescriptor } from './resource.js';

export type { ConversionContext, ConversionFn, ConversionResult } from './conversion-fn.js';

/** A spoke's two functions: to the hub and back. */
export interface SpokeConversion<Spoke, SpokeInput, Hub, HubInput> {
  toHub: ConversionFn<Spoke, HubInput>;
  fromHub: ConversionFn<Hub, SpokeInput>;
}

/** A CRD's conversion, typed by the generated `<Kind>Conversions` interface (one entry per spoke version). */
export interface ConversionDefinition<Spokes> {
  /** `<plural>.<group>`. */
  readonly crd: string;
  readonly group: string;
  readonly kind: string;
  /** The hub (storage) version. */
  readonly hub: string;
  /** The spoke versions. */
  readonly spokes: readonly string[];
  /**
   * Registers one spoke's functions, typed by the generated signatures. Each spoke is registered on
   * its own, so the conversion stub file grows by one registration when the CRD gains a version.
   */
  register<V extends keyof Spokes & string>(version: V, functions: Spokes[V], options?: { registry?: Registry }): void;
}

/**
 * The conversion of the CRD `hub` belongs to, with one descriptor per spoke (its served versions but
 * the storage one). Called by generated code.
 */
export function defineConversion<Spokes>(
  hub: ResourceDescriptor,
  spokes: { readonly [K in keyof Spokes]: ResourceDescriptor },
): ConversionDefinition<Spokes> {
  const crd = `${hub.plural}.${hub.group}`;
  const versions = Object.keys(spokes);
  return Object.freeze({
    crd,
    group: hub.group,
    kind: hub.kind,
    hub: hub.version,
    spokes: Object.freeze(versions),
    register(version: string, functions: unknown, options: { registry?: Registry } = {}) {
      const toHub: unknown = Reflect.get(Object(functions), 'toHub');
      const fromHub: unknown = Reflect.get(Object(functions), 'fromHub');
      // JavaScript callers have no compiler to check these: refuse at registration, not at the first request.
      if (!versions.includes(version))
        throw new Error(`conversion of ${crd}: ${version} is not a spoke version (${versions.join(', ')})`);
      if (typeof toHub !== 'function' || typeof fromHub !== 'function')
        throw new Error(`conversion of ${crd}: version ${version} needs a toHub and a fromHub function`);
      (options.registry ?? defaultRegistry).registerConversion({
        group: hub.group,
        plural: hub.plural,
        kind: hub.kind,
        hub: hub.version,
        spokes: new Map([
          [version, { toHub: toHub as SpokeFunctions['toHub'], fromHub: fromHub as SpokeFunctions['fromHub'] }],
        ]),
      });
    },
  });
}
