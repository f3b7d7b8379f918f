/**
 * Conversion between a CRD's versions, hub and spoke (controller-runtime's `conversion.Hub` and
 * `conversion.Convertible`, kubebuilder's "Hubs, spokes"): the storage version is the hub, and each
 * other served version converts to it and back. A request between two spokes goes through the hub.
 * The generated `<plural>.conversion.ts` module types one definition per CRD; the user's conversion
 * file registers the functions with it, and the webhook server answers the API server's
 * `ConversionReview`s at `/convert/<plural>.<group>`.
 */
import type { Logger } from './context.js';
import type { ResourceDescriptor } from './define.js';
import type { ObjectMeta } from './kube-types.js';
import { defaultRegistry, type Registry, type SpokeFunctions } from './registry.js';

export interface ConversionContext {
  /** The version asked for, e.g. `example.com/v1`. */
  desiredAPIVersion: string;
  logger: Logger;
}

/**
 * What a conversion function returns: the target version's object, without `apiVersion` and `kind`
 * (the runtime sets them) and with `metadata` limited to labels and annotations. The API server
 * refuses any other change to metadata, so the runtime keeps the source's metadata and takes only
 * the labels and annotations given here (controller-runtime's conversions copy `ObjectMeta` whole).
 */
export type ConversionResult<To> = Omit<To, 'apiVersion' | 'kind' | 'metadata'> & {
  apiVersion?: To extends { apiVersion: infer A } ? A : string;
  kind?: To extends { kind: infer K } ? K : string;
  metadata?: Pick<ObjectMeta, 'labels' | 'annotations'>;
};

/**
 * One direction of a conversion: the source version's object as the API server sends it (read view),
 * the target's as the user writes it (write view: what a default fills in may be left out). The
 * return type makes the compiler demand every required field of the target version.
 */
export type ConversionFn<From, To> = (from: From, context: ConversionContext) => ConversionResult<To>;

/** A spoke's two functions: to the hub and back. */
export interface SpokeConversion<Spoke, SpokeInput, Hub, HubInput> {
  toHub: ConversionFn<Spoke, HubInput>;
  fromHub: ConversionFn<Hub, SpokeInput>;
}

/** A CRD's conversion, typed by the generated `<Kind>Conversions` interface (one entry per spoke version). */
export interface ConversionDefinition<Spokes> {
  /** `<plural>.<group>`. */
  readonly crd: string;
  /** The hub (storage) version. */
  readonly hub: string;
  /** Registers every spoke's functions: a spoke left out is a compile error. */
  register(functions: Spokes, options?: { registry?: Registry }): void;
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
  return Object.freeze({
    crd,
    hub: hub.version,
    register(functions: Spokes, options: { registry?: Registry } = {}) {
      const registered = new Map<string, SpokeFunctions>();
      for (const key of Object.keys(spokes) as (keyof Spokes & string)[]) {
        const entry: unknown = functions[key];
        const toHub: unknown = Reflect.get(Object(entry), 'toHub');
        const fromHub: unknown = Reflect.get(Object(entry), 'fromHub');
        // JavaScript callers have no compiler to demand both: refuse at registration, not at the first request.
        if (typeof toHub !== 'function' || typeof fromHub !== 'function')
          throw new Error(`conversion of ${crd}: version ${key} needs a toHub and a fromHub function`);
        registered.set(spokes[key].version, { toHub: toHub as never, fromHub: fromHub as never });
      }
      (options.registry ?? defaultRegistry).registerConversion({
        group: hub.group,
        plural: hub.plural,
        kind: hub.kind,
        hub: hub.version,
        spokes: registered,
      });
    },
  });
}
