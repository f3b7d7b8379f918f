/** `init` extends a configuration in its own format: given a configuration's text, want its text with the keys it lacked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extendConfig } from '../../src/config/extend-config.js';

const cases: { name: string; path: string; given: string; inPackage?: boolean; want: string; added: string[] }[] = [
  {
    name: 'YAML: comments, order and quoting kept; the key appended',
    path: 'kopfgen.config.yaml',
    given: '# ours\nout: "src/gen" # here\n\nstubs: false\n',
    want: '# ours\nout: "src/gen" # here\n\nstubs: false\ninputs: [ crds ]\n',
    added: ['inputs'],
  },
  {
    name: 'YAML: a key it has is left as it is',
    path: 'kopfgen.config.yml',
    given: 'inputs: k8s # ours\n',
    want: 'inputs: k8s # ours\n',
    added: [],
  },
  {
    name: 'JSON: its indentation kept',
    path: 'kopfgen.config.json',
    given: '{\n    "out": "src/gen"\n}\n',
    want: '{\n    "out": "src/gen",\n    "inputs": [\n        "crds"\n    ]\n}\n',
    added: ['inputs'],
  },
  {
    name: 'package.json: into the "kopfgen" key, the rest untouched',
    path: 'package.json',
    inPackage: true,
    given: '{\n  "name": "x",\n  "kopfgen": { "out": "src/gen" },\n  "private": true\n}\n',
    want: '{\n  "name": "x",\n  "kopfgen": {\n    "out": "src/gen",\n    "inputs": [\n      "crds"\n    ]\n  },\n  "private": true\n}\n',
    added: ['inputs'],
  },
];

for (const c of cases) {
  test(`extendConfig: ${c.name}`, () => {
    const got = extendConfig(c.path, c.given, c.inPackage ?? false, { inputs: ['crds'] });
    assert.equal(got.text, c.want);
    assert.deepEqual(got.added, c.added);
  });
}
