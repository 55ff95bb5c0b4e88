/** Errors a user can act on. The CLI prints `message` as one line and exits with `exitCode`. */
export class BeebotError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
    this.name = 'BeebotError';
  }
}

/** Wrong arguments or input: exit 2, nothing written. */
export class UsageError extends BeebotError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}
