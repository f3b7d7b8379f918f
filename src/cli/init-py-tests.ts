/**
 * The unit tests `kopfgen init --target kopf` scaffolds for the handler stubs it generated: one
 * module per stub module (`tests/test_<module>.py`), one test per stub function, each calling the
 * handler with the keyword arguments kopf passes it (kopf's decorators return the function as it
 * is, so the module's name still calls it) and expecting what the stub returns. They pass on the
 * stubs and fail, naming the handler, once a handler does something else; Python's own unittest
 * runs them (`npm test`), so the project needs nothing beyond kopf. The TypeScript target's
 * counterpart is init-tests.ts. Pure text in, text out: the stub module as kopfgen's stub
 * template writes it (stub_handler.py).
 */
import type { GeneratedFile } from '../api.js';

/** kopf's `reason` for each decorator a test can call a stub of; a field, timer or daemon stub needs inputs a test cannot guess. */
const REASONS: Record<string, string> = {
  on_create: 'create',
  on_update: 'update',
  on_resume: 'resume',
  on_delete: 'delete',
};

/**
 * The module's `call`: a handler called with every keyword argument kopf passes a change handler
 * (kopf 1.38's `callbacks.ChangingFn`, which the shim's `ChangingFn` types), made of kopf's own
 * objects over one object of the resource; sync or async, as kopf calls either.
 */
const CALL = `async def call(handler: Callable[..., Any], reason: str, spec: Dict[str, Any]) -> Any:
    """handler called as kopf calls a change handler, on an object of the resource with spec."""
    metadata = {"name": "test", "namespace": "default", "uid": "00000000-0000-0000-0000-000000000000"}
    body = kopf.Body({"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec})
    result = handler(
        body=body,
        spec=body.spec,
        status=body.status,
        meta=body.meta,
        patch=kopf.Patch(),
        logger=LOGGER,
        retry=0,
        started=datetime.datetime.now(datetime.timezone.utc),
        runtime=datetime.timedelta(0),
        reason=reason,
        diff=kopf.Diff([]),
        old=None,
        new=None,
        annotations=body.metadata.annotations,
        labels=body.metadata.labels,
        resource=kopf.Resource(GROUP, VERSION, PLURAL),
        uid=body.metadata.uid,
        name=body.metadata.name,
        namespace=body.metadata.namespace,
        memo=kopf.Memo(),
        param=None,
    )
    return await result if inspect.isawaitable(result) else result
`;

/**
 * The test module of `stub` (a Python stub module as generated), or undefined when it has no stub
 * function a test can call. `module`: the stub's dotted module path from the project's root
 * (`kinds.myresources`), which is also where `python -m unittest` imports it from.
 */
export function pyHandlerTestFile(stub: GeneratedFile, module: string): GeneratedFile | undefined {
  const text = stub.content;
  const name = module.slice(module.lastIndexOf('.') + 1);
  const tests: string[] = [];
  const definitions = new Set<string>();
  const pattern =
    /^@(\w+)\.(\w+)\(\)\n(?:async )?def (\w+)\([\s\S]*?\n\) -> [^\n]*:\n([\s\S]*?)(?=\n\n\n|\n*(?![\s\S]))/gm;
  for (const m of text.matchAll(pattern)) {
    const [, definition, decorator, fn, body] = m;
    const reason = REASONS[decorator];
    const returned = /\n {4}return(?: (.+))?\s*$/.exec(body);
    if (reason === undefined || returned === null) continue;
    definitions.add(definition);
    const expectation =
      returned[1] === undefined || returned[1] === 'None'
        ? 'self.assertIsNone(result)'
        : `self.assertEqual(result, ${returned[1]})`;
    tests.push(
      `    async def test_${fn}(self) -> None:\n` +
        `        result = await call(${name}.${fn}, "${reason}", {})\n` +
        `        ${expectation}\n`,
    );
  }
  // The generated module the stub imports its handler definitions from (a name or a parenthesised list).
  const generated = [...text.matchAll(/^from ([\w.]+) import (\([^)]*\)|.*)$/gm)].find((i) =>
    [...definitions].every((d) => new RegExp(`\\b${d}\\b`).test(i[2])),
  )?.[1];
  if (tests.length === 0 || generated === undefined) return undefined;
  const source = `${module.replace(/\./g, '/')}.py`;
  const className = `${name.replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase())}Handlers`;
  const content =
    `"""\n` +
    `Unit tests of the handlers in ${source}, scaffolded by kopfgen init: each calls a\n` +
    `handler as kopf calls it, with every keyword argument kopf passes, without a cluster, and\n` +
    `expects what the stub returns. They pass on the stubs: change the expectations, and give the\n` +
    `object the spec your handler reads, as you write the handlers. \`npm test\` runs them\n` +
    `(Python's unittest; kopf installed: pip install -r requirements.txt).\n` +
    `"""\n\n` +
    `import datetime\n` +
    `import inspect\n` +
    `import logging\n` +
    `import unittest\n` +
    `from typing import Any, Callable, Dict\n\n` +
    `import kopf\n\n` +
    `from ${generated} import GROUP, KIND, PLURAL, VERSION\n` +
    `${module.includes('.') ? `from ${module.slice(0, module.lastIndexOf('.'))} import ${name}` : `import ${name}`}\n\n` +
    `API_VERSION = f"{GROUP}/{VERSION}" if GROUP else VERSION\n` +
    `LOGGER = logging.getLogger("tests")\n\n\n` +
    CALL +
    `\n\nclass ${className}(unittest.IsolatedAsyncioTestCase):\n` +
    tests.join('\n') +
    `\n\nif __name__ == "__main__":\n    unittest.main()\n`;
  return { path: `tests/test_${name}.py`, content, role: 'stub' };
}
