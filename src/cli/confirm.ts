import { createInterface } from 'node:readline/promises';

/** Ask a yes/no question on the terminal; off a terminal the answer is no (scripts pass --yes). */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
