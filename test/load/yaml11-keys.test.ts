/**
 * Keys YAML 1.1 (kubectl apply's reader) reads otherwise than YAML 1.2 (kopfgen's): the key the
 * cluster would store, given/want, and KG155 at each plain key of a CRD with its position, from
 * both readers (the fast block reader and the `yaml` package's).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { parseFull, parseSource } from '../../src/load/parse-yaml.js';
import { yaml11Key } from '../../src/load/yaml11-keys.js';

const keys: [string, string | undefined][] = [
  ['n', 'false'],
  ['N', 'false'],
  ['no', 'false'],
  ['OFF', 'false'],
  ['y', 'true'],
  ['Yes', 'true'],
  ['on', 'true'],
  ['true', undefined], // a boolean in YAML 1.2 too: both read the key "true"
  ['1_000', '1000'],
  ['010', '8'],
  ['0b11', '3'],
  ['0x1_f', '31'],
  ['-1_0', '-10'],
  ['10', undefined],
  ['0', undefined],
  ['yess', undefined],
  ['name', undefined],
];
for (const [key, want] of keys) it(`${key} → ${String(want)}`, () => assert.equal(yaml11Key(key), want));

const FILE = 'test/fixtures/runtime/yaml11-keys.yaml';

it('KG155 at the plain keys n and yes of a CRD, with the key kubectl would store; the quoted "on" passes', () => {
  const text = readFileSync(FILE, 'utf8');
  for (const parse of [parseSource, parseFull]) {
    const { crds, diagnostics } = parse({ file: FILE, text });
    assert.equal(crds.length, 1);
    assert.deepEqual(
      diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.col} ${d.pointer}`),
      [
        'warning KG155 22:17 /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/n',
        'warning KG155 24:17 /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/yes',
      ],
    );
    assert.match(diagnostics[0].message, /`n` is read by kubectl apply \(YAML 1\.1\) as "false"/);
    assert.match(diagnostics[1].message, /store the field as "true", not "yes"/);
  }
});
