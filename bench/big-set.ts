/**
 * A large CRD set for the streaming benchmark, built on the fly so nothing large is committed:
 * CRDs of a source directory copied round robin, each copy under its own API group
 * (`c<n>.<group>`, so names, groups and type prefixes differ as in a provider's package). The
 * source's smallest CRDs are taken, as many as keep their mean size at `meanBytes` (a provider
 * package such as provider-upjet-aws averages ~50 KB a CRD; the shared corpus ~125 KB).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readInputs } from '../src/io/read.js';

export interface BigSet {
  dir: string;
  files: number;
  bytes: number;
}

/** Writes the copies under `dir` until `crds` CRD files are there. */
export async function buildBigSet(source: string, dir: string, crds: number, meanBytes = 50_000): Promise<BigSet> {
  const read = await readInputs([source]);
  const bySize = read.sources
    .filter((s) => /^\s*group: \S+$/m.test(s.text))
    .sort((a, b) => a.text.length - b.text.length || (a.file < b.file ? -1 : 1));
  let total = 0;
  let take = 0;
  while (take < bySize.length && total + bySize[take].text.length <= meanBytes * (take + 1))
    total += bySize[take++].text.length;
  const files = bySize.slice(0, Math.max(1, take)).sort((a, b) => (a.file < b.file ? -1 : 1));
  let bytes = 0;
  for (let n = 0; n < crds; n++) {
    const copy = Math.floor(n / files.length);
    const { file, text } = files[n % files.length];
    const group = /^\s*group: (\S+)$/m.exec(text)?.[1] ?? '';
    const renamed = copy === 0 ? text : text.split(group).join(`c${copy}.${group}`);
    const target = join(dir, `c${copy}`);
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, basename(file)), renamed);
    bytes += Buffer.byteLength(renamed);
  }
  return { dir, files: crds, bytes };
}
