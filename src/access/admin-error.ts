/** An operator's mistake the CLI reports as a sentence, with exit code 2 (cli/main.ts). */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}
