/**
 * The Python token scan: given/want tables for the tokenizer (what is a string, a comment, a
 * logical line) and for the facts read from the tokens (imports with aliases and positions,
 * registrations, top-level names). A registration in a string or a comment is none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pyTokens, scanPyFile } from '../../src/stubs/py-scan.js';

/** The tokens as `kind:text`, newlines as `⏎`. */
function tokens(text: string): string[] {
  return pyTokens(text).map((t) => (t.kind === 'newline' ? '⏎' : `${t.kind}:${t.text}`));
}

describe('tokens', () => {
  const cases: [string, string, string[]][] = [
    ['names and operators', 'a.b(c)\n', ['name:a', 'op:.', 'name:b', 'op:(', 'name:c', 'op:)', '⏎']],
    ['a comment is nothing', 'a # b.on_create(\n', ['name:a', '⏎']],
    ['a hash in a string is no comment', 'x = "#" + y\n', ['name:x', 'op:=', 'string:"#"', 'op:+', 'name:y', '⏎']],
    ['escaped quote', String.raw`"a\"b" c` + '\n', [String.raw`string:"a\"b"`, 'name:c', '⏎']],
    [
      'raw string keeps a quote after a backslash',
      String.raw`r"\"" c` + '\n',
      [String.raw`string:r"\""`, 'name:c', '⏎'],
    ],
    ['prefixes', "rb'x' Rb'y' f'z' u'w'\n", ["string:rb'x'", "string:Rb'y'", "string:f'z'", "string:u'w'", '⏎']],
    ['a name ending like a prefix is a name', 'bar"x"\n', ['name:bar', 'string:"x"', '⏎']],
    [
      'triple quotes span lines and hold single quotes',
      '"""a\n"b" \'c\'\nX.on_create("""\nz\n',
      ['string:"""a\n"b" \'c\'\nX.on_create("""', '⏎', 'name:z', '⏎'],
    ],
    ['triple single quotes', "'''x''' y\n", ["string:'''x'''", 'name:y', '⏎']],
    [
      'f-string fields may hold strings with the same quotes (3.12)',
      'f"{d["k"]}" z\n',
      ['string:f"{d["k"]}"', 'name:z', '⏎'],
    ],
    ['f-string doubled braces are text', 'f"{{x" z\n', ['string:f"{{x"', 'name:z', '⏎']],
    ['f-string format spec with a nested field', 'f"{x:{w}}" z\n', ['string:f"{x:{w}}"', 'name:z', '⏎']],
    [
      'brackets join lines',
      'f(a,\n  b)\nc\n',
      ['name:f', 'op:(', 'name:a', 'op:,', 'name:b', 'op:)', '⏎', 'name:c', '⏎'],
    ],
    ['a backslash continues the line', 'a = \\\n  b\nc\n', ['name:a', 'op:=', 'name:b', '⏎', 'name:c', '⏎']],
    ['blank and comment lines make no newline', '\n# x\n\na\n', ['name:a', '⏎']],
    ['CRLF line ends', 'a\r\nb\r\n', ['name:a', '⏎', 'name:b', '⏎']],
    ['an unterminated string ends at its line', '"abc\nd\n', ['string:"abc', '⏎', 'name:d', '⏎']],
    [
      'numbers',
      'x = 1e-5 + 0x1F + 2j\n',
      ['name:x', 'op:=', 'number:1e-5', 'op:+', 'number:0x1F', 'op:+', 'number:2j', '⏎'],
    ],
    ['no final newline', 'a', ['name:a', '⏎']],
    [
      'a byte-order mark is no part of the first name',
      '\ufefffrom x import y\n',
      ['name:from', 'name:x', 'name:import', 'name:y', '⏎'],
    ],
  ];
  for (const [name, given, want] of cases) it(name, () => assert.deepEqual(tokens(given), want));
});

const FILE = [
  'from typing import Any, Optional',
  'import kopf',
  'from generated.example_com.v1.myresources import (',
  '    MyResourceMyapp as App,',
  '    MyResourceSpec,',
  ')',
  'import generated.example_com.v1.databases as dbs',
  'url = "http://x"  # MyResourceGone.on_create(',
  '"""MyResourceGone.on_update()"""',
  '',
  '',
  '@App.on_create()',
  'async def create(spec: MyResourceSpec, **_: Any) -> None:',
  '    s = "X.on_resume("',
  '',
  '',
  '@dbs.DatabaseBackup.timer(interval=60)',
  'def tick(**_: Any) -> None:',
  '    pass',
  '',
  'MyResourceOther . on_field (field="spec.x")(tick)',
  'something.on_createx(); helper.ontimer()',
  'class Helper:',
  '    inner: int = 1',
  '',
].join('\n');

describe('scan', () => {
  const scan = scanPyFile(FILE);
  it('imports, positioned at each name; aliases kept', () => {
    assert.deepEqual(
      scan.imports.map((i) => [i.module, i.name, i.local, i.line, i.col]),
      [
        ['typing', 'Any', 'Any', 1, 20],
        ['typing', 'Optional', 'Optional', 1, 25],
        ['generated.example_com.v1.myresources', 'MyResourceMyapp', 'App', 4, 5],
        ['generated.example_com.v1.myresources', 'MyResourceSpec', 'MyResourceSpec', 5, 5],
      ],
    );
    assert.deepEqual(
      scan.moduleImports.map((m) => [m.module, m.local]),
      [
        ['kopf', 'kopf'],
        ['generated.example_com.v1.databases', 'dbs'],
      ],
    );
  });
  it('registrations: through aliases and module attributes; none in strings or comments', () => {
    assert.deepEqual(
      scan.registrations.map((r) => [r.definition, r.method, r.line, r.col]),
      [
        ['MyResourceMyapp', 'on_create', 12, 2],
        ['DatabaseBackup', 'timer', 17, 6],
        ['MyResourceOther', 'on_field', 21, 1],
      ],
    );
  });
  it('top-level names: functions, classes, assignments, imports; not what is indented', () => {
    assert.deepEqual([...scan.declared].sort(), [
      'Any',
      'App',
      'Helper',
      'MyResourceSpec',
      'Optional',
      'create',
      'dbs',
      'kopf',
      'tick',
      'url',
    ]);
  });
  it('identifiers are names in code only', () => {
    assert.equal(scan.identifiers.has('MyResourceGone'), false);
    assert.equal(scan.identifiers.has('MyResourceOther'), true);
  });
  it('the first statement that is neither an import nor a docstring', () => {
    assert.equal(FILE.slice(scan.firstStatement, scan.firstStatement + 3), 'url');
  });
  it('a parenthesised import with a trailing comma is known as such', () => {
    const s = scan.fromImports[1];
    assert.deepEqual([s.parenthesized, s.trailingComma, s.topLevel], [true, true, true]);
    assert.deepEqual([scan.fromImports[0].parenthesized, scan.fromImports[0].trailingComma], [false, false]);
  });
  it('relative imports keep their dots; an indented import is not top-level', () => {
    const rel = scanPyFile('if True:\n    from ..generated.x import (A as B)\n');
    assert.deepEqual(
      rel.fromImports.map((s) => [s.module, s.names.map((n) => `${n.name}>${n.local}`), s.topLevel]),
      [['..generated.x', ['A>B'], false]],
    );
    assert.equal(rel.declared.has('B'), false);
  });
});
