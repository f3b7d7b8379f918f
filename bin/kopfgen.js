#!/usr/bin/env node
// The `kopfgen` command. The published package runs its build (dist/, made by `prepack`). A clone
// of the repository before its first build runs the TypeScript sources through tsx instead, so
// `npm ci && npx kopfgen …` works without an install-time build step (npm's `prepare`, which
// would also run for every consumer installing from git).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(built)) {
  const { runCli } = await import(built.href);
  runCli();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { runCli } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
  runCli();
}
