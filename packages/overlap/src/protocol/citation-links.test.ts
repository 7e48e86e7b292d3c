import { describe, expect, it } from "vitest";
import { citationLinks } from "./citation-links.js";

describe("citationLinks", () => {
  it("reads every adapter's citation shape as one link per page, in the order first cited", () => {
    const links = citationLinks([
      {
        type: "web_search_result_location",
        url: "https://a.example/1",
        title: "A",
        cited_text: "light and grippy",
        encrypted_index: "Eq",
      },
      { type: "url_citation", url: "https://b.example/2", title: "B", start_index: 0 },
      { type: "gemini_grounding", url: "https://c.example/3", title: "c.example" },
      {
        type: "bedrock_citation",
        title: "D",
        sourceContent: [{ text: "quoted" }],
        location: { web: { url: "https://d.example/4", domain: "d.example" } },
      },
      {
        type: "ai_sdk_citation",
        provider: "anthropic",
        citation: { type: "web_search_result_location", url: "https://e.example/5", title: "E" },
      },
      // The same page again: listed once.
      { type: "url_citation", url: "https://a.example/1", title: "A again" },
    ]);
    expect(links).toEqual([
      { url: "https://a.example/1", title: "A", citedText: "light and grippy" },
      { url: "https://b.example/2", title: "B" },
      { url: "https://c.example/3", title: "c.example" },
      { url: "https://d.example/4", title: "D", citedText: "quoted" },
      { url: "https://e.example/5", title: "E" },
    ]);
  });

  it("leaves out what names no web page: documents, files, other schemes, junk", () => {
    expect(
      citationLinks([
        { type: "char_location", document_title: "Doc", cited_text: "x", start_char_index: 0 },
        { type: "file_citation", file_id: "file_1", filename: "a.pdf" },
        { type: "url_citation", url: "javascript:alert(1)", title: "bad" },
        { type: "url_citation", url: "   " },
        null,
        "https://not-an-object.example",
        [],
      ]),
    ).toEqual([]);
    expect(citationLinks(undefined)).toEqual([]);
    expect(citationLinks(null)).toEqual([]);
  });
});
