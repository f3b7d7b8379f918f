/**
 * The generator's public contract: inputs in, files and diagnostics out. The pipeline is pure
 * (source texts in, file texts out); only `src/cli` and `src/io` touch the file system.
 */
import type { Diagnostic } from './diagnostics.js';

/** The two fragments stubs are made of (cut from the package's `templates/stub-*.ts` by `stubTemplates`). */
export interface StubTemplates {
  /** The head of a new stub file (`// #region head` of `templates/stub-file.ts`). */
  head: string;
  /** One handler stub (`// #region stub` of `templates/stub-handler.ts`). */
  stub: string;
}

/** One input file's text, read by the CLI. */
export interface SourceText {
  /** The path as the user should see it in diagnostics. */
  file: string;
  /** May be read from disk again on each use (a large input set is not held whole): read it once per use. */
  text: string;
  /** The text's UTF-8 length when known without reading it. */
  bytes?: number;
}

/** A source's UTF-8 length, without reading a text that is read on use. */
export function sourceBytes(source: SourceText): number {
  return source.bytes ?? Buffer.byteLength(source.text);
}

/**
 * What a run writes: TypeScript for kopfgen's runtime (`typescript`, the default), or a Python
 * package for kopf operators (`kopf`). Both read the same named model.
 */
export type Target = 'typescript' | 'kopf';

export const TARGETS: readonly Target[] = ['typescript', 'kopf'];

/** The causes a stub can be scaffolded for (kopf's `on.create`, `on.update`, `on.resume`, `on.delete`). */
export const HANDLER_CAUSES = ['create', 'update', 'resume', 'delete'] as const;
export type HandlerCause = (typeof HANDLER_CAUSES)[number];

export interface GenerateOptions {
  /** Default `typescript`. */
  target?: Target;
  /** Handler ids per kind from configuration or the CLI: keys are `Kind` or `plural.group`. */
  handlers?: Record<string, string[]>;
  /**
   * The causes each configured id's stubs are scaffolded for, by the same keys as `handlers`
   * (`update_fn:update` in the configuration or `--handlers`). An id only configured, without
   * causes, gets a create stub; an id the CRD names gets create, update and resume.
   */
  handlerCauses?: Record<string, Record<string, HandlerCause[]>>;
  /**
   * Where handler stubs go, relative to the output's root, and the stub templates' texts (the
   * package's `templates/stub-*.ts`, read by the caller with `readStubTemplates()`: the pipeline
   * reads no file). Undefined or `false`: no stubs.
   */
  stubs?: { dir: string; templates: StubTemplates } | false;
  /** Path of the generated directory as seen from the stubs directory, for stub imports. */
  generatedImportBase?: string;
  /**
   * kopf target: the generated package's absolute name as the stubs import it (`generated`, or
   * `app.generated`): its path from the directory holding both it and the stubs directory.
   */
  generatedPackage?: string;
  /**
   * Source files (as `SourceText.file` names them) of CRDs the project does not own: read from
   * outside the project, from node_modules or from a cluster. Their handlers get their types, but
   * no stub file, unless `handlers` names ids for the kind (another operator's CRD is not for the
   * project to handle by default; its printer columns still suggest handler ids).
   */
  foreign?: string[];
  /**
   * Where each key of `handlers` was named (the configuration file's position, or the command
   * line), so diagnostics about the entry (KG203, KG207) point there instead of at a CRD.
   */
  handlerOrigins?: Record<string, HandlerOrigin>;
}

/** A position in the configuration file (or `<command line>`, line 1, column 1, for `--handlers`). */
export interface ConfigPos {
  line: number;
  col: number;
  pointer: string;
}

export interface HandlerOrigin extends ConfigPos {
  file: string;
  /** How the entry reads in a message: `in kopfgen.config.json`, `by --handlers Widget=resize`. */
  what: string;
  /** The position of each id the entry names, where the configuration has one. */
  ids?: Record<string, ConfigPos>;
}

export interface GeneratedFile {
  /** Relative to the output directory (generated) or to the stubs directory (stubs); `/`-separated. */
  path: string;
  content: string;
  /** `generated` files are owned by kopfgen and replaced; `stub` files are the user's and only merged into. */
  role: 'generated' | 'stub';
  /** For stubs: the stub functions by name, so an existing user file gains exactly the missing ones. */
  stubs?: StubEntry[];
}

export interface StubEntry {
  /** The exported function name in the stubs file. */
  name: string;
  /** Handler id and cause, for messages (`added stub myappOnCreate for myapp (create)`). */
  handlerId: string;
  cause: string;
  /** The definition it registers with (`MyResourceMyapp`): a registration of it anywhere makes the handler present. */
  definition: string;
  /** The full text of the stub (declaration and registration), inserted verbatim when missing. */
  text: string;
}

export interface GenerateResult {
  files: GeneratedFile[];
  diagnostics: Diagnostic[];
  stats: { crds: number; versions: number; handlers: number; bytesIn: number; bytesOut: number };
}
