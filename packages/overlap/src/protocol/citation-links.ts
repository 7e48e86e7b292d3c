/**
 * The web pages a text block cites, in one shape whatever provider wrote the citations, for a
 * page to show as links (the `citations` event). Pure; it reads the citation shapes the adapters
 * keep and leaves out what names no web page (a document's character range, a file).
 */

/** One cited web page. */
export interface CitationLink {
  /** The page's address (http or https). */
  url: string;
  /** The page's title as the provider gave it (Gemini gives the domain); absent when none. */
  title?: string;
  /** The passage of the page the text rests on, when the provider quoted it. */
  citedText?: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v : undefined;

/** The page one citation names, or undefined (see the module comment). */
function linkOf(citation: unknown): CitationLink | undefined {
  if (!isObject(citation)) return undefined;
  // A citation an AI SDK provider reported: the provider's own shape inside.
  if (citation.type === "ai_sdk_citation") return linkOf(citation.citation);
  const web =
    isObject(citation.location) && isObject(citation.location.web)
      ? citation.location.web
      : undefined;
  // Messages API `web_search_result_location`, Responses `url_citation`, Gemini grounding
  // (`url`), Bedrock (`location.web.url`), Chat Completions (`url_citation.url`).
  const nested = isObject(citation.url_citation) ? citation.url_citation : undefined;
  const url = text(citation.url) ?? text(web?.url) ?? text(nested?.url) ?? text(citation.uri);
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined;
  const link: CitationLink = { url };
  const title = text(citation.title) ?? text(nested?.title);
  if (title !== undefined) link.title = title;
  const quoted = text(citation.cited_text) ?? sourceText(citation.sourceContent);
  if (quoted !== undefined) link.citedText = quoted;
  return link;
}

/** Bedrock's `sourceContent: [{ text }]`, joined. */
function sourceText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  return text(
    content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join(" "),
  );
}

/** Each web page the citations name, once, in the order first cited. */
export function citationLinks(citations: readonly unknown[] | null | undefined): CitationLink[] {
  const links: CitationLink[] = [];
  const seen = new Set<string>();
  for (const citation of citations ?? []) {
    const link = linkOf(citation);
    if (link === undefined || seen.has(link.url)) continue;
    seen.add(link.url);
    links.push(link);
  }
  return links;
}
