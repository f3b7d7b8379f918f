/**
 * `npm run bench -- [dir]` (default ../shared/crds): runs each benchmark section in a child
 * process of its own, so the peak memory printed under each section is that section's alone.
 *
 * To add a section, add one line to SECTIONS: a name and the compiled file under dist/bench.
 * A section runs only if its compiled file exists; it receives the CRD directory as argv[2].
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SECTIONS: { name: string; file: string }[] = [
  {
    name: 'generate (end to end, vs. the yaml-parse floor and the js-yaml + openapi-typescript wrapper)',
    file: 'generate.js',
  },
  {
    name: 'a large CRD set (~2,000 CRDs, ~100 MB, one per file and many per file): time and peak memory vs. the wrapper',
    file: 'streaming.js',
  },
  { name: 'one small CRD, cold, whole process', file: 'cold.js' },
  { name: 'bad input costs no more than good input: a 50 MB CRD, valid and with one mistake', file: 'bad-input.js' },
  {
    name: 'runtime (objects/s created → status written, latency, memory; vs. the floor and the build before; envtest)',
    file: 'runtime.js',
  },
  {
    name: 'operator weight (fresh `kopfgen run`: start-up CPU, idle RSS with 0 and 10,000 objects; envtest)',
    file: 'operator-weight.js',
  },
  {
    name: 'webhooks (admission p50/p99 at 200 requests/s, conversion of 1,000 objects, peak RSS; vs. a constant-answer HTTPS floor)',
    file: 'webhooks.js',
  },
  {
    name: 'children (1,000 WebApps × 3 applied children vs. the bare apply loop; an index over 10,000 ConfigMaps; envtest)',
    file: 'children.js',
  },
  {
    name: 'scale-out (`run --shards 32`: 1 vs 3 replicas on a 1,000-object backlog, I/O-bound and CPU-bound handlers; envtest)',
    file: 'scale-out.js',
  },
  { name: 'warm generate (cache) vs cold, as a user runs it', file: 'warm.js' },
  {
    name: "the story as a handler unit test (kopfgen/testing's invoke), in process and under node --test",
    file: 'testing-unit.js',
  },
  {
    name: "admission with CEL validation rules (kopfgen/testing's admitObject on gateway-api's HTTPRoute, objects/s)",
    file: 'admission-rules.js',
  },
  { name: 'one wide object (10k, 20k, 40k keys), vs. the yaml-parse floor', file: 'wide-object.js' },
  {
    name: "tsc over the generated output (one small CRD vs. an empty project, the corpus vs. openapi-typescript's output, the handler API's types)",
    file: 'typecheck.js',
  },
];

const here = dirname(fileURLToPath(import.meta.url));
const dir = resolve(process.cwd(), process.argv[2] ?? '../shared/crds');

if (!existsSync(dir)) {
  console.error(`bench: no such directory ${dir} (pass a directory of CRDs: npm run bench -- <dir>)`);
  process.exit(2);
}

console.log(`kopfgen bench on ${dir} (node ${process.version}, ${process.platform}/${process.arch})`);
let failed = false;
for (const section of SECTIONS) {
  const file = join(here, section.file);
  if (!existsSync(file)) continue;
  console.log(`\n## ${section.name}`);
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', join(here, 'peak.js'), file, dir], {
    stdio: 'inherit',
  });
  if (child.status !== 0) {
    failed = true;
    console.log(`section ${section.name} failed (exit ${child.status ?? child.signal})`);
  }
}
process.exit(failed ? 1 : 0);
