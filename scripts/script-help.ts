// A script's --help: its opening comment (its usage and what it prints), the one text a reader of
// the source and a user at the terminal both read, so it cannot drift from a copy. Comments stay
// in the compiled file (tsconfig keeps them).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `--help` or `-h` among the arguments of the script run (not of one that imports this module):
 * print the script's opening comment and exit 0.
 */
export function helpFromHeader(moduleUrl: string, argv = process.argv.slice(2)): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  console.log(openingComment(readFileSync(fileURLToPath(moduleUrl), 'utf8')));
  process.exit(0);
}

/** A script's options it could not read: one line saying so and where the options are, exit 2 (no stack trace). */
export function optionsOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    console.error(`${(err as Error).message} (--help lists the options)`);
    process.exit(2);
  }
}

/** The text of a file's opening comment: its leading `//` lines, or its first `/** … *\/` block. */
export function openingComment(source: string): string {
  const lines = source.split('\n');
  if (lines[0]?.startsWith('/**')) {
    const end = lines.findIndex((l) => l.includes('*/'));
    return lines.slice(1, end).map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim();
  }
  const out: string[] = [];
  for (const l of lines) {
    if (!l.startsWith('//')) break;
    out.push(l.replace(/^\/\/ ?/, ''));
  }
  return out.join('\n').trim();
}
