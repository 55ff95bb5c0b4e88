/** The system's reasons a file could not be read, in the words of `ls` and `cat`. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a folder on its path is a file',
  ELOOP: 'too many symbolic links',
};

/** "cannot read <file>: <why>", the one line a command says of a file given to it that it cannot read. */
export function cannotRead(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  return `cannot read ${file}: ${(code !== undefined && REASONS[code]) || code || (err as Error).message}`;
}
