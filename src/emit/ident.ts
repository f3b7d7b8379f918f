/** Property names as TypeScript sees them: identifiers stay bare, anything else is quoted. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}
