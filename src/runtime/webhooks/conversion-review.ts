/**
 * One ConversionReview (apiextensions.k8s.io/v1) in, its answer out, hub and spoke as in
 * controller-runtime's `conversion.Webhook`: a spoke converts to the hub (the storage version)
 * with its `toHub`, the hub to a spoke with that spoke's `fromHub`, spoke to spoke through the
 * hub. Every object of a request (a list read converts all its items in one request) is converted;
 * the first failure fails the whole review with its message, as the API requires (a response's
 * `convertedObjects` are all or nothing). The API server refuses a conversion that changes
 * metadata other than labels and annotations, so the runtime keeps each object's metadata and takes
 * only labels and annotations from the function's result, and sets `apiVersion` and `kind`.
 */
import type { Logger } from '../api/context.js';
import type { ConversionContext } from '../api/conversion.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { RegisteredConversion } from '../api/registry.js';
import { messageOf } from '../error-message.js';
import { isKubernetesObject, isPlainObject } from '../json.js';
import type { FieldError } from '../admission/schema-admission.js';
import { BadReview } from './admission-review.js';

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: unknown[];
}

export interface ConversionResponse {
  uid: string;
  convertedObjects: KubernetesObject[];
  result: { status: 'Success' } | { status: 'Failure'; message: string };
}

/** The request of a ConversionReview body, or a BadReview saying what is missing. */
export function conversionRequest(review: unknown): ConversionRequest {
  if (!isPlainObject(review) || review.kind !== 'ConversionReview')
    throw new BadReview('the body is not a ConversionReview');
  if (review.apiVersion !== 'apiextensions.k8s.io/v1')
    throw new BadReview(
      `ConversionReview ${String(review.apiVersion)} is not served: conversionReviewVersions is [v1]`,
    );
  const request = review.request;
  if (
    !isPlainObject(request) ||
    typeof request.uid !== 'string' ||
    typeof request.desiredAPIVersion !== 'string' ||
    !Array.isArray(request.objects)
  )
    throw new BadReview('the ConversionReview has no request with a uid, a desiredAPIVersion and objects');
  return { uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, objects: request.objects };
}

export function conversionReview(response: ConversionResponse): Record<string, unknown> {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response };
}

/** The version of `group/version`, if it is this CRD's group. */
function versionOf(conversion: RegisteredConversion, apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const slash = apiVersion.lastIndexOf('/');
  return apiVersion.slice(0, slash) === conversion.group ? apiVersion.slice(slash + 1) : undefined;
}

/** The function's result as an object of `version`: the source's metadata, with the result's labels and annotations. */
function settle(
  conversion: RegisteredConversion,
  source: KubernetesObject,
  result: unknown,
  version: string,
): KubernetesObject {
  if (!isPlainObject(result)) throw new Error(`the conversion to ${version} returned ${JSON.stringify(result)}`);
  const { metadata: given, ...rest } = result;
  const metadata = { ...source.metadata };
  if (isPlainObject(given)) {
    // An empty map is no map: the API server's ObjectMeta omits it (`omitempty`), so `{}` removes them all.
    for (const key of ['labels', 'annotations'] as const) {
      const value = given[key];
      if (value === undefined) continue;
      if (isPlainObject(value) && Object.keys(value).length > 0) metadata[key] = value as Record<string, string>;
      else delete metadata[key];
    }
  }
  return { ...rest, apiVersion: `${conversion.group}/${version}`, kind: conversion.kind, metadata };
}

/**
 * A check of an object against its version's schema before a typed function reads it (the types
 * promise what the schema requires; the API server validates only after conversion and admission):
 * the field errors, worded as the API server words them, or none.
 */
export type ShapeCheck = (object: KubernetesObject, version: string) => readonly FieldError[];

/** Converts one object to `desired` (a version name), through the hub; throws what went wrong. */
export function convertObject(
  conversion: RegisteredConversion,
  object: unknown,
  desired: string,
  context: ConversionContext,
  shape?: ShapeCheck,
): KubernetesObject {
  if (!isKubernetesObject(object)) throw new Error('an object of the request is not a Kubernetes object');
  const from = versionOf(conversion, object.apiVersion);
  const name = object.metadata?.name ?? '(no name)';
  if (from === undefined)
    throw new Error(`${name}: apiVersion ${String(object.apiVersion)} is not ${conversion.group}`);
  // The kind is kept, never relabelled: an object of another kind in the review is the caller's mistake.
  if (object.kind !== conversion.kind)
    throw new Error(`${name}: kind ${String(object.kind)} is not ${conversion.kind}`);
  if (from !== conversion.hub && !conversion.spokes.has(from))
    throw new Error(`${name}: ${String(object.apiVersion)} is not a version this operator converts`);
  if (from === desired) return object;
  const spoke = (version: string) => {
    const functions = conversion.spokes.get(version);
    if (!functions) throw new Error(`${name}: no conversion functions for version ${version}`);
    return functions;
  };
  const step = (source: KubernetesObject, fn: (from: unknown, c: ConversionContext) => unknown, to: string) => {
    const errors = shape?.(source, versionOf(conversion, source.apiVersion) ?? '') ?? [];
    if (errors.length > 0)
      throw new Error(
        `${name}: ${String(source.apiVersion)} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join(', ')}`,
      );
    try {
      return settle(conversion, source, fn(source, context), to);
    } catch (error) {
      throw new Error(`${name}: ${source.apiVersion} → ${conversion.group}/${to}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  };
  const hub = from === conversion.hub ? object : step(object, spoke(from).toHub, conversion.hub);
  return desired === conversion.hub ? hub : step(hub, spoke(desired).fromHub, desired);
}

/** The desired version's name, or why the review fails whatever its objects (none included). */
function desiredVersion(conversion: RegisteredConversion, request: ConversionRequest): string | { failure: string } {
  const desired = versionOf(conversion, request.desiredAPIVersion);
  if (desired === undefined)
    return { failure: `desiredAPIVersion ${request.desiredAPIVersion} is not a version of ${conversion.group}` };
  if (desired !== conversion.hub && !conversion.spokes.has(desired))
    return {
      failure: `desiredAPIVersion ${request.desiredAPIVersion} is not a version this operator converts (${[conversion.hub, ...conversion.spokes.keys()].join(', ')})`,
    };
  return desired;
}

/** Answers one review; never throws (a failure is the review's result). */
export function reviewConversion(
  conversion: RegisteredConversion,
  request: ConversionRequest,
  logger: Logger,
  shape?: ShapeCheck,
): ConversionResponse {
  const failure = (message: string): ConversionResponse => {
    logger.error(`conversion of ${conversion.plural}.${conversion.group} failed: ${message}`);
    return { uid: request.uid, convertedObjects: [], result: { status: 'Failure', message } };
  };
  const desired = desiredVersion(conversion, request);
  if (typeof desired !== 'string') return failure(desired.failure);
  const context: ConversionContext = { desiredAPIVersion: request.desiredAPIVersion, logger };
  const convertedObjects: KubernetesObject[] = [];
  try {
    for (const object of request.objects)
      convertedObjects.push(convertObject(conversion, object, desired, context, shape));
  } catch (error) {
    return failure(messageOf(error));
  }
  logger.debug(
    `converted ${convertedObjects.length} ${conversion.plural}.${conversion.group} to ${request.desiredAPIVersion}`,
  );
  return { uid: request.uid, convertedObjects, result: { status: 'Success' } };
}

/** Text is cut into buffers of about this size as it is made, so no string grows to the answer's size. */
const CHUNK_CHARS = 256 * 1024;
/** Objects converted between two pauses: others' requests (admission, `/healthz`) wait at most one slice. */
const SLICE_OBJECTS = 500;

/** The objects of a review one at a time (`review-scan.ts` parses each only when asked). */
export interface ReviewObjects {
  count: number;
  item(index: number): unknown;
}

/**
 * The same answer as `reviewConversion`, as the ConversionReview's JSON text in buffers, made for a
 * large review without holding it several times: each object is read (`objects.item`), converted
 * and written as text, so only one object is held parsed at a time and the answer is held once, as
 * bytes. The answer is all or nothing (the API requires it), so the text is kept until the last
 * object is converted; a failure drops it. `pause` is awaited between slices so that other requests
 * (admission, `/healthz`) are served meanwhile. An item that does not parse throws (the server's 400).
 */
export async function conversionAnswerText(
  conversion: RegisteredConversion,
  request: ConversionRequest,
  objects: ReviewObjects,
  logger: Logger,
  pause: () => Promise<void>,
  shape?: ShapeCheck,
): Promise<Buffer[]> {
  const failure = (message: string): Buffer[] => {
    logger.error(`conversion of ${conversion.plural}.${conversion.group} failed: ${message}`);
    const response = { uid: request.uid, convertedObjects: [], result: { status: 'Failure' as const, message } };
    return [Buffer.from(JSON.stringify(conversionReview(response)))];
  };
  const desired = desiredVersion(conversion, request);
  if (typeof desired !== 'string') return failure(desired.failure);
  const context: ConversionContext = { desiredAPIVersion: request.desiredAPIVersion, logger };
  const chunks: Buffer[] = [];
  let text = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":${JSON.stringify(request.uid)},"convertedObjects":[`;
  for (let i = 0; i < objects.count; i++) {
    const object = objects.item(i);
    try {
      text += (i > 0 ? ',' : '') + JSON.stringify(convertObject(conversion, object, desired, context, shape));
    } catch (error) {
      return failure(messageOf(error));
    }
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text));
      text = '';
    }
    if ((i + 1) % SLICE_OBJECTS === 0) await pause();
  }
  chunks.push(Buffer.from(`${text}],"result":{"status":"Success"}}}`));
  logger.debug(`converted ${objects.count} ${conversion.plural}.${conversion.group} to ${request.desiredAPIVersion}`);
  return chunks;
}
