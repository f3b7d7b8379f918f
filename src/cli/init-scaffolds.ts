/**
 * What `kopfgen init` scaffolds for each target: the template directory, the entry module that
 * imports the handler stubs (so running it registers them), whether `deploy/` is rendered (the
 * manifests run `kopfgen run`, the TypeScript runtime), and the steps it prints after installing.
 */
import type { GeneratedFile, Target } from '../api.js';
import { handlerTestFile } from './init-tests.js';
import { pyHandlerTestFile } from './init-py-tests.js';

export interface Scaffold {
  /** Under the package's `templates/`. */
  templates: string;
  /** The entry module, relative to the project, whose `{{imports}}` placeholder gets the stubs' imports. */
  entry: string;
  /** How a line comment starts in the entry module (its import block's marks are comments). */
  comment: string;
  /** The entry's imports of the stub files (paths relative to the project, `/`-separated). */
  imports(stubs: readonly string[]): string;
  /** Render `deploy/` (RBAC and a Deployment running `kopfgen run`). */
  deploy: boolean;
  /**
   * The unit test of a handler stub file (`npm test` runs them), its path relative to the project,
   * or undefined when the stub has nothing a test can call. `stub`: as generated, its path relative
   * to the stubs directory; `stubs`: that directory, relative to the project; `generated`: the
   * run's generated modules.
   */
  testOf(stub: GeneratedFile, stubs: string, generated: readonly GeneratedFile[]): GeneratedFile | undefined;
  /**
   * Commands to run in the project after kopfgen is installed, each working as printed, then what
   * to do next as `#` comment lines (`stubs`: the stubs directory, as shown).
   */
  next(stubs: string): string[];
}

const typescript: Scaffold = {
  templates: 'init',
  entry: 'src/operator.ts',
  comment: '//',
  imports: (stubs) =>
    stubs
      .filter((s) => s.startsWith('src/') && s.endsWith('.ts'))
      .map((s) => `import './${s.slice('src/'.length).replace(/\.ts$/, '.js')}';`)
      .join('\n') || '// (no handlers yet: add handler ids to your CRD and run `npm run generate`)',
  deploy: true,
  // Beside the stub (src/handlers/<plural>.test.ts), compiled with it by the project's build (init-tests.ts).
  testOf: (stub, stubs, generated) => {
    if (!stub.path.endsWith('.ts') || stub.path.endsWith('.conversion.ts')) return undefined;
    const test = handlerTestFile(stub, generated);
    return test && { ...test, path: `${stubs}/${test.path}` };
  },
  next: (stubs) => [
    'npm run typecheck',
    'npm test',
    `# then edit ${stubs} and run the operator against your cluster:`,
    '#   kubectl apply -f crds/ && npm run build && npm start',
  ],
};

/**
 * kopf: `handlers.py` at the project's root, which `kopf run handlers.py` loads with its directory
 * on `sys.path`, imports each stub module by its package path (`from kinds import myresources`)
 * and names it once, so a strict checker does not take the import for unused.
 */
const kopf: Scaffold = {
  templates: 'init-kopf',
  entry: 'handlers.py',
  comment: '#',
  imports: (stubs) => {
    const modules = stubs.filter((s) => s.endsWith('.py')).map((s) => s.replace(/\.py$/, '').split('/'));
    if (modules.length === 0) return '# (no handlers yet: add handler ids to your CRD and run `npm run generate`)';
    const lines = modules.map((m) =>
      m.length > 1 ? `from ${m.slice(0, -1).join('.')} import ${m[m.length - 1]}` : `import ${m[0]}`,
    );
    return [...lines, '', `MODULES = (${modules.map((m) => m[m.length - 1]).join(', ')},)`].join('\n');
  },
  deploy: false,
  // tests/test_<module>.py at the root, where unittest's discovery finds them and pyright checks them (init-py-tests.ts).
  testOf: (stub, stubs, _generated) =>
    stub.path.endsWith('.py') && !stub.path.endsWith('__init__.py')
      ? pyHandlerTestFile(stub, `${stubs}/${stub.path}`.replace(/\.py$/, '').replace(/\//g, '.'))
      : undefined,
  next: (stubs) => [
    'pip install -r requirements.txt',
    'npm run typecheck',
    'npm test',
    `# then edit ${stubs} and run the operator against your cluster:`,
    '#   kubectl apply -f crds/ && kopf run handlers.py --all-namespaces',
  ],
};

export function scaffoldOf(target: Target | undefined): Scaffold {
  return target === 'kopf' ? kopf : typescript;
}
