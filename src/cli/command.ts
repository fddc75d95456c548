/** What an `mds` command declares (src/cli/table.ts lists them) and what it is given to run. */
import type { Output } from './output.js';

export type OptionSpec = { type: 'string' | 'boolean'; short?: string };

export interface Command {
  /** Words that name it, e.g. ['keys', 'create']. */
  name: string[];
  usage: string;
  options?: Record<string, OptionSpec>;
  /** How many positionals follow the name. */
  positionals?: { min: number; max: number };
  /** It may create the store it names (serve, init, migrate, seed sample); every other command refuses a missing one. */
  createsStore?: true;
  run(ctx: CommandContext): Promise<void>;
}

export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  out: Output;
  /** --db, or MDS_DATABASE_URL (checked by src/config.ts); undefined: the embedded default. */
  databaseUrl: string | undefined;
  /** MDS_PLANS_FILE; undefined: config/plans.json. */
  plansFile: string | undefined;
}
