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

/** Converts one object to `desired` (a version name), through the hub; throws what went wrong. */
export function convertObject(
  conversion: RegisteredConversion,
  object: unknown,
  desired: string,
  context: ConversionContext,
): KubernetesObject {
  if (!isKubernetesObject(object)) throw new Error('an object of the request is not a Kubernetes object');
  const from = versionOf(conversion, object.apiVersion);
  const name = object.metadata?.name ?? '(no name)';
  if (from === undefined)
    throw new Error(`${name}: apiVersion ${String(object.apiVersion)} is not ${conversion.group}`);
  if (from === desired) return object;
  const spoke = (version: string) => {
    const functions = conversion.spokes.get(version);
    if (!functions) throw new Error(`${name}: no conversion functions for version ${version}`);
    return functions;
  };
  const step = (source: KubernetesObject, fn: (from: unknown, c: ConversionContext) => unknown, to: string) => {
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

/** Answers one review; never throws (a failure is the review's result). */
export function reviewConversion(
  conversion: RegisteredConversion,
  request: ConversionRequest,
  logger: Logger,
): ConversionResponse {
  const desired = versionOf(conversion, request.desiredAPIVersion);
  const failure = (message: string): ConversionResponse => {
    logger.error(`conversion of ${conversion.plural}.${conversion.group} failed: ${message}`);
    return { uid: request.uid, convertedObjects: [], result: { status: 'Failure', message } };
  };
  if (desired === undefined)
    return failure(`desiredAPIVersion ${request.desiredAPIVersion} is not a version of ${conversion.group}`);
  const context: ConversionContext = { desiredAPIVersion: request.desiredAPIVersion, logger };
  const convertedObjects: KubernetesObject[] = [];
  try {
    for (const object of request.objects) convertedObjects.push(convertObject(conversion, object, desired, context));
  } catch (error) {
    return failure(messageOf(error));
  }
  logger.debug(
    `converted ${convertedObjects.length} ${conversion.plural}.${conversion.group} to ${request.desiredAPIVersion}`,
  );
  return { uid: request.uid, convertedObjects, result: { status: 'Success' } };
}
