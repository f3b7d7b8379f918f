/**
 * One input file as the YAML reader sees it: its name and the line starts the `yaml` package
 * records while parsing, so any offset becomes file:line:col on demand.
 */
import { LineCounter } from 'yaml';
import type { SourcePos } from '../diagnostics.js';
import type { DocSource } from './doc-tree.js';

export class ParsedSource implements DocSource {
  readonly lineCounter = new LineCounter();
  constructor(
    readonly file: string,
    readonly text: string,
  ) {}

  /** LineCounter.linePos without its intermediate object: this runs once per schema node. */
  pos(offset: number): SourcePos {
    const starts = this.lineCounter.lineStarts;
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
