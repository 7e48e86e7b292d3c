/**
 * A tool the model's provider ran (web search, code execution): its own chip, never confused with
 * the shop's tools. The shopper reads what it did ("Searched the web: 6 results", the query on
 * hover); the developer view shows the tool's name and where it ran.
 */

import type { ServerToolItem } from "overlap-runtime/client";
import { Icon } from "../ui/Icon";
import { providerToolKind, providerToolWords, searchQuery } from "./provider-tool-words";
import { useChatView } from "./view-context";

export function ProviderToolChip({ item }: { item: ServerToolItem }) {
  const { developer, lang } = useChatView();
  const done = item.hasResult;
  const kind = providerToolKind(item.name);
  const query = kind === "web-search" ? searchQuery(item.input) : undefined;
  return (
    <div className="chip-row">
      <span
        className={`tool-chip tool-chip-static provider-tool-chip${developer ? " tool-chip-dev" : ""}`}
        data-testid="provider-tool-chip"
        data-tool={item.name}
        data-phase={done ? "done" : "running"}
        title={query}
      >
        <span className="chip-icon">
          <Icon name={kind === "code" ? "code" : "spark"} size={14} />
        </span>
        {developer ? (
          <>
            <span className="chip-name">{item.name}</span>
            <span className="chip-state">{done ? "provider result" : "at the provider"}</span>
            {query !== undefined && <span className="chip-state">“{query}”</span>}
          </>
        ) : (
          <span className="chip-text">{providerToolWords(item, lang)}</span>
        )}
      </span>
    </div>
  );
}
