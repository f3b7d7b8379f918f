/**
 * The unit tests `kopfgen init` scaffolds beside the handler stubs it generated: one test file per
 * stub file (`src/handlers/<plural>.test.ts`), one test per stub function, each running the handler
 * as the operator would (`invoke` of `kopfgen/testing`) on the smallest valid object of its resource
 * (the `build<Kind>` the schema data module generates) and expecting what the stub returns, so the tests pass
 * on the stubs and fail, naming the handler, once a handler does something else. Pure text in, text
 * out: the stub file's registrations (`<Definition>.on<Cause>(<function>)`, which kopfgen's own stub
 * template writes), the imports it has from the generated module, the schema data module's builder.
 */
import type { GeneratedFile } from '../api.js';

/** The causes a scaffolded test can stand an object in; `onField` stubs need a field change the test cannot guess. */
const CAUSES: Record<string, string> = {
  onCreate: 'create',
  onUpdate: 'update',
  onResume: 'resume',
  onDelete: 'delete',
};

/**
 * The test file of `stub` (a TypeScript stub file as generated), or undefined when it registers no
 * callback a test can stand for or its CRD has no schema data. `generated`: the run's generated files
 * (paths relative to the output directory).
 */
export function handlerTestFile(stub: GeneratedFile, generated: readonly GeneratedFile[]): GeneratedFile | undefined {
  const text = stub.content;
  const imported = /^import \{ ([^}]*) \} from "(\.\.\/[^"]+)";$/m.exec(text);
  if (!imported) return undefined;
  const [, names, from] = imported;
  // `../generated/example.com/v1/myresources.js` → the CRD's `example.com/myresources.schemas.ts`.
  const match = /^\.\.\/(?:[^/]+\/)*?([^/]+)\/[^/]+\/([^/]+)\.js$/.exec(from);
  const schemas = match && generated.find((f) => f.path === `${match[1]}/${match[2]}.schemas.ts`);
  // The builder the schema data module binds to the descriptor of the stub's version module.
  const version = from.slice(from.lastIndexOf('/', from.lastIndexOf('/') - 1) + 1);
  const descriptor =
    schemas &&
    new RegExp(`^import \\{ (\\w+) \\} from "\\./${version.replace(/\./g, '\\.')}";$`, 'm').exec(schemas.content)?.[1];
  const builder =
    schemas &&
    descriptor &&
    new RegExp(`^export const (\\w+) = objectBuilder\\(${descriptor}, `, 'm').exec(schemas.content)?.[1];
  if (!schemas || !builder) return undefined;
  const definitions = new Set(names.split(',').map((n) => n.trim()));
  const tests: string[] = [];
  const used = new Set<string>();
  for (const m of text.matchAll(/^(\w+)\.(on\w+)\((\w+)\);$/gm)) {
    const [, definition, method, fn] = m;
    const cause = CAUSES[method];
    if (!cause || !definitions.has(definition)) continue;
    const body = new RegExp(`export async function ${fn}\\([^)]*\\)[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? '';
    const returned = /\n {2}return( [^;]+)?;\s*$/.exec(body);
    if (!returned) continue;
    const status = returned[1] ? `, status: ${returned[1].trim()}` : '';
    used.add(definition);
    const call =
      cause === 'update'
        ? `invoke(${definition}, 'update', ${builder}({ metadata: { labels: { changed: 'yes' } } }), { old: ${builder}() })`
        : `invoke(${definition}, '${cause}', ${builder}())`;
    tests.push(
      `test('${fn}: ${cause}', async () => {\n` +
        `  const result = await ${call};\n` +
        `  expectOutcome(result, { kind: 'success'${status} });\n` +
        `});\n`,
    );
  }
  if (tests.length === 0) return undefined;
  const stubModule = `./${stub.path.slice(stub.path.lastIndexOf('/') + 1).replace(/\.ts$/, '.js')}`;
  const content =
    `// Unit tests of the handlers in ${stubModule.slice(2).replace(/\.js$/, '.ts')}, scaffolded by kopfgen init: each runs a handler as the\n` +
    `// operator would (\`invoke\` of kopfgen/testing), on the smallest valid object of its resource, without a\n` +
    `// cluster. They pass on the stubs: change the expectations as you write the handlers. \`npm test\` runs them.\n` +
    `import { test } from 'node:test';\n` +
    `import { expectOutcome, invoke } from 'kopfgen/testing';\n` +
    `import { ${[...used].join(', ')} } from '${from}';\n` +
    `import { ${builder} } from '${from.replace(/\/[^/]+\/([^/]+)\.js$/, '/$1.schemas.js')}';\n` +
    `import '${stubModule}';\n\n` +
    tests.join('\n');
  return { path: stub.path.replace(/\.ts$/, '.test.ts'), content, role: 'stub' };
}
