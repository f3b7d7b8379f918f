/**
 * Printer-column paths as the handler pass needs them: kubectl's JSONPath split into plain
 * field steps and the steps the generator cannot follow statically (indices, wildcards,
 * filters, slices, recursive descent). Never throws: unparseable text becomes one opaque step.
 */
import { HANDLER_CAUSES, type HandlerCause } from '../api.js';

export type PathStep = { kind: 'field'; name: string } | { kind: 'opaque'; text: string };

/** `.status.myapp.phase` → field steps; `['a.b']` is a field too; `[0]`, `[*]`, `[?(...)]`, `..` are opaque. */
export function parseColumnPath(jsonPath: string): PathStep[] {
  let text = jsonPath.trim();
  // kubectl also accepts the template form `{.status.x}`.
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  const steps: PathStep[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('..', i)) {
      steps.push({ kind: 'opaque', text: text.slice(i) });
      return steps;
    }
    if (text[i] === '.') {
      const end = nextDelimiter(text, i + 1);
      const name = text.slice(i + 1, end);
      steps.push(
        name === '' || name === '*' ? { kind: 'opaque', text: text.slice(i, end) || '.' } : { kind: 'field', name },
      );
      i = end;
    } else if (text[i] === '[') {
      const end = closingBracket(text, i);
      if (end < 0) {
        steps.push({ kind: 'opaque', text: text.slice(i) });
        return steps;
      }
      const inner = text.slice(i + 1, end).trim();
      const quoted = /^(['"])(.*)\1$/.exec(inner);
      steps.push(quoted ? { kind: 'field', name: quoted[2] } : { kind: 'opaque', text: text.slice(i, end + 1) });
      i = end + 1;
    } else if (i === 0) {
      // A path without the leading dot (`status.x`) is read the way kubectl reads it.
      const end = nextDelimiter(text, 0);
      steps.push({ kind: 'field', name: text.slice(0, end) });
      i = end;
    } else {
      steps.push({ kind: 'opaque', text: text.slice(i) });
      return steps;
    }
  }
  return steps;
}

function nextDelimiter(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== '.' && text[i] !== '[') i++;
  return i;
}

/** Index of the `]` closing the `[` at `open`, skipping quoted strings and nested brackets. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

/** The steps written back as a dotted path (`status.myapp.phase`), opaque steps verbatim. */
export function formatSteps(steps: readonly PathStep[]): string {
  return steps.map((s, i) => (s.kind === 'field' ? (i === 0 ? s.name : `.${s.name}`) : s.text)).join('');
}

/**
 * Handler ids become `status.<id>` keys and, in kopf's progress storage, annotation-key name
 * segments (`kopf.zalando.org/<id>`): at most 63 characters, alphanumeric at both ends,
 * `-`, `_` and `.` inside.
 */
export function isValidHandlerId(id: string): boolean {
  return id.length <= 63 && /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(id);
}

/**
 * Why `id` cannot be a handler id, or undefined when it can: `kopf` and `kopfgen` are the
 * operators' own storage in `status` (KG201); any other id must be an annotation-key name segment
 * (KG202). One verdict for every place that names ids: the CRD's annotation, its printer columns,
 * the configuration and `--handlers`.
 */
export function handlerIdProblem(id: string): { code: 'KG201' | 'KG202'; message: string } | undefined {
  if (id === 'kopf' || id === 'kopfgen') {
    const owner = id === 'kopf' ? "kopf's" : "the kopfgen runtime's";
    return {
      code: 'KG201',
      message: `\`${id}\` is not a handler id: status.${id} is ${owner} own storage (progress and diffs), not a handler's result`,
    };
  }
  if (!isValidHandlerId(id)) {
    return {
      code: 'KG202',
      message: `handler id \`${id}\` is not a valid annotation-key name segment (at most 63 characters, letters or digits at both ends, \`-\`, \`_\`, \`.\` inside), which kopf needs for its progress annotations`,
    };
  }
  return undefined;
}

/**
 * One entry of a `handlers` list (configuration or `--handlers`): `id`, or `id:cause+cause` naming
 * the causes its stubs are scaffolded for (`update_fn:update`, `relabel:update+resume`). A cause
 * that is none of kopf's four is KG210; the id itself is checked by `handlerIdProblem`.
 */
export function parseHandlerEntry(entry: string): {
  id: string;
  causes?: HandlerCause[];
  problem?: { code: 'KG210'; message: string };
} {
  const colon = entry.indexOf(':');
  if (colon < 0) return { id: entry };
  const id = entry.slice(0, colon);
  const named = entry
    .slice(colon + 1)
    .split('+')
    .map((c) => c.trim());
  const causes = HANDLER_CAUSES.filter((c) => named.includes(c));
  const unknown = named.filter((c) => !HANDLER_CAUSES.some((k) => k === c));
  if (unknown.length > 0 || causes.length === 0) {
    const message = `\`${entry}\`: after \`${id}:\` come the causes its stubs are scaffolded for, joined by \`+\`, of ${HANDLER_CAUSES.join(', ')} (e.g. \`${id}:update\`); got ${unknown.map((c) => `\`${c}\``).join(', ') || 'none'}`;
    return { id, problem: { code: 'KG210', message } };
  }
  return { id, causes };
}

/**
 * The segment of an id in its admission webhook's path (and its webhook's name): a Service path's
 * every segment must be an RFC 1123 subdomain (admissionregistration's `ValidateWebhookService`), so
 * the id is lower-cased, each run of other characters becomes `-`, and the ends are trimmed.
 * `runtime/webhooks/configurations.ts` computes the same (the generator imports no runtime code;
 * test/model/handler-paths.test.ts checks both agree).
 */
export function webhookSegment(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/[-.]*\.[-.]*/g, '.')
      .replace(/^[-.]+|[-.]+$/g, '') || 'handler'
  );
}
