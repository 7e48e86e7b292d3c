import { InMemoryConversationStore } from "../agent/conversation-store.js";
import { InMemoryToolLedger } from "../dispatch/tool-ledger.js";
import { registerConversationConformance } from "./durable-store-suite.testkit.js";

// The in-memory stores keep the same contract as the durable ones, where they have it.
registerConversationConformance(
  "in-memory stores: the ConversationStore and ToolLedger contract",
  async () => {
    const conversations = new InMemoryConversationStore();
    const ledgers = new Map<string, InMemoryToolLedger>();
    return {
      conversations,
      ledger: (chatId) => {
        let ledger = ledgers.get(chatId);
        if (!ledger) {
          ledger = new InMemoryToolLedger();
          ledgers.set(chatId, ledger);
        }
        return ledger;
      },
      dispose: async () => {},
    };
  },
);
