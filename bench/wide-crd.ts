/**
 * A CRD whose `spec` has many properties, for the sections that need one wide schema: `field(i)`
 * gives property `i`'s lines (indented under `spec.properties`), added while `more(i, bytes)` holds.
 */
export function wideCrd(field: (i: number) => string, more: (i: number, bytes: number) => boolean): string {
  const head = [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata: { name: wides.bench.kopfgen.dev }',
    'spec:',
    '  group: bench.kopfgen.dev',
    '  scope: Namespaced',
    '  names: { kind: Wide, plural: wides }',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      schema:',
    '        openAPIV3Schema:',
    '          type: object',
    '          properties:',
    '            spec:',
    '              type: object',
    '              properties:',
    '',
  ].join('\n');
  const parts = [head];
  let bytes = head.length;
  for (let i = 0; more(i, bytes); i++) {
    const lines = `${field(i)}\n`;
    parts.push(lines);
    bytes += lines.length;
  }
  return parts.join('');
}
