/**
 * overlap-runtime/durable: eager tools that survive crashes and run on many instances. The
 * dialect-neutral stores (conversations with versioned writes, round journal, tool ledger, turn
 * leases, resumable turn event logs) and {@link DurableAgentHost}, which runs a chat's turn with
 * them. Open a store with `overlap-runtime/postgres` (`openPostgresStore`) or
 * `overlap-runtime/sqlite` (`openSqliteStore`); see docs/durable.md.
 */

export {
  DurableAgentHost,
  type DurableAgentHostOptions,
  type DurableTurn,
  type DurableTurnInfo,
  type DurableTurnRequest,
  type DurableTurnResult,
  notRunText,
  TurnRunningError,
  unknownOutcomeText,
} from "./durable-agent-host.js";
export {
  DurableConversationStore,
  type DurableWriteOptions,
  type VersionedConversation,
} from "./durable-conversation-store.js";
export { durableHolderId, holderIsGone, idempotencyKeyOf } from "./durable-identity.js";
export { DurableRoundJournal, type JournaledCall } from "./durable-round-journal.js";
export {
  DURABLE_SCHEMA_VERSION,
  type DurableTables,
  durableTables,
  migrateDurableSchema,
} from "./durable-schema.js";
export {
  type DurableCallRecord,
  type DurableEffects,
  DurableStore,
  type DurableStoreOptions,
  type RecoveredConversation,
  type RecoverOptions,
} from "./durable-store.js";
export { DurableToolLedger } from "./durable-tool-ledger.js";
export {
  DurableTurnEvents,
  type DurableTurnEventsOptions,
  parseEventId,
  type TurnEventWriter,
} from "./durable-turn-events.js";
export {
  DurableTurnLeases,
  type LeaseClaim,
  type LeaseClaimResult,
  type LeaseRenewal,
  type TurnLease,
  TurnLeaseLostError,
} from "./durable-turn-leases.js";
export type { PrunedTurns, PruneEndedTurnsOptions } from "./prune-ended-turns.js";
export {
  checkTablePrefix,
  lockInTransaction,
  type SqlDialect,
  type SqlDriver,
  type SqlExecutor,
  type SqlResult,
} from "./sql-driver.js";
export { TURN_CRASHED_MESSAGE, TURN_LOG_EXPIRED_MESSAGE } from "./turn-log-endings.js";
