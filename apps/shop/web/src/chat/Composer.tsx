/**
 * The message box. Enter sends (Shift+Enter is a new line; Enter that confirms an input-method
 * composition, as when typing Chinese, does not send). While a reply is being written the box is
 * disabled and Send becomes Stop.
 */

import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Icon, Spinner } from "../ui/Icon";

/** The server's limit, in characters as people count them. */
const MAX_CHARS = 4_000;

export function Composer({
  running,
  stopping,
  onSend,
  onStop,
  placeholder,
}: {
  running: boolean;
  stopping: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  placeholder: string;
}) {
  const [text, setText] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);
  const length = [...text].length;
  const tooLong = length > MAX_CHARS;
  const canSend = !running && text.trim() !== "" && !tooLong;

  // Grow with the text, up to a few lines.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the text changes
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 160)}px`;
  }, [text]);

  // Back to the box when a reply ends (the disabled box lost the focus).
  useEffect(() => {
    if (!running && document.activeElement === document.body) input.current?.focus();
  }, [running]);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    onSend(text);
    setText("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  };

  return (
    <form className="composer" onSubmit={submit} aria-label="Send a message">
      <div className={`composer-box${running ? " is-running" : ""}`}>
        <textarea
          ref={input}
          className="composer-input"
          aria-label="Message"
          placeholder={running ? "The assistant is replying…" : placeholder}
          value={text}
          rows={1}
          disabled={running}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          // biome-ignore lint/a11y/noAutofocus: the message box is the page's main control
          autoFocus
        />
        {running ? (
          <button
            type="button"
            className="btn btn-stop"
            onClick={onStop}
            disabled={stopping}
            aria-label="Stop the reply"
          >
            {stopping ? <Spinner size={14} /> : <Icon name="stop" size={14} />}
            <span>{stopping ? "Stopping" : "Stop"}</span>
          </button>
        ) : (
          <button
            type="submit"
            className="btn btn-primary btn-send"
            disabled={!canSend}
            aria-label="Send message"
          >
            <Icon name="send" size={15} />
            <span>Send</span>
          </button>
        )}
      </div>
      <div className="composer-hint" aria-live="polite">
        {tooLong ? (
          <span className="text-danger">
            {length.toLocaleString()} / {MAX_CHARS.toLocaleString()} characters: too long to send.
          </span>
        ) : (
          <span>
            <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
          </span>
        )}
      </div>
    </form>
  );
}
