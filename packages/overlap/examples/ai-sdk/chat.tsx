"use client";
// app/chat.tsx: the chat on the page, with the AI SDK's useChat (it posts to /api/chat).
import { useChat } from "@ai-sdk/react";
import type { UIMessage } from "ai";
import { useState } from "react";

export function Chat({ id, initialMessages }: { id: string; initialMessages: UIMessage[] }) {
  // `initialMessages`: the stored chat (`toUIMessages`), for a page that reloads it.
  const { messages, sendMessage, status, stop, error } = useChat({ id, messages: initialMessages });
  const [input, setInput] = useState("");
  return (
    <div>
      {messages.map((message) => (
        <div key={message.id}>
          {message.parts.map((part, i) => {
            const key = `${message.id}:${i}`;
            if (part.type === "text") return <p key={key}>{part.text}</p>;
            // A call shows as soon as it starts, its output (the tool's object) after it ran.
            if (part.type === "tool-get_weather") {
              const shown = part.state === "output-available" ? JSON.stringify(part.output) : "…";
              return <pre key={key}>get_weather: {shown}</pre>;
            }
            return null;
          })}
        </div>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input value={input} onChange={(event) => setInput(event.target.value)} />
        {status === "streaming" || status === "submitted" ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
      </form>
    </div>
  );
}
