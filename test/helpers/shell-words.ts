// How the docs test reads the shell examples of a Markdown page: its fenced blocks, their lines
// (a trailing `\` joins the next), a line's commands with what separates them, and their words.

export interface Block { lang: string; firstLine: number; lines: string[] }

/** The fenced code blocks of a Markdown text, with the line number of their first line. */
export function codeBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let open: Block | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence && open === undefined) open = { lang: fence[1]!, firstLine: i + 2, lines: [] };
    else if (fence && open !== undefined) {
      blocks.push(open);
      open = undefined;
    } else open?.lines.push(line);
  });
  return blocks;
}

/** The lines of a block as the shell reads them: a line ending in `\` goes on with the next. */
export function shLines(block: Block): { n: number; text: string }[] {
  const lines: { n: number; text: string }[] = [];
  block.lines.forEach((l, k) => {
    const prev = lines[lines.length - 1];
    if (prev !== undefined && prev.text.endsWith('\\')) prev.text = prev.text.slice(0, -1) + ' ' + l;
    else lines.push({ n: block.firstLine + k, text: l });
  });
  return lines;
}

/** Shell words of one command (quotes removed); a `#` comment ends it. */
export function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      cur += line.slice(i + 1, end < 0 ? line.length : end);
      has = true;
      i = end < 0 ? line.length : end;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else if (c === '#' && !has) break;
    else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** A simple command and what follows it: `&&`, `||`, `;`, `|`, `&` (in the background) or nothing. */
export interface Step { words: string[]; then: string }

/** One `sh` line split into simple commands at `&&`, `||`, `;`, `|` and `&` (outside quotes); its `#` comment dropped. */
export function shellSteps(line: string): Step[] {
  const steps: Step[] = [];
  let cur = '';
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
      cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      cur += c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break;
    else if (c === '&' || c === '|' || c === ';') {
      const then = line[i + 1] === c ? c + c : c;
      steps.push({ words: words(cur), then });
      cur = '';
      i += then.length - 1;
    } else cur += c;
  }
  steps.push({ words: words(cur), then: '' });
  return steps.filter((s) => s.words.length > 0);
}

export const simpleCommands = (line: string): string[][] => shellSteps(line).map((s) => s.words);

/** The `#` comment of a line (outside quotes), or ''. */
export function lineComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(i + 1).trim();
  }
  return '';
}
