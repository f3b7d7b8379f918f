/**
 * `kopfgen init` in a project that already has a configuration: keys added to it in its own
 * format, never a second configuration file beside it (which `generate` refuses: KG303). A YAML
 * file is edited as a document, so its comments and layout stay (the `yaml` package keeps what it
 * can: comments, key order, quoting); a JSON file and package.json's `"kopfgen"` key keep their
 * keys in order, at the file's own indentation. Keys the configuration has are never changed.
 */
import { isMap, parseDocument } from 'yaml';

export interface Extension {
  text: string;
  /** The keys added, in order. */
  added: string[];
}

/** `additions` (key → value) added where `text` (a configuration, or package.json with `inPackage`) lacks them. */
export function extendConfig(
  path: string,
  text: string,
  inPackage: boolean,
  additions: Record<string, unknown>,
): Extension {
  if (path.endsWith('.json')) return extendJson(text, inPackage, additions);
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) return { text, added: [] };
  const added: string[] = [];
  for (const [key, value] of Object.entries(additions)) {
    if (doc.has(key)) continue;
    doc.set(key, doc.createNode(value, { flow: Array.isArray(value) }));
    added.push(key);
  }
  return { text: added.length > 0 ? doc.toString() : text, added };
}

function extendJson(text: string, inPackage: boolean, additions: Record<string, unknown>): Extension {
  const whole = JSON.parse(text) as Record<string, unknown>;
  const target = (inPackage ? whole.kopfgen : whole) as Record<string, unknown>;
  const added = Object.keys(additions).filter((key) => !(key in target));
  if (added.length === 0) return { text, added };
  for (const key of added) target[key] = additions[key];
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return { text: `${JSON.stringify(whole, null, indent)}\n`, added };
}
