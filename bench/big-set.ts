/**
 * A large CRD set for the streaming benchmark, built on the fly so nothing large is committed:
 * CRDs of a source directory copied round robin, each copy under its own API group
 * (`c<n>.<group>`, so names, groups and type prefixes differ as in a provider's package). The
 * source's smallest CRDs are taken, as many as keep their mean size at `meanBytes` (a provider
 * package such as provider-upjet-aws averages ~50 KB a CRD; the shared corpus ~125 KB).
 *
 * Two shapes of the same CRDs: one CRD per file (`c<n>/<file>.yaml`, as a provider's package
 * ships them), or many per file (`c<n>/bundle-<k>.yaml`, `perFile` CRDs as documents of one
 * file, as `helm template` or an operator's release bundle ships them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readInputs } from '../src/io/read.js';

export interface BigSet {
  dir: string;
  /** CRDs in the set. */
  crds: number;
  /** Files they were written to. */
  files: number;
  bytes: number;
}

/** Writes the copies under `dir` until `crds` CRDs are there, `perFile` to a file (1: a file each). */
export async function buildBigSet(
  source: string,
  dir: string,
  crds: number,
  perFile = 1,
  meanBytes = 50_000,
): Promise<BigSet> {
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
  let written = 0;
  let bundle: string[] = [];
  const flush = (target: string) => {
    if (bundle.length === 0) return;
    writeFileSync(join(target, `bundle-${written++}.yaml`), bundle.join('---\n'));
    bundle = [];
  };
  for (let n = 0; n < crds; n++) {
    const copy = Math.floor(n / files.length);
    const { file, text } = files[n % files.length];
    const group = /^\s*group: (\S+)$/m.exec(text)?.[1] ?? '';
    const renamed = copy === 0 ? text : text.split(group).join(`c${copy}.${group}`);
    const target = join(dir, `c${copy}`);
    mkdirSync(target, { recursive: true });
    bytes += Buffer.byteLength(renamed);
    if (perFile <= 1) {
      writeFileSync(join(target, basename(file)), renamed);
      written++;
      continue;
    }
    bundle.push(renamed.endsWith('\n') ? renamed : `${renamed}\n`);
    // A bundle holds one copy's CRDs at most, so its groups stay together as in a release bundle.
    if (bundle.length === perFile || (n + 1) % files.length === 0 || n + 1 === crds) flush(target);
  }
  return { dir, crds, files: written, bytes };
}
