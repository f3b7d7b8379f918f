/**
 * The handler pass over the real-world corpus (../shared/crds): every printer column that
 * reads into `.status.<x>.` yields a handler or a diagnostic explaining why not, and the
 * modules with handlers plus their stubs type-check under strict. Columns are found here from
 * the raw YAML, independently of the loader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { pointerJoin } from '../../src/diagnostics.js';
import { generate } from '../../src/generate.js';
import { readInputs } from '../../src/io/read.js';
import { resolveHandlers } from '../../src/model/handler-pass.js';
import { loadModels } from '../helpers/load-models.js';
import { formatErrors, typeCheckProject } from '../helpers/handler-typecheck.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

const CORPUS = resolve(process.cwd(), '../shared/crds');
const skip = existsSync(CORPUS) ? false : 'needs ../shared/crds';

interface RawColumn {
  crd: string;
  version: string;
  versionIndex: number;
  columnIndex: number;
  id: string;
  jsonPath: string;
}

/** Columns whose jsonPath reads into `.status.<x>.` (x a plain key), straight from the YAML. */
function statusColumns(text: string): RawColumn[] {
  const out: RawColumn[] = [];
  for (const doc of parseAllDocuments(text)) {
    const crd = doc.toJS() as {
      kind?: string;
      metadata?: { name?: string };
      spec?: { versions?: { name: string; additionalPrinterColumns?: { jsonPath: string }[] }[] };
    };
    if (crd?.kind !== 'CustomResourceDefinition') continue;
    (crd.spec?.versions ?? []).forEach((v, versionIndex) => {
      (v.additionalPrinterColumns ?? []).forEach((c, columnIndex) => {
        const m = /^\.status\.([^.[\]]+)\./.exec(c.jsonPath);
        if (m)
          out.push({
            crd: crd.metadata?.name ?? '',
            version: v.name,
            versionIndex,
            columnIndex,
            id: m[1],
            jsonPath: c.jsonPath,
          });
      });
    });
  }
  return out;
}

test(
  'corpus: each column into .status.<x>. yields a handler or a diagnostic; handler code and stubs type-check',
  { skip },
  async (t) => {
    const read = await readInputs([CORPUS]);
    const { crds } = loadModels(read.sources);
    const { crds: handled, diagnostics } = resolveHandlers(crds, {});
    const columns = read.sources.flatMap((s) => statusColumns(s.text).map((c) => ({ ...c, file: s.file })));
    assert.ok(columns.length > 0);
    for (const c of columns) {
      const found = handled.find((m) => m.crd.name === c.crd)?.versions.find((v) => v.version.name === c.version);
      assert.ok(found, `${c.crd} ${c.version} is loaded`);
      const version = found.version;
      const handler = found.handlers.find((h) => h.id === c.id && h.columns.some((col) => col.jsonPath === c.jsonPath));
      const pointer = pointerJoin(
        version.pointer.replace(/\/spec\/versions\/\d+$/, ''),
        'spec',
        'versions',
        c.versionIndex,
        'additionalPrinterColumns',
        c.columnIndex,
        'jsonPath',
      );
      const explained = diagnostics.find((d) => d.file === c.file && d.pointer === pointer);
      assert.ok(
        handler || explained,
        `${c.file}: column ${c.jsonPath} of ${c.crd} ${c.version} yields neither a handler nor a diagnostic`,
      );
    }
    const handlers = handled.flatMap((m) =>
      m.versions.flatMap((v) => v.handlers.map((h) => `${m.crd.kind}/${v.version.name}/${h.id}`)),
    );
    t.diagnostic(
      `${columns.length} columns into .status.<x>.; ${handlers.length} handlers: ${handlers.join(', ')}; ${diagnostics.length} handler diagnostics`,
    );

    const kopf = handled.filter((m) => m.crd.file.includes('/kopf/'));
    assert.equal(kopf.length, 4);
    const kopfHandlers = kopf.flatMap((m) =>
      m.versions.flatMap((v) => v.handlers.map((h) => ({ kind: m.crd.kind, h }))),
    );
    t.diagnostic(
      `kopf CRDs: ${kopfHandlers.length} handler(s): ${kopfHandlers.map(({ kind, h }) => `${kind}.${h.id}`).join(', ')}`,
    );
    assert.deepEqual(
      kopfHandlers.map(({ kind, h }) => `${kind}.${h.id}`),
      ['KopfExample.create_fn'],
    );
    const createFn = kopfHandlers[0].h;
    assert.equal(createFn.synthesized, true);
    assert.ok(createFn.status.type === 'object');
    assert.deepEqual(
      createFn.status.properties.map((p) => `${p.name}:${p.schema.type}`),
      ['children:string', 'message:string'],
    );

    // Every module that has handlers, and every stub file, compiles under strict.
    const result = generate(read.sources, {
      stubs: { dir: 'handlers', templates: readStubTemplates() },
      generatedImportBase: '../generated',
    });
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const stubs = result.files.filter((f) => f.role === 'stub');
    const modules = new Set(
      stubs.flatMap((s) => [...s.content.matchAll(/from "\.\.\/generated\/([^"]+)\.js"/g)].map((m) => `${m[1]}.ts`)),
    );
    const generated = result.files.filter((f) => f.role === 'generated' && modules.has(f.path));
    assert.equal(generated.length, modules.size);
    t.diagnostic(
      `${stubs.length} stub files with ${stubs.reduce((n, s) => n + (s.stubs?.length ?? 0), 0)} stubs over ${generated.length} modules`,
    );
    assert.deepEqual(formatErrors(typeCheckProject({ generated, stubs })), []);
  },
);
