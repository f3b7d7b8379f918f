/**
 * One AdmissionReview (admission.k8s.io/v1) in, its answer out: the registration's filters, the
 * callback under its time bound, and the answer Kubernetes expects (kopf's `serve_admission_request`
 * and `build_response`, controller-runtime's `admission.Webhook`). Every outcome is decided here:
 *
 * - allowed, with the callback's warnings and, for a mutation, the RFC 6902 patch of its edit;
 * - an AdmissionError (thrown or returned): denied with its message and code, one log line;
 * - any other error, or past `timeoutSeconds`: the registration's `failurePolicy` decides, as the API
 *   server would had the webhook been unreachable (`Fail` denies with 500, `Ignore` allows), one log line.
 */
import type { FieldError } from '../admission/schema-admission.js';
import type { AdmissionContext, ClientCertificate, Operation, UserInfo } from '../api/admission.js';
import type { Memo } from '../api/memo.js';
import { isAdmissionError } from '../api/admission.js';
import type { Logger } from '../api/context.js';
import type { RegisteredWebhook } from '../api/registry.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { unserialisable } from '../effects/handler-call.js';
import { childLogger } from '../effects/log.js';
import { messageOf } from '../error-message.js';
import { clone, isKubernetesObject, isPlainObject } from '../json.js';
import { matchesFilters } from '../reconcile/filter-match.js';
import { DEFAULT_OPERATIONS, DEFAULT_TIMEOUT_SECONDS } from './configurations.js';
import { jsonPatch } from './json-patch.js';

/** The parts of an AdmissionRequest the runtime reads. */
export interface AdmissionRequest {
  uid: string;
  operation: Operation;
  object?: KubernetesObject | null;
  oldObject?: KubernetesObject | null;
  userInfo?: UserInfo;
  dryRun?: boolean;
  subResource?: string;
  name?: string;
  namespace?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string };
  warnings?: string[];
  patch?: string;
  patchType?: 'JSONPatch';
}

/**
 * What the callbacks get beside the review: the HTTP request's headers and verified client certificate
 * (webhook-server.ts reads them), and the operator's memo.
 */
export interface ReviewCall {
  headers: Readonly<Record<string, string>>;
  sslpeer: ClientCertificate | undefined;
  memo: Memo;
}

/** A review the server cannot read: answered with HTTP 400 and this message. */
export class BadReview extends Error {}

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** The request of an AdmissionReview body, or a BadReview saying what is missing. */
export function admissionRequest(review: unknown): AdmissionRequest {
  if (!isPlainObject(review) || review.kind !== 'AdmissionReview')
    throw new BadReview('the body is not an AdmissionReview');
  if (review.apiVersion !== 'admission.k8s.io/v1')
    throw new BadReview(`AdmissionReview ${String(review.apiVersion)} is not served: admissionReviewVersions is [v1]`);
  const request = review.request;
  if (!isPlainObject(request) || typeof request.uid !== 'string' || !OPERATIONS.has(String(request.operation)))
    throw new BadReview('the AdmissionReview has no request with a uid and an operation');
  const object = request.object ?? request.oldObject;
  if (!isKubernetesObject(object)) throw new BadReview('the AdmissionReview has neither object nor oldObject');
  return request as unknown as AdmissionRequest;
}

/**
 * A review of another kind than the registration's (a ConfigMap posted to a Widget's path) is
 * refused before any typed callback sees it, as controller-runtime's `admission.Decoder` refuses
 * it. A subresource's or CONNECT's object has a kind of its own (Scale, PodExecOptions): not checked.
 */
export function checkKind(webhook: RegisteredWebhook, request: AdmissionRequest): void {
  if (webhook.options.subresource !== undefined || request.operation === 'CONNECT') return;
  const { group, kind } = webhook.resource;
  for (const object of [request.object, request.oldObject]) {
    if (!object) continue;
    const apiVersion = String(object.apiVersion);
    const objectGroup = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
    if (object.kind !== kind || objectGroup !== group)
      throw new BadReview(
        `the review's object is ${String(object.kind)} ${apiVersion}, not ${kind} of ${group || 'the core group'}`,
      );
  }
}

/** The AdmissionReview that carries `response` (the request's apiVersion and kind, as the API requires). */
export function admissionReview(response: AdmissionResponse): Record<string, unknown> {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

/** A time bound below the API server's own, so the answer (per failurePolicy) arrives before it gives up. */
export function callBudgetMs(timeoutSeconds: number | undefined): number {
  const seconds = timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  return Math.max(200, seconds * 1000 - Math.min(1000, seconds * 100));
}

class TimedOut extends Error {}

async function bounded<T>(run: (signal: AbortSignal) => Promise<T> | T, ms: number): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort(new TimedOut(`timed out after ${ms / 1000}s`));
      reject(new TimedOut(`timed out after ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => run(abort.signal)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeRequest(webhook: RegisteredWebhook, request: AdmissionRequest, body: KubernetesObject): string {
  const meta = body.metadata ?? {};
  const name = meta.name ?? request.name ?? '(generated name)';
  const namespace = meta.namespace ?? request.namespace;
  const who = request.userInfo?.username ?? 'unknown user';
  return `${webhook.kind} ${webhook.id} on ${request.operation} ${webhook.resource.plural} ${namespace ? `${namespace}/` : ''}${name} by ${who}`;
}

function context(
  webhook: RegisteredWebhook,
  request: AdmissionRequest,
  body: KubernetesObject,
  logger: Logger,
  signal: AbortSignal,
  warnings: string[],
  call: ReviewCall,
): AdmissionContext<unknown> {
  const meta = body.metadata ?? {};
  const base = {
    body,
    spec: body.spec,
    meta,
    name: String(meta.name ?? request.name ?? ''),
    namespace: meta.namespace ?? request.namespace,
    subresource: request.subResource,
    userInfo: request.userInfo ?? {},
    dryRun: request.dryRun === true,
    warnings,
    logger,
    signal,
    memo: call.memo,
    headers: call.headers,
    sslpeer: call.sslpeer,
  };
  const old: unknown = request.oldObject ?? undefined;
  switch (request.operation) {
    case 'CREATE':
      return { ...base, operation: 'CREATE', old: undefined };
    case 'UPDATE':
      return { ...base, operation: 'UPDATE', old };
    case 'DELETE':
      return { ...base, operation: 'DELETE', old };
    default:
      return { ...base, operation: 'CONNECT', old };
  }
}

/**
 * Answers one request for `webhook`. Never rejects: every failure of the callback is an answer.
 * `logger` gets one line per denied request and per callback failure.
 */
export async function reviewAdmission(
  webhook: RegisteredWebhook,
  request: AdmissionRequest,
  logger: Logger,
  shape?: (object: KubernetesObject) => readonly FieldError[],
  call: ReviewCall = { headers: {}, sslpeer: undefined, memo: {} },
): Promise<AdmissionResponse> {
  const body = request.object ?? request.oldObject ?? {};
  const allowed: AdmissionResponse = { uid: request.uid, allowed: true };
  const operations: readonly string[] = webhook.options.operations ?? DEFAULT_OPERATIONS;
  const what = describeRequest(webhook, request, body);
  const warnings: string[] = [];
  const withWarnings = (response: AdmissionResponse): AdmissionResponse =>
    warnings.length > 0 ? { ...response, warnings: [...warnings] } : response;
  const deny = (code: number, message: string): AdmissionResponse => {
    logger.warn(`admission denied: ${what}: ${message}`, { code });
    return withWarnings({ uid: request.uid, allowed: false, status: { code, message } });
  };
  const failed = (message: string): AdmissionResponse => {
    // The failure policy the API server applies to an unreachable webhook, applied to a failing callback too.
    if (webhook.options.failurePolicy === 'Ignore') {
      logger.error(`admission ${what} failed, allowed (failurePolicy Ignore): ${message}`);
      return withWarnings(allowed);
    }
    return deny(500, `${webhook.kind} handler ${webhook.id} failed: ${message}`);
  };
  try {
    if (!operations.includes(request.operation) || !matchesFilters(webhook.options, body)) return allowed;
  } catch (error) {
    return failed(`a filter threw: ${messageOf(error)}`);
  }
  // A mutation runs before the API server validates the object, so its type (the schema's required
  // fields, the types of its values) is checked first and refused as the server would refuse it.
  if (webhook.kind === 'mutate' && request.object && shape) {
    const errors = shape(request.object);
    if (errors.length > 0) {
      const name = request.object.metadata?.name ?? request.name ?? '';
      const fields = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join(', ');
      return deny(422, `${webhook.resource.kind}.${webhook.resource.group} "${name}" is invalid: ${fields}`);
    }
  }
  const object = webhook.kind === 'mutate' && request.object ? clone(request.object) : undefined;
  const handlerLogger = childLogger(logger, `${webhook.kind} ${webhook.id} ${what.slice(what.indexOf(' on ') + 4)}`);
  let result: unknown;
  try {
    result = await bounded((signal) => {
      const ctx = context(webhook, request, body, handlerLogger, signal, warnings, call);
      return webhook.fn(object === undefined ? ctx : { ...ctx, object });
    }, callBudgetMs(webhook.options.timeoutSeconds));
  } catch (error) {
    if (isAdmissionError(error)) return deny(error.code, error.message);
    return failed(messageOf(error));
  }
  if (isAdmissionError(result)) return deny(result.code, result.message);
  if (webhook.kind === 'validate') {
    if (Array.isArray(result)) warnings.push(...result.map(String));
    return withWarnings(allowed);
  }
  if (!request.object || request.operation === 'DELETE') return withWarnings(allowed);
  const mutated = result === undefined ? object : result;
  if (!isKubernetesObject(mutated)) return failed('the mutation returned something that is not an object');
  // JSON would write NaN or Infinity as null and fail on a BigInt or a cycle: refused, naming where.
  const unfit = unserialisable(mutated);
  if (unfit) return failed(`the mutated object holds ${unfit}, which JSON cannot carry`);
  const ops = jsonPatch(request.object, mutated);
  if (ops.length === 0) return withWarnings(allowed);
  return withWarnings({
    ...allowed,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
  });
}
