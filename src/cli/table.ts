/**
 * The command table: every `mds` command, in the order `mds --help` lists
 * them. A new command is a module in commands/ exporting a `Command`, added here.
 */
import type { Command } from './command.js';
import { accessCommands } from './commands/access.js';
import { adminTokenCommands } from './commands/admin-tokens.js';
import { auditCommand } from './commands/audit.js';
import { backupCommand } from './commands/backup.js';
import { consensusCommands } from './commands/consensus.js';
import { importCommand, officialBoaCommand } from './commands/import.js';
import { importsCommands } from './commands/imports.js';
import { initCommand } from './commands/init.js';
import { keyCommands } from './commands/keys.js';
import { migrateCommand } from './commands/migrate.js';
import { observationCommands } from './commands/observations.js';
import { reporterCommands } from './commands/reporters.js';
import { seedCommand } from './commands/seed.js';
import { serveCommand } from './commands/serve.js';
import { simulateCommand } from './commands/simulate.js';
import { webhookCommands } from './commands/webhooks.js';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  initCommand,
  importCommand,
  officialBoaCommand,
  ...importsCommands,
  ...observationCommands,
  seedCommand,
  backupCommand,
  ...accessCommands,
  ...keyCommands,
  ...webhookCommands,
  ...reporterCommands,
  ...consensusCommands,
  ...adminTokenCommands,
  simulateCommand,
  auditCommand,
];
