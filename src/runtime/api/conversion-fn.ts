/**
 * The signature of one direction of a conversion and what it gets and gives (`conversion.ts`
 * defines and registers conversions with them). Its own file, a leaf: the registry types the
 * functions it holds with it without importing `conversion.ts`, which imports the registry.
 */
import type { Logger } from './context.js';
import type { ObjectMeta } from './kube-types.js';

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
