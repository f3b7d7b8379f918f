/**
 * The configuration file: found in the working directory (JSON, YAML, or package.json's
 * "kopfgen" key), used by `kopfgen generate` without arguments, overridden by flags, and
 * rejected with a positioned error naming the key when wrong (exit 2).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../src/config/load.js';
import { EXAMPLE_CRD, kopfgen, tempProject, tree, WIDGET_CRD } from '../helpers/cli-support.js';

function problems(name: string, text: string, inPackage = false): string[] {
  return parseConfig(`/p/${name}`, name, text, inPackage).diagnostics.map(
    (d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.pointer} ${d.message}`,
  );
}

test('config: unknown keys and wrong values name the key, with line and column', () => {
  const json = '{\n  "inputs": ["crds"],\n  "outDir": "gen",\n  "stubs": 3,\n  "handlers": { "MyResource": [1] }\n}\n';
  const found = problems('kopfgen.config.json', json);
  assert.equal(found.length, 3);
  assert.match(
    found[0],
    /^kopfgen\.config\.json:3:3 KG301 \/outDir unknown configuration key "outDir" \(did you mean "out"\?\)/,
  );
  assert.match(
    found[1],
    /^kopfgen\.config\.json:4:12 KG302 \/stubs configuration key "stubs" must be a directory \(string\) or false, got number 3/,
  );
  assert.match(
    found[2],
    /^kopfgen\.config\.json:5:31 KG302 \/handlers\/MyResource configuration key "handlers\.MyResource"/,
  );
  assert.deepEqual(problems('kopfgen.config.yaml', 'target: [kopf]\n'), [
    'kopfgen.config.yaml:1:9 KG302 /target configuration key "target" must be "typescript" or "kopf", got a list',
  ]);
  const yaml = 'inputs: crds\nout:\n  - a\n';
  assert.deepEqual(
    problems('kopfgen.config.yaml', yaml).map((p) => p.split(' ').slice(0, 3).join(' ')),
    ['kopfgen.config.yaml:3:3 KG302 /out'],
  );
  const pkg = '{\n  "name": "x",\n  "kopfgen": { "input": "crds" }\n}\n';
  assert.match(
    problems('package.json', pkg, true)[0],
    /^package\.json:3:16 KG301 \/kopfgen\/input unknown configuration key "input" \(did you mean "inputs"\?\)/,
  );
});

test('config: syntax errors are positioned; JSON must be JSON', () => {
  assert.match(
    problems('kopfgen.config.json', '{\n  "out": "gen",\n  oops\n}\n')[0],
    /^kopfgen\.config\.json:3:\d+ KG300 +cannot parse configuration/,
  );
  assert.match(
    problems('kopfgen.config.yaml', 'out: [gen\n')[0],
    /^kopfgen\.config\.yaml:\d+:\d+ KG300 +cannot parse configuration/,
  );
  assert.match(problems('kopfgen.config.yaml', 'out: a\nout: b\n')[0], /KG300/);
  assert.match(problems('kopfgen.config.json', '[1]')[0], /KG302 \/ the configuration must be an object/);
});

test('config: a JSON error is one line, at the character that is not JSON', () => {
  const cases: [string, string][] = [
    [
      '{\n  "inputs": ["crds",],\n  "out": "gen"\n}\n',
      "kopfgen.config.json:2:21 KG300  cannot parse configuration: Unexpected token ']'",
    ],
    [
      '{\n  "inputs": "crds",\n  "out": gen\n}\n',
      "kopfgen.config.json:3:10 KG300  cannot parse configuration: Unexpected token 'g'",
    ],
    [
      '{\n  "inputs": \'crds\'\n}\n',
      "kopfgen.config.json:2:13 KG300  cannot parse configuration: Unexpected token '''",
    ],
    [
      '{ "out": "gen" }\n# done\n',
      'kopfgen.config.json:2:1 KG300  cannot parse configuration: Unexpected non-whitespace character after JSON',
    ],
  ];
  for (const [text, expected] of cases) assert.deepEqual(problems('kopfgen.config.json', text), [expected], text);
});

test('config: valid forms', () => {
  const r = parseConfig(
    '/p/kopfgen.config.yaml',
    'kopfgen.config.yaml',
    'target: kopf\ninputs: [crds, "more/*.yaml"]\nout: src/gen\nstubs: false\nhandlers:\n  MyResource: myapp, cleanup\n  Widget: [resize]\n',
    false,
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.config, {
    target: 'kopf',
    inputs: ['crds', 'more/*.yaml'],
    out: 'src/gen',
    stubs: false,
    handlers: { MyResource: ['myapp', 'cleanup'], Widget: ['resize'] },
  });
});

test('config: an id may name the causes of its stubs (id:update+resume); an unknown cause is KG210 at the entry', () => {
  const r = parseConfig(
    '/p/kopfgen.config.json',
    'kopfgen.config.json',
    '{ "handlers": { "EphemeralVolumeClaim": ["create_fn", "update_fn:update", "relabel:update+resume"] } }',
    false,
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.config, {
    handlers: { EphemeralVolumeClaim: ['create_fn', 'update_fn', 'relabel'] },
    handlerCauses: { EphemeralVolumeClaim: { update_fn: ['update'], relabel: ['update', 'resume'] } },
  });
  assert.deepEqual(
    problems('kopfgen.config.json', '{\n  "handlers": { "Widget": ["ok", "x:field", "y:"] }\n}\n').map((p) =>
      p.slice(0, p.indexOf(' ', p.indexOf('KG'))),
    ),
    ['kopfgen.config.json:2:34 KG210', 'kopfgen.config.json:2:45 KG210'],
  );
});

test('generate with no arguments uses kopfgen.config.json; flags override it', async () => {
  const config = JSON.stringify({ inputs: ['crds'], out: 'src/gen', stubs: 'src/handlers' });
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'kopfgen.config.json': config });
  const r = await kopfgen(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await tree(dir), [
    'crds/my.yaml',
    'kopfgen.config.json',
    'src/gen/.kopfgen-manifest.json',
    'src/gen/example.com/myresources.schemas.ts',
    'src/gen/example.com/v1/myresources.ts',
    'src/gen/index.ts',
    'src/handlers/myresources.ts',
  ]);
  const stub = (await import('node:fs')).readFileSync(`${dir}/src/handlers/myresources.ts`, 'utf8');
  assert.match(
    stub,
    /from "\.\.\/gen\/example\.com\/v1\/myresources\.js"/,
    'stubs import the configured output directory',
  );
  const overridden = await kopfgen(['generate', '--out', 'other', '--no-stubs'], dir);
  assert.equal(overridden.code, 0, overridden.stderr);
  assert.ok((await tree(dir)).includes('other/index.ts'));
});

test('generate finds kopfgen.config.yaml and package.json "kopfgen"; --config picks a file', async () => {
  const yamlDir = await tempProject({
    'crds/w.yaml': WIDGET_CRD,
    'kopfgen.config.yaml': 'inputs: crds\nout: gen\nstubs: false\n',
  });
  assert.equal((await kopfgen(['generate'], yamlDir)).code, 0);
  assert.ok((await tree(yamlDir)).includes('gen/index.ts'));
  const pkgDir = await tempProject({
    'crds/w.yaml': WIDGET_CRD,
    'package.json': JSON.stringify({ name: 'x', kopfgen: { inputs: 'crds', out: 'types', stubs: false } }),
  });
  assert.equal((await kopfgen(['generate'], pkgDir)).code, 0);
  assert.ok((await tree(pkgDir)).includes('types/index.ts'));
  const explicit = await tempProject({
    'crds/w.yaml': WIDGET_CRD,
    'conf/k.yaml': 'inputs: ../crds\nout: ../out2\nstubs: false\n',
  });
  const r = await kopfgen(['generate', '--config', 'conf/k.yaml'], explicit);
  assert.equal(r.code, 0, r.stderr);
  assert.ok((await tree(explicit)).includes('out2/index.ts'), 'paths in a config file are relative to the file');
});

test('config errors exit 2 and write nothing', async () => {
  const dir = await tempProject({
    'crds/my.yaml': EXAMPLE_CRD,
    'kopfgen.config.json': '{ "inputs": "crds", "stub": "h" }',
  });
  const r = await kopfgen(['generate'], dir);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^kopfgen\.config\.json:1:21 error KG301 unknown configuration key "stub" \(did you mean "stubs"\?\)/m,
  );
  assert.deepEqual(await tree(dir), ['crds/my.yaml', 'kopfgen.config.json']);
  const json = await kopfgen(['generate', '--format', 'json'], dir);
  assert.equal(json.code, 2);
  assert.equal((JSON.parse(json.stdout) as { diagnostics: { code: string }[] }).diagnostics[0].code, 'KG301');
  const two = await tempProject({ 'kopfgen.config.json': '{}', 'kopfgen.config.yaml': 'out: x\n' });
  const both = await kopfgen(['generate'], two);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /KG303 more than one configuration found/);
  const missing = await kopfgen(['generate', '--config', 'nope.json'], dir);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /KG304 configuration file nope\.json does not exist/);
});

test('handlers: [] opts a kind out; an empty string is a slip and an error', () => {
  const ok = parseConfig(
    '/p/kopfgen.config.json',
    'kopfgen.config.json',
    '{ "handlers": { "Application": [] } }',
    false,
  );
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(ok.config.handlers, { Application: [] });
  const slip = parseConfig(
    '/p/kopfgen.config.json',
    'kopfgen.config.json',
    '{ "handlers": { "Application": "" } }',
    false,
  );
  assert.equal(slip.diagnostics[0]?.code, 'KG302');
});

test('config: a handler id that cannot be one is an error at the id (KG201, KG202), exit 2 before any CRD is read', () => {
  const json = '{\n  "handlers": {\n    "Widget": ["ok", "bad id!", "kopf"],\n    "Gadget": "a, kopfgen"\n  }\n}\n';
  assert.deepEqual(
    problems('kopfgen.config.json', json).map((p) => p.split(' ').slice(0, 3).join(' ')),
    [
      'kopfgen.config.json:3:22 KG202 /handlers/Widget/1',
      'kopfgen.config.json:3:33 KG201 /handlers/Widget/2',
      'kopfgen.config.json:4:19 KG201 /handlers/Gadget',
    ],
  );
  const yaml = 'handlers:\n  Widget:\n    - kopf\n';
  assert.deepEqual(
    problems('kopfgen.config.yaml', yaml).map((p) => p.split(' ').slice(0, 3).join(' ')),
    ['kopfgen.config.yaml:3:7 KG201 /handlers/Widget/0'],
  );
  const pkg = '{ "kopfgen": { "handlers": { "Widget": ["-x"] } } }';
  assert.deepEqual(
    problems('package.json', pkg, true).map((p) => p.split(' ').slice(0, 3).join(' ')),
    ['package.json:1:41 KG202 /kopfgen/handlers/Widget/0'],
  );
});

test('handler mistakes in the configuration or --handlers: at the configuration or the flag, exit 2; KG207 there too', async () => {
  const config = '{\n  "inputs": "crds",\n  "handlers": { "Widget": ["resize", "bad id!"] }\n}\n';
  const dir = await tempProject({ 'crds/ok.yaml': WIDGET_CRD, 'kopfgen.config.json': config });
  const bad = await kopfgen(['generate'], dir);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^kopfgen\.config\.json:3:38 error KG202 /m);
  assert.doesNotMatch(bad.stderr, /crds\/ok\.yaml/);
  assert.deepEqual(await tree(dir), ['crds/ok.yaml', 'kopfgen.config.json']);

  const flags = await tempProject({ 'in/ok.yaml': WIDGET_CRD });
  const kopf = await kopfgen(['generate', 'in', '--handlers', 'Widget=kopf', '--format', 'json'], flags);
  assert.equal(kopf.code, 2, kopf.stderr);
  const report = JSON.parse(kopf.stdout) as { diagnostics: { code: string; file: string; message: string }[] };
  assert.deepEqual(
    report.diagnostics.map((d) => [d.code, d.file]),
    [['KG201', '<command line>']],
  );
  assert.match(report.diagnostics[0].message, /^--handlers Widget=kopf: `kopf` is not a handler id/);
  assert.match(kopf.stderr, /^kopfgen: error: --handlers Widget=kopf: `kopf` is not a handler id/m);
  assert.deepEqual(await tree(flags), ['in/ok.yaml']);

  const unmatched = '{\n  "inputs": "crds",\n  "stubs": false,\n  "handlers": {\n    "Gadget": ["x"]\n  }\n}\n';
  await import('node:fs').then((fs) => fs.writeFileSync(`${dir}/kopfgen.config.json`, unmatched));
  const warned = await kopfgen(['generate'], dir);
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /^kopfgen\.config\.json:5:5 warning KG207 .*`Gadget`/m);
  const viaFlag = await kopfgen(['generate', 'in', '--no-stubs', '--handlers', 'Sprocket=y'], flags);
  assert.equal(viaFlag.code, 0, viaFlag.stderr);
  assert.match(viaFlag.stderr, /^<command line>:1:1 warning KG207 .*--handlers Sprocket=y.*`Sprocket`/m);
});
