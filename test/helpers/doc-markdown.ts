/**
 * The project's Markdown documentation as the doc tests read it (test/integration/doc-samples.test.ts,
 * doc-links.test.ts): README.md and every page under docs/, their fenced code blocks with the marker
 * comment written just before a block, their links, and their headings' anchors as GitHub renders them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** README.md and every `.md` under docs/, repo-relative with `/`, sorted. */
export function docFiles(root: string): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return under(path);
      return e.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...under('docs')].sort();
}

export function readDoc(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8');
}

/**
 * What an HTML comment just before a block says about it: `<!-- not-checked: reason -->` (a block
 * the sample check leaves out, with the reason stated), or `<!-- sample-prelude … -->` (declarations
 * the block takes from its page's context, prepended when it is checked; hidden when rendered).
 */
export type BlockMarker =
  | { kind: 'not-checked'; reason: string }
  | { kind: 'prelude'; text: string; line: number }
  | { kind: 'unknown'; text: string; line: number };

export interface FencedBlock {
  file: string;
  /** 1-based line of the opening fence; the block's first line is `line + 1`. */
  line: number;
  /** The info string's first word (`ts`, `sh`, …; empty when none). */
  lang: string;
  text: string;
  marker?: BlockMarker;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

/** The fenced code blocks of a CommonMark document, in order. */
export function fencedBlocks(file: string, text: string): FencedBlock[] {
  const lines = text.split('\n');
  const out: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    let end = i + 1;
    while (end < lines.length && !closes(lines[end], fence)) end++;
    out.push({
      file,
      line: i + 1,
      lang: open[2].toLowerCase(),
      text: lines.slice(i + 1, end).join('\n') + '\n',
      marker: markerBefore(lines, i),
    });
    i = end;
  }
  return out;
}

function closes(line: string, fence: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** The HTML comment that ends on the last non-blank line before line `index` (0-based), if any. */
function markerBefore(lines: string[], index: number): BlockMarker | undefined {
  let end = index - 1;
  while (end >= 0 && lines[end].trim() === '') end--;
  if (end < 0 || !lines[end].trimEnd().endsWith('-->')) return undefined;
  let start = end;
  while (start >= 0 && !lines[start].includes('<!--')) start--;
  if (start < 0) return undefined;
  const body = lines
    .slice(start, end + 1)
    .join('\n')
    .replace(/^[\s\S]*?<!--/, '')
    .replace(/-->\s*$/, '');
  const notChecked = /^\s*not-checked:\s*(.*?)\s*$/s.exec(body);
  if (notChecked) return { kind: 'not-checked', reason: notChecked[1] };
  const prelude = /^\s*sample-prelude[^\S\n]*\n([\s\S]*)$/.exec(body);
  // The prelude's text starts on the line after `<!-- sample-prelude`.
  if (prelude) return { kind: 'prelude', text: prelude[1].replace(/\s*$/, '\n'), line: start + 2 };
  return { kind: 'unknown', text: body.trim(), line: start + 1 };
}

export interface DocLink {
  file: string;
  line: number;
  target: string;
}

/** Inline links and images (`[text](target)`) outside code blocks and code spans. */
export function markdownLinks(file: string, text: string): DocLink[] {
  const lines = text.split('\n');
  const inBlock = new Set<number>();
  for (const b of fencedBlocks(file, text)) {
    const count = b.text.split('\n').length;
    for (let n = b.line; n <= b.line + count; n++) inBlock.add(n);
  }
  const out: DocLink[] = [];
  lines.forEach((raw, i) => {
    if (inBlock.has(i + 1)) return;
    const line = raw.replace(/(`+)[\s\S]*?\1/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ file, line: i + 1, target: m[1] });
    }
  });
  return out;
}

/**
 * A heading's anchor as GitHub makes it: the text as rendered (links and code spans reduced to
 * their text), lower-cased, every character but letters, digits, `_`, `-` and spaces dropped, each
 * space a `-` (so `Running an operator: \`kopfgen/runtime\`` is `running-an-operator-kopfgenruntime`).
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a document; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function headingAnchors(text: string): Set<string> {
  const inBlock = new Set<number>();
  for (const b of fencedBlocks('', text)) {
    const count = b.text.split('\n').length;
    for (let n = b.line; n <= b.line + count; n++) inBlock.add(n);
  }
  const anchors = new Set<string>();
  text.split('\n').forEach((line, i) => {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m || inBlock.has(i + 1)) return;
    const base = githubSlug(m[1]);
    let slug = base;
    for (let n = 1; anchors.has(slug); n++) slug = `${base}-${n}`;
    anchors.add(slug);
  });
  return anchors;
}
