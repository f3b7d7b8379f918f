/**
 * One input file as the YAML reader sees it: its name and its line starts (recorded by the
 * `yaml` package while it parses, or found in the text when the fast reader read it), so any
 * offset becomes file:line:col on demand.
 */
import { LineCounter } from 'yaml';
import type { SourcePos } from '../diagnostics.js';
import type { DocSource } from './doc-tree.js';

export class ParsedSource implements DocSource {
  readonly lineCounter = new LineCounter();
  private starts: number[] | undefined;
  constructor(
    readonly file: string,
    readonly text: string,
  ) {}

  /** The parser's record when it ran (it always records line 1), else the text's own newlines. */
  private lineStarts(): number[] {
    if (this.lineCounter.lineStarts.length > 0) return this.lineCounter.lineStarts;
    if (this.starts) return this.starts;
    const starts = [0];
    for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
    return (this.starts = starts);
  }

  /** LineCounter.linePos without its intermediate object: this runs once per schema node. */
  pos(offset: number): SourcePos {
    const starts = this.lineStarts();
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid] <= offset) low = mid + 1;
      else high = mid;
    }
    return low === 0
      ? { file: this.file, line: 1, col: offset + 1 }
      : { file: this.file, line: low, col: offset - starts[low - 1] + 1 };
  }
}
