/**
 * A small line diff (Myers' O(ND) algorithm) rendering unified hunks, so `--check` can show
 * exactly what a run of `kopfgen generate` would change without a dependency.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Past this many edits the diff is not worth computing: the whole file is shown as replaced. */
const MAX_EDITS = 1000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Shortest edit script between `a` and `b` (Myers 1986), or undefined when it exceeds `MAX_EDITS`. */
function myers(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v;
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
    v = next;
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], offset: number, dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: a[--x] });
      y--;
    }
    if (down) ops.push({ kind: '+', line: b[--y] });
    else ops.push({ kind: '-', line: a[--x] });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', line: a[--x] });
    y--;
  }
  return ops.reverse();
}

/** Lines of a unified diff (`--- a`, `+++ b`, `@@` hunks with `context` lines), empty when equal. */
export function unifiedDiff(
  before: string | undefined,
  after: string | undefined,
  names: { from: string; to: string },
  context = 3,
): string {
  if (before === after) return '';
  const a = splitLines(before ?? '');
  const b = splitLines(after ?? '');
  const ops = myers(a, b) ?? [
    ...a.map((line) => ({ kind: '-' as const, line })),
    ...b.map((line) => ({ kind: '+' as const, line })),
  ];
  const out = [
    `--- ${before === undefined ? '/dev/null' : names.from}`,
    `+++ ${after === undefined ? '/dev/null' : names.to}`,
  ];
  for (const hunk of hunks(ops, context)) out.push(...hunk);
  return out.join('\n') + '\n';
}

function hunks(ops: Op[], context: number): string[][] {
  const result: string[][] = [];
  let i = 0;
  const lineA = new Int32Array(ops.length + 1);
  const lineB = new Int32Array(ops.length + 1);
  for (let j = 0; j < ops.length; j++) {
    lineA[j + 1] = lineA[j] + (ops[j].kind === '+' ? 0 : 1);
    lineB[j + 1] = lineB[j] + (ops[j].kind === '-' ? 0 : 1);
  }
  while (i < ops.length) {
    if (ops[i].kind === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is within 2 × context unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end].kind !== ' ') end++;
      let gap = end;
      while (gap < ops.length && ops[gap].kind === ' ') gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const countA = slice.filter((o) => o.kind !== '+').length;
    const countB = slice.filter((o) => o.kind !== '-').length;
    const header = `@@ -${rangeStart(lineA[start], countA)},${countA} +${rangeStart(lineB[start], countB)},${countB} @@`;
    result.push([header, ...slice.map((o) => o.kind + o.line)]);
    i = stop;
  }
  return result;
}

/** Unified diff ranges are 1-based, except that an empty range names the line before it. */
function rangeStart(zeroBased: number, count: number): number {
  return count === 0 ? zeroBased : zeroBased + 1;
}
