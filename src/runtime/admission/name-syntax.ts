/**
 * The syntax checks apimachinery's `k8s.io/apimachinery/pkg/util/validation` makes of names, label
 * keys and values, with its messages word for word, so a refusal reads as the API server's. Used for
 * an object's metadata (`metadata-check.ts`) and by CEL's `format` library (`cel-library.ts`), which
 * answers with the same messages.
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const whole = (source: string) => new RegExp(`^${source}$`);
const LABEL_RE = whole(DNS1123_LABEL);
const SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN);
const DNS1035_RE = whole(DNS1035_LABEL);
const QUALIFIED_RE = whole(QUALIFIED_NAME);
const LABEL_VALUE_RE = whole(LABEL_VALUE);

/** `validation.RegexError`: the sentence, the examples and the expression. */
function regexError(message: string, source: string, ...examples: string[]): string {
  const e = examples.map((x) => `'${x}'`).join(',  or ');
  return `${message} (e.g. ${e}, regex used for validation is '${source}')`;
}

const maxLen = (n: number) => `must be no more than ${n} characters`;

/** `IsDNS1123Label`. */
export function dns1123Label(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!LABEL_RE.test(value))
    out.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        'my-name',
        '123-abc',
      ),
    );
  return out;
}

/** `IsDNS1123Subdomain`. */
export function dns1123Subdomain(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push(maxLen(253));
  if (!SUBDOMAIN_RE.test(value))
    out.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  return out;
}

/** `IsDNS1035Label`. */
export function dns1035Label(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!DNS1035_RE.test(value))
    out.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  return out;
}

/** `IsQualifiedName`: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function qualifiedName(value: string): string[] {
  const out: string[] = [];
  const parts = value.split('/');
  let name = value;
  if (parts.length === 2) {
    const [prefix, rest] = parts;
    name = rest ?? '';
    if (prefix === '') out.push('prefix part must be non-empty');
    else out.push(...dns1123Subdomain(prefix ?? '').map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME,
        'MyName',
        'my.name',
        '123-abc',
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name === '') out.push('name part must be non-empty');
  else if (name.length > 63) out.push(`name part ${maxLen(63)}`);
  if (name !== '' && !QUALIFIED_RE.test(name))
    out.push(
      'name part ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME,
          'MyName',
          'my.name',
          '123-abc',
        ),
    );
  return out;
}

/** `IsValidLabelValue`. */
export function labelValue(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!LABEL_VALUE_RE.test(value))
    out.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return out;
}

/**
 * A prefix (`generateName`, the `*Prefix` formats): apimachinery's `maskTrailingDash`, the trailing
 * '-' replaced by 'a' before the check, so `web-` passes as a prefix.
 */
export function asPrefix(check: (value: string) => string[]): (value: string) => string[] {
  return (value) => check(value.length > 1 && value.endsWith('-') ? `${value.slice(0, -1)}a` : value);
}
