/** Whether a database argument names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (s: string): boolean => /^postgres(ql)?:\/\//i.test(s);

/** The URL without its password, for messages. */
export function showUrl(s: string): string {
  if (!isPostgresUrl(s)) return s;
  try {
    const u = new URL(s);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return s;
  }
}
