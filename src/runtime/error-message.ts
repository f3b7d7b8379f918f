/**
 * The message of anything thrown, for log lines and diagnostics: an Error's message (its name when
 * the message is empty), else the value as text. `catch` binds `unknown`; one helper reads it, so
 * no call site casts the caught value to `Error`.
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
