/**
 * The published package: dependencies are exactly the packages `src/` imports, the tarball holds
 * a LICENSE and the bin shim and no source maps (their sources are not shipped), and nothing is
 * built at install time (no `prepare`; `prepack` builds).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/golden-support.js';

interface Manifest {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.[cm]?[jt]s$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/**
 * Bare package names imported by the shipped code, statically or dynamically; type-only imports count
 * too, as the shipped declarations import them (`kubernetes-types` types the built-in kinds); and a
 * package a `createRequire` require loads a module of by a computed path (`require(\`pkg/${…}\`)`).
 */
function importedPackages(): Set<string> {
  const found = new Set<string>();
  const pattern =
    /^(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|\brequire\(\s*[`']((?:@[^/`']+\/)?[^/`'$]+)/gm;
  for (const file of [...sourceFiles(join(REPO, 'src')), join(REPO, 'bin/kopfgen.js')]) {
    for (const m of readFileSync(file, 'utf8').matchAll(pattern)) {
      const spec = m[2] ?? m[3] ?? m[4];
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return found;
}

test('dependencies are exactly what the shipped code imports, but the three it resolves from the project', () => {
  // ts-morph: the generator's TypeScript reader (io/ts-morph-load.ts), a dev dependency of the
  // scaffold; tsx: `kopfgen run` of a .ts module (cli/load-module.ts) and a clone's bin before its
  // build. An operator's production install needs neither (tsx's esbuild runs an install script,
  // ts-morph bundles a compiler). Not peers either: npm would keep a peer the project has as a
  // dev dependency in `npm ci --omit=dev`.
  // kubernetes-models: the built-in kinds' schemas kopfgen/testing's fake client checks against
  // (testing/builtin-check.ts, which checks nothing where it is missing), a dev dependency of the
  // scaffold: 26 MB an operator's production install does not run.
  const resolved = ['kubernetes-models', 'ts-morph', 'tsx'];
  for (const name of resolved)
    assert.ok(pkg.devDependencies[name], `${name} is a devDependency: kopfgen's own tests use it`);
  assert.equal(pkg.peerDependencies, undefined);
  assert.deepEqual([...Object.keys(pkg.dependencies), ...resolved].sort(), [...importedPackages()].sort());
  assert.ok(pkg.devDependencies['json-schema-to-typescript'], "the oracle test's compiler is a devDependency");
});

test('no runtime dependency runs an install script (npm prints no allowScripts warning installing kopfgen)', () => {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; peer?: boolean; hasInstallScript?: boolean }>;
  };
  const scripted = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.hasInstallScript === true && p.dev !== true && p.devOptional !== true)
    .map(([path]) => path);
  assert.deepEqual(scripted, []);
});

test('no install-time build: prepack builds without source maps; the bin works before a build', () => {
  assert.equal(pkg.scripts.prepare, undefined);
  assert.equal(pkg.scripts.postinstall, undefined);
  assert.match(pkg.scripts.prepack, /^tsc -p tsconfig\.json --sourceMap false$/);
  assert.equal(pkg.bin.kopfgen, 'bin/kopfgen.js');
  const shim = readFileSync(join(REPO, pkg.bin.kopfgen), 'utf8');
  assert.match(shim, /^#!\/usr\/bin\/env node\n/);
  assert.match(shim, /dist\/src\/cli\/main\.js[^]*tsx\/esm\/api[^]*src\/cli\/main\.ts/);
});

test('the tarball: LICENSE (Apache-2.0), the bin, the build; no source maps', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8' });
  const files = (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  assert.ok(files.includes('LICENSE'));
  assert.ok(files.includes('bin/kopfgen.js'));
  assert.ok(files.includes('dist/src/cli/main.js'));
  assert.deepEqual(
    files.filter((f) => f.endsWith('.map')),
    [],
  );
  assert.deepEqual(
    files.filter((f) => f.startsWith('dist/test') || f.startsWith('src/')),
    [],
  );
  const license = readFileSync(join(REPO, 'LICENSE'), 'utf8');
  assert.match(
    license,
    /^Copyright 2026 The kopfgen Authors\n\n {33}Apache License\n {27}Version 2\.0, January 2004\n/,
  );
  assert.match(license, /END OF TERMS AND CONDITIONS/);
});
