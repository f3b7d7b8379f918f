/**
 * `kopfgen manifests <module>`: load the operator module as `kopfgen run` does, render the RBAC
 * and Deployment for the resources it registered, then plan and apply through the writer, so
 * `--check`, atomic writes and "never overwrite a file that is not kopfgen's" are one path with
 * `generate`. Exit codes as `generate`: 1 on errors or when `--check` finds files out of date.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { formatDiagnostic, type Diagnostic } from '../diagnostics.js';
import { displayPath } from '../io/fs.js';
import { applyPlan, outOfDate, planDiff, planWrite, summarize, type WritePlan } from '../io/write.js';
import { resolveTarget } from '../manifests/manifest-target.js';
import { renderManifests } from '../manifests/render-manifests.js';
import { defaultRegistry, sensitiveFields, type Registry } from '../runtime/api/registry.js';
import type { Streams } from './report.js';
import { loadOperatorModule } from './run.js';
import { UsageError } from './options.js';

export interface ManifestsFlags {
  out?: string;
  namespace?: string;
  name?: string;
  image?: string;
  /** The module's path inside the image (default: `<module>` relative to the current directory). */
  imageModule?: string;
  healthPort?: number;
  webhookPort?: number;
  webhookCerts?: 'cert-manager' | 'self-signed';
  webhookUrl?: string;
  /** Pods of the Deployment (default 2). */
  replicas?: number;
  /** `--shards K` in the Deployment's `kopfgen run` arguments, and `list` on Leases. */
  shards?: number;
  check?: boolean;
  quiet?: boolean;
  /** The registry the module registers into (default: the default registry); for tests. */
  registry?: Registry;
}

function moduleDiagnostic(module: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, message, file: module, line: 1, col: 1, pointer: '' };
}

/** The module as the image sees it: the same path relative to the project, `/`-separated. */
function pathInImage(cwd: string, module: string): string {
  return relative(cwd, resolve(cwd, module)).split(sep).join('/');
}

/**
 * Of the stale files the writer found, only manifests are ours to remove: YAML directly in the
 * output directory. `--out .` must not take `generate`'s files (or anything below) with it.
 */
function onlyManifests(plan: WritePlan): WritePlan {
  const ours = (path: string) => dirname(path) === plan.outDir && path.endsWith('.yaml');
  return { ...plan, files: plan.files.filter((f) => f.change !== 'remove' || ours(f.absPath)) };
}

export async function runManifests(
  module: string,
  flags: ManifestsFlags,
  streams: Streams,
  fixCommand: string,
): Promise<number> {
  const cwd = process.cwd();
  const fail = (diagnostics: Diagnostic[]): number => {
    for (const d of diagnostics) streams.stderr.write(`${formatDiagnostic(d)}\n`);
    return 1;
  };
  const failure = await loadOperatorModule(module);
  if (failure !== undefined) {
    const at = failure.at;
    if (!at) return fail([moduleDiagnostic(module, 'KG340', failure.line)]);
    const diagnostic = moduleDiagnostic(module, 'KG340', `cannot load ${module}: ${failure.message}`);
    return fail([{ ...diagnostic, file: displayPath(cwd, at.file), line: at.line, col: at.col }]);
  }
  const registry = flags.registry ?? defaultRegistry;
  const resources = registry.resources();
  const webhooks = { webhooks: registry.webhooks, conversions: [...registry.conversions.keys()] };
  if (registry.isEmpty()) {
    return fail([
      moduleDiagnostic(
        module,
        'KG341',
        `${module} registered no handlers: manifests grant access to the resources handlers are registered for`,
      ),
    ]);
  }
  const named = resources.length > 0 ? resources : registry.webhooks.map((w) => w.resource);
  const resolved = resolveTarget(named, {
    name: flags.name,
    namespace: flags.namespace,
    image: flags.image,
    healthPort: flags.healthPort,
    webhookPort: flags.webhookPort,
    webhookCerts: flags.webhookCerts,
    webhookUrl: flags.webhookUrl,
    replicas: flags.replicas,
    shards: flags.shards,
    module: flags.imageModule ?? pathInImage(cwd, module),
    source: pathInImage(cwd, module),
  });
  if (resolved.target === undefined) throw new UsageError(resolved.problems.join('\n'));
  const outDir = resolve(cwd, flags.out ?? 'deploy');
  const sensitive = resources.some((r) => sensitiveFields(r, registry.handlers).length > 0);
  const owners = resources.filter((r) => registry.handlersFor(r).some((h) => h.cause === 'child'));
  const files = renderManifests(resources, resolved.target, webhooks, { sensitive, declared: registry.access, owners });
  const plan = onlyManifests(await planWrite(files, { outDir, cwd }));
  if (plan.diagnostics.length > 0) return fail(plan.diagnostics);
  const stale = outOfDate(plan);
  if (flags.check) {
    if (stale.length === 0) {
      if (!flags.quiet) streams.stdout.write(`kopfgen manifests: ${plan.files.length} files up to date\n`);
      return 0;
    }
    for (const f of stale) streams.stdout.write(planDiff(f));
    streams.stderr.write(`kopfgen manifests: ${stale.length} file(s) out of date; run: ${fixCommand}\n`);
    return 1;
  }
  await applyPlan(plan);
  if (!flags.quiet) {
    const s = summarize(plan);
    for (const path of s.written) streams.stdout.write(`wrote ${path}\n`);
    for (const path of s.removed) streams.stdout.write(`removed ${path}\n`);
    streams.stdout.write(
      `kopfgen manifests: ${s.written.length} written, ${s.removed.length} removed, ${s.unchanged} unchanged\n`,
    );
  }
  return 0;
}
