/**
 * Helpers for the CLI tests: run the compiled `kopfgen` in a temporary directory and look at
 * what it left behind. Paths resolve from the repository root (the tests' working directory).
 */
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { tempDir } from './temp-dirs.js';

export const REPO = process.cwd();
export const CLI = resolve(REPO, 'dist/src/cli/main.js');
export const EXAMPLE_CRD = readFileSync(resolve(REPO, 'crds/myresource.yaml'), 'utf8');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kopfgen <args>` in `cwd` with colour off, as a user's shell would. */
export function kopfgen(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** `kopfgen <args>` with `input` piped to its standard input, as `helm template … | kopfgen generate -` does. */
export function kopfgenPiped(args: string[], cwd: string, input: string | Uint8Array): Promise<CliResult> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

export async function tempProject(files: Record<string, string> = {}): Promise<string> {
  const dir = tempDir('kopfgen-cli-');
  await writeFiles(dir, files);
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await fs.mkdir(dirname(join(dir, path)), { recursive: true });
    await fs.writeFile(join(dir, path), text);
  }
}

/** Every file under `dir` (relative, `/`-separated, sorted), skipping the cache. */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const abs = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.kopfgen-cache') await walk(abs);
      } else out.push(relative(dir, abs).split(sep).join('/'));
    }
  };
  await walk(dir);
  return out.sort();
}

/** Path → [mtimeMs, content] for every file in `dir`: what "nothing was touched" compares. */
export async function snapshot(dir: string): Promise<Map<string, [number, string]>> {
  const map = new Map<string, [number, string]>();
  for (const path of await tree(dir)) {
    const abs = join(dir, path);
    map.set(path, [(await fs.stat(abs)).mtimeMs, await fs.readFile(abs, 'utf8')]);
  }
  return map;
}

export function read(dir: string, path: string): Promise<string> {
  return fs.readFile(join(dir, path), 'utf8');
}

/** A second, minimal CRD (no handlers), so tests can add and remove a resource. */
export const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
`;

/** Malformed YAML: an unclosed flow sequence. */
export const BROKEN_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: broken.example.com
spec: [unclosed
`;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A kubeconfig whose server is a closed port: commands that need a cluster fail fast and say so. */
export function closedPortKubeconfig(): string {
  const file = join(tempDir('kopfgen-kubeconfig-'), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      '',
    ].join('\n'),
  );
  return file;
}
