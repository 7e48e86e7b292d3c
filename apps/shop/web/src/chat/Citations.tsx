/**
 * The web pages a reply's text cites, as links right under that text (its `citations` event):
 * the page's title, and its site so the shopper sees where a link goes before following it.
 * Links open in a new tab, without handing the shop's page to the site.
 */

import type { CitationLink } from "overlap-runtime/client";
import { pick } from "../i18n/lang";
import "./citations.css";
import { useChatView } from "./view-context";

function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

export function Citations({ links }: { links: readonly CitationLink[] }) {
  const { lang } = useChatView();
  if (links.length === 0) return null;
  const label = pick(lang, "Sources", "来源");
  return (
    <nav className="citations" aria-label={label} data-testid="citations">
      <span className="citations-label">{label}</span>
      <ol>
        {links.map((link) => {
          const site = siteOf(link.url);
          return (
            <li key={link.url}>
              <a
                href={link.url}
                target="_blank"
                rel="noopener noreferrer"
                title={link.citedText}
                data-testid="citation-link"
              >
                <span className="citation-title">{link.title ?? site}</span>
                {link.title !== undefined && link.title !== site && (
                  <span className="citation-site">{site}</span>
                )}
              </a>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
