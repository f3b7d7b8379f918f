/**
 * Admission handlers, typed by the resource (kopf's `@kopf.on.validate` / `@kopf.on.mutate`,
 * controller-runtime's `CustomValidator` / `CustomDefaulter`): what a validating or mutating
 * callback receives, what it may return, and the options of its registration, which become the
 * rules of a Validating/MutatingWebhookConfiguration (admissionregistration.k8s.io/v1).
 */
import type { Logger } from './context.js';
import type { Filters } from './filters.js';
import type { ObjectMeta } from './kube-types.js';
import type { Memo } from './memo.js';

/** The operation under review (AdmissionRequest.operation). */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Who asked (AdmissionRequest.userInfo, authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

type SpecOf<R> = R extends { spec?: infer S } ? S : unknown;

/** What every admission callback sees, whatever the operation. */
interface AdmissionBase<R> {
  /** The object as it would be stored (CREATE, UPDATE); on DELETE the object being deleted. */
  body: R;
  spec: SpecOf<R>;
  meta: ObjectMeta;
  name: string;
  namespace: string | undefined;
  /** `status`, `scale`, … when the request is for a subresource (the registration's `subresource`). */
  subresource: string | undefined;
  /** Who made the request. */
  userInfo: UserInfo;
  /**
   * The request is a dry run (`kubectl apply --dry-run=server`): nothing will be stored, so a
   * handler must have no side effects (a registration with `sideEffects: 'NoneOnDryRun'` may
   * have them otherwise and must skip them here).
   */
  dryRun: boolean;
  /** Handed back to the client (kubectl prints them as `Warning: …`): push to add, also when allowing. */
  warnings: string[];
  logger: Logger;
  /** Aborted when the request's time (the registration's `timeoutSeconds`) is up. */
  signal: AbortSignal;
  /**
   * The operator's memo (HookContext.memo). kopf gives an object's memo (an ephemeral one on CREATE);
   * kopfgen's webhooks are served by every replica, standbys too, which hold no objects: the operator's.
   */
  memo: Memo;
  /**
   * The HTTP request's headers (kopf's `headers`), names in lower case, a repeated header's values joined
   * by `, ` (Node's `IncomingMessage.headers`): what the API server, or whatever calls the webhook, sent.
   */
  headers: Readonly<Record<string, string>>;
  /**
   * The caller's client certificate, verified against the webhook server's client CA (kopf's `sslpeer`),
   * when the server asks for one (`WebhookOptions.clientCa`, `kopfgen run --webhook-client-ca`) and the
   * caller sent one; undefined otherwise. A certificate that does not verify is refused before any callback.
   */
  sslpeer: ClientCertificate | undefined;
}

/** A verified client certificate, as Node's TLS reads it (`tls.PeerCertificate`). */
export interface ClientCertificate {
  /** The subject's attributes (`CN`, `O`, `OU`, …); a repeated attribute is a list. */
  subject: Readonly<Record<string, string | readonly string[]>>;
  /** The issuer's attributes, as `subject`. */
  issuer: Readonly<Record<string, string | readonly string[]>>;
  /** The Subject Alternative Names, as OpenSSL prints them (`DNS:a, IP Address:1.2.3.4`), if any. */
  subjectaltname: string | undefined;
  serialNumber: string;
  validFrom: string;
  validTo: string;
  /** SHA-256 of the DER certificate, colon-separated hex. */
  fingerprint256: string;
}

/**
 * The context of a validating or mutating callback: `old` is the object before the change on
 * UPDATE (and the deleted object on DELETE), absent on CREATE, so `ctx.operation === 'UPDATE'`
 * narrows it to the resource type.
 */
export type AdmissionContext<R> = AdmissionBase<R> &
  (
    | { operation: 'CREATE'; old: undefined }
    | { operation: 'UPDATE'; old: R }
    | { operation: 'DELETE'; old: R }
    | { operation: 'CONNECT'; old: R | undefined }
  );

/**
 * A mutating callback's context: `object` is a copy of the incoming object, typed by the write view
 * `W`, to edit in place (or return an edited copy); the runtime answers with the RFC 6902 JSON patch
 * from the incoming object to the result.
 */
export type MutationContext<R, W = R> = AdmissionContext<R> & { object: W };

/**
 * Refuses the request (kopf's `kopf.AdmissionError`): `kubectl` prints the message, and nothing is
 * stored. `code` is the HTTP status the API server answers the client with, 400 to 599 (default 403
 * Forbidden, controller-runtime's `admission.Denied`; another code throws a RangeError here). Thrown or returned by a validating or mutating callback.
 */
export class AdmissionError extends Error {
  readonly code: number;
  constructor(message: string, options: { code?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdmissionError';
    const code = options.code ?? 403;
    // The API server answers the client with this status: a denial is a client (4xx) or server (5xx)
    // error; 200 would read as success, 999 is no HTTP status. Refused where it is written, not sent.
    if (!Number.isInteger(code) || code < 400 || code > 599)
      throw new RangeError(`AdmissionError code must be an HTTP error status, 400 to 599; got ${String(code)}`);
    this.code = code;
  }
}

/** Recognised across copies of this module (a `.ts` operator loaded through tsx beside the compiled runtime). */
const BRAND = Symbol.for('kopfgen.admissionError');
Object.defineProperty(AdmissionError.prototype, BRAND, { value: true });

/** Whether `error` is an AdmissionError of any copy of this module. */
export function isAdmissionError(error: unknown): error is AdmissionError {
  return typeof error === 'object' && error !== null && Reflect.get(error, BRAND) === true;
}

type Promisable<T> = T | Promise<T>;

/** What a validating callback gives back: nothing (allowed), warnings (allowed, shown), or an AdmissionError (denied). */
export type ValidationResult = void | readonly string[] | AdmissionError;

/** How the API server treats a webhook it cannot reach, or that errs (admissionregistration.k8s.io/v1 `failurePolicy`). */
export type FailurePolicy = 'Fail' | 'Ignore';

/**
 * Options of an admission registration: the filters every handler takes (a request whose object does
 * not match them is allowed untouched), and the webhook's settings.
 */
export interface AdmissionOptions<R = unknown> extends Filters<R> {
  /** Which operations are reviewed (default CREATE and UPDATE, as kubebuilder scaffolds them). */
  operations?: readonly Operation[];
  /**
   * `Fail` (default, as in kopf and controller-runtime): a callback that throws anything but an
   * AdmissionError, or runs past `timeoutSeconds`, denies the request, and so does an API server that
   * cannot reach the operator; `Ignore`: both let the request through.
   */
  failurePolicy?: FailurePolicy;
  /**
   * `None` (default): the callback has no side effects. `NoneOnDryRun`: it has some, but skips them
   * when `dryRun` is set; the API server then calls it for dry runs too.
   */
  sideEffects?: 'None' | 'NoneOnDryRun';
  /** How long the API server waits for the answer, 1 to 30 seconds (default 10, the API's default). */
  timeoutSeconds?: number;
  /** Review a subresource's requests (e.g. `status`) instead of the object's. */
  subresource?: string;
  /**
   * Keep this webhook registered when the operator withdraws its webhooks on a clean stop
   * (`--webhook-cleanup`), as kopf keeps a `persistent=True` one: a check that must never be skipped
   * while no replica runs (with `failurePolicy: 'Fail'`, the API server then refuses those requests).
   */
  persistent?: boolean;
}

/** A validating callback. */
export type ValidateFn<R> = (context: AdmissionContext<R>) => Promisable<ValidationResult>;
