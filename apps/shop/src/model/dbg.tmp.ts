import { type AgentEvent, type Message, runAgentTurn } from "overlap-runtime";
import { createShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import { modelFromEnv } from "./model-from-env.js";
import { shopPolicy } from "./shop-policy.js";

const shop = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: { fast: true } });
const store = await openStore({ sqliteFile: ":memory:" });
const agents = createShopAgents({ store, model: shop.model });
const { id } = await store.createSession("shopper");
for (const say of process.argv.slice(2)) {
  const history = await store.conversations.load(id);
  const messages: Message[] = [...history, { role: "user", content: say }];
  const events: AgentEvent[] = [];
  const r = await runAgentTurn({
    model: shop.model,
    executor: agents.shopper.executor(id),
    system: agents.shopper.system,
    agent: "shopper",
    messages,
    sink: (e) => events.push(e),
    ledger: store.ledger(id),
    approvals: { wait: async () => ({ approve: true }) },
  });
  await store.conversations.write(id, 0, r.messages);
  console.log("=== " + say);
  for (const m of r.messages.slice(messages.length))
    console.log(m.role, JSON.stringify(m.content).slice(0, 600));
  for (const e of events)
    if (e.type === "tool-call")
      console.log("  call", e.parentCallId ? "(inner)" : "", e.name, JSON.stringify(e.input));
}
await store.close();
await shop.close();
