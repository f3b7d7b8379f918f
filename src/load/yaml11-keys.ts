/**
 * Keys that YAML 1.1 reads differently: `kubectl apply` reads a CRD's YAML with go-yaml v2 (YAML
 * 1.1, through sigs.k8s.io/yaml), where a plain `y`, `n`, `yes`, `no`, `on`, `off` (any of their
 * capitalisations) is a boolean and `1_000`, `010`, `0b11` are integers, and turns such a key into
 * the JSON key `"true"`, `"false"`, `"1000"`, `"8"`, `"3"`; kopfgen reads YAML 1.2, where they are the
 * strings they look like. A schema property `n` is then stored by the API server as `"false"`, and
 * the field users set is pruned. kopfgen keeps reading the key as written (what the author meant)
 * and reports each such plain key (KG155) with the key the cluster would store: quote it (`"n":`).
 */
import type { Diagnostic } from '../diagnostics.js';
import type { DocNode } from './doc-tree.js';

const TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
const FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);

/** The key go-yaml v2 and sigs.k8s.io/yaml would make of a plain key, where it differs from the text. */
export function yaml11Key(text: string): string | undefined {
  if (TRUE.has(text)) return 'true';
  if (FALSE.has(text)) return 'false';
  const sign = /^[-+]/.test(text) ? text[0] : '';
  const body = text.slice(sign.length);
  const negative = sign === '-';
  const number = (digits: string, base: number) => {
    const value = BigInt(base === 10 ? digits : `0${base === 2 ? 'b' : base === 8 ? 'o' : 'x'}${digits}`);
    return String(negative ? -value : value);
  };
  // YAML 1.1's int forms (yaml.org/type/int.html) that YAML 1.2's core schema reads otherwise.
  if (/^0b[01_]+$/.test(body) && /[01]/.test(body.slice(2))) return number(body.slice(2).replace(/_/g, ''), 2);
  if (/^0[0-7_]+$/.test(body) && /[0-7]/.test(body.slice(1))) return number(body.slice(1).replace(/_/g, ''), 8);
  if (/^0x[0-9a-fA-F_]+$/.test(body) && body.includes('_')) return number(body.slice(2).replace(/_/g, ''), 16);
  if (/^[1-9][0-9_]*$/.test(body) && body.includes('_')) return number(body.replace(/_/g, ''), 10);
  return undefined;
}

/**
 * KG155 for every plain key of `root` (a CRD's mapping) that YAML 1.1 reads as another key. `text`:
 * the source, to tell a plain key from a quoted one by its first character.
 */
export function yaml11KeyDiagnostics(root: DocNode, text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<DocNode>();
  const visit = (node: DocNode | undefined) => {
    if (!node || node.kind === 'scalar' || seen.has(node)) return;
    seen.add(node);
    if (node.kind === 'seq') {
      for (const item of node.items) visit(item);
      return;
    }
    for (const [key, entry] of node.entries) {
      const first = text[entry.keyOffset];
      const stored = first === '"' || first === "'" ? undefined : yaml11Key(key);
      if (stored !== undefined) {
        const pos = entry.keyPos;
        out.push({
          severity: 'warning',
          code: 'KG155',
          message: `the key \`${key}\` is read by kubectl apply (YAML 1.1) as ${JSON.stringify(stored)}: the API server would store the field as "${stored}", not "${key}"; quote it ("${key}":)`,
          file: pos.file,
          line: pos.line,
          col: pos.col,
          pointer: entry.value?.pointer ?? node.pointer,
        });
      }
      visit(entry.value);
    }
  };
  visit(root);
  return out;
}
