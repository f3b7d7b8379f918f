/**
 * Every relative link in README.md and docs/ resolves: the file exists, and an `#anchor` is the
 * GitHub anchor of a heading in the target (or in the page itself for `#anchor` alone), so a page
 * renamed or a heading reworded cannot leave a dead link behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { docFiles, githubSlug, headingAnchors, markdownLinks, readDoc } from '../helpers/doc-markdown.js';
import { REPO, tempDir } from '../helpers/golden-support.js';

/** Each link of `files` (repo-relative) that does not resolve, as `file:line: target (why)`. */
function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const link of markdownLinks(file, readDoc(root, file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:: not this check's business
      const hash = link.target.indexOf('#');
      const path = hash < 0 ? link.target : link.target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
      const target = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const where = `${link.file}:${link.line}: ${link.target}`;
      if (target.startsWith('..') || !existsSync(join(root, target))) {
        problems.push(`${where} (no file ${target})`);
      } else if (anchor !== undefined) {
        if (!target.endsWith('.md') || statSync(join(root, target)).isDirectory()) {
          problems.push(`${where} (an anchor into ${target}, which is no Markdown page)`);
        } else if (!headingAnchors(readDoc(root, target)).has(anchor)) {
          problems.push(`${where} (no heading with anchor #${anchor} in ${target})`);
        }
      }
    }
  }
  return problems;
}

test('every relative link in README.md and docs/ resolves, anchors included', () => {
  const files = docFiles(REPO);
  assert.ok(files.includes('docs/README.md') && files.length > 10, `docs found: ${files.join(', ')}`);
  assert.ok(
    files.reduce((n, f) => n + markdownLinks(f, readDoc(REPO, f)).length, 0) > 50,
    'the docs link to each other',
  );
  assert.deepEqual(brokenLinks(REPO, files), []);
});

test('a missing page, a missing heading and a link out of the tree are each reported at their line', () => {
  const root = tempDir('doc-links');
  try {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('README.md', '# Top\n\nSee [a](docs/a.md#the-a-page) and [gone](docs/gone.md).\n');
    write(
      'docs/a.md',
      [
        '# The `a` page',
        '',
        '[back](../README.md#top), [self](#the-a-page), [nowhere](#nowhere), [up](../../x.md)',
        '',
        '```md',
        '[in a code block](not-checked.md)',
        '```',
        '',
        '`[in a code span](not-checked.md)` and [web](https://example.com/x.md)',
        '',
      ].join('\n'),
    );
    assert.deepEqual(brokenLinks(root, docFiles(root)), [
      'README.md:3: docs/gone.md (no file docs/gone.md)',
      'docs/a.md:3: #nowhere (no heading with anchor #nowhere in docs/a.md)',
      'docs/a.md:3: ../../x.md (no file ../x.md)',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('heading anchors as GitHub makes them', () => {
  const cases: { given: string; want: string }[] = [
    { given: 'Running an operator: `kopfgen/runtime`', want: 'running-an-operator-kopfgenruntime' },
    {
      given: 'Typed Python for kopf operators: `--target kopf`',
      want: 'typed-python-for-kopf-operators---target-kopf',
    },
    { given: "Conversion between a CRD's versions", want: 'conversion-between-a-crds-versions' },
    {
      given: 'Measured (`npm run bench`, one run, this 2-core machine, idle)',
      want: 'measured-npm-run-bench-one-run-this-2-core-machine-idle',
    },
    { given: '`kopfgen generate [inputs...]`', want: 'kopfgen-generate-inputs' },
    { given: 'See [the CLI](reference/cli.md) now', want: 'see-the-cli-now' },
    { given: 'snake_case stays', want: 'snake_case-stays' },
  ];
  for (const { given, want } of cases) assert.equal(githubSlug(given), want, given);
  assert.deepEqual([...headingAnchors('# A\n## A\n```\n# not a heading\n```\n### A\n')], ['a', 'a-1', 'a-2']);
});
