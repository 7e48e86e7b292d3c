import { registerDurableHostSuite } from "./durable-agent-host.testkit.js";
import {
  registerConversationConformance,
  registerDurableStoreSuite,
} from "./durable-store-suite.testkit.js";
import { sqliteHarness } from "./sqlite-harness.testkit.js";

registerConversationConformance(
  "durable stores on SQLite: the ConversationStore and ToolLedger contract",
  async () => {
    const harness = await sqliteHarness();
    const store = await harness.open();
    return {
      conversations: store.conversations,
      ledger: (chatId) => store.ledger(chatId),
      dispose: () => harness.dispose(),
    };
  },
);
registerDurableStoreSuite("durable stores on SQLite", sqliteHarness);
registerDurableHostSuite("DurableAgentHost on SQLite", sqliteHarness);
