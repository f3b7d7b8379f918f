/**
 * init-py-tests.ts: the handler tests `kopfgen init --target kopf` writes, from a stub module's
 * text (given/want). The whole module for the example CRD is a golden, in
 * test/cli/kopf-target.test.ts, where pyright strict also reads it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pyHandlerTestFile } from '../../src/cli/init-py-tests.js';

const HEAD = `from typing import Any, Optional

import kopf

from generated.example_com.v1.widgets import WidgetMain, WidgetSpec, WidgetStatus
`;

/** A stub as stub_handler.py renders it: decorator, signature, docstring, body. */
function stub(decorator: string, fn: string, result: string, sync = false): string {
  return `

@WidgetMain.${decorator}
${sync ? '' : 'async '}def ${fn}(
    spec: WidgetSpec,
    status: WidgetStatus,
    patch: kopf.Patch,
    logger: kopf.Logger,
    **_: Any,
) -> Optional[dict]:
    """
    Handler \`main\`.
    """
    logger.info("not implemented yet")
    ${result}
`;
}

const cases: { name: string; given: { text: string; module: string }; want: RegExp[] | undefined }[] = [
  {
    name: 'an async create stub returning a status: called with reason create, its status expected',
    given: {
      text: HEAD + stub('on_create()', 'main_on_create', 'return {"phase": "NotImplemented"}'),
      module: 'kinds.widgets',
    },
    want: [
      /^from generated\.example_com\.v1\.widgets import GROUP, KIND, PLURAL, VERSION$/m,
      /^from kinds import widgets$/m,
      /^class WidgetsHandlers\(unittest\.IsolatedAsyncioTestCase\):$/m,
      /^ {8}result = await call\(widgets\.main_on_create, "create", \{\}\)\n {8}self\.assertEqual\(result, \{"phase": "NotImplemented"\}\)$/m,
    ],
  },
  {
    name: 'a sync delete stub returning nothing: reason delete, None expected',
    given: { text: HEAD + stub('on_delete()', 'main_on_delete', 'return', true), module: 'kinds.widgets' },
    want: [/^ {8}result = await call\(widgets\.main_on_delete, "delete", \{\}\)\n {8}self\.assertIsNone\(result\)$/m],
  },
  {
    name: 'a stub module at the root: imported by its name',
    given: { text: HEAD + stub('on_resume()', 'main_on_resume', 'return None'), module: 'widgets' },
    want: [/^import widgets$/m, /"resume"/, /self\.assertIsNone\(result\)/],
  },
  {
    name: 'a timer stub only (inputs a test cannot guess): no test module',
    given: { text: HEAD + stub('timer()', 'main_timer', 'return None'), module: 'kinds.widgets' },
    want: undefined,
  },
  {
    name: 'a stub whose last statement is no return (the user changed it): no test for it',
    given: { text: HEAD + stub('on_create()', 'main_on_create', 'pass'), module: 'kinds.widgets' },
    want: undefined,
  },
];

for (const c of cases)
  test(c.name, () => {
    const got = pyHandlerTestFile({ path: 'widgets.py', content: c.given.text, role: 'stub' }, c.given.module);
    if (c.want === undefined) return assert.equal(got, undefined);
    assert.ok(got, 'a test module');
    assert.equal(got.path, 'tests/test_widgets.py');
    for (const pattern of c.want) assert.match(got.content, pattern);
  });
