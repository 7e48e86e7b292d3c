/**
 * The message box. Enter sends (Shift+Enter is a new line; Enter that confirms an input-method
 * composition, as when typing Chinese, does not send). While a reply is being written the box is
 * disabled and Send becomes Stop. Its words follow the page's language ({@link useLang}).
 */

import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon, Spinner } from "../ui/Icon";
import { isEmptyMessage } from "./empty-message";

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
  const lang = useLang();
  const [text, setText] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);
  const length = [...text].length;
  const tooLong = length > MAX_CHARS;
  // Spaces and invisible characters alone are no message (the server would refuse it).
  const canSend = !running && !isEmptyMessage(text) && !tooLong;

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
    <form
      className="composer"
      onSubmit={submit}
      aria-label={pick(lang, "Send a message", "发送消息")}
      lang={lang}
    >
      <div className={`composer-box${running ? " is-running" : ""}`}>
        <textarea
          ref={input}
          className="composer-input"
          aria-label={pick(lang, "Message", "消息")}
          placeholder={
            running ? pick(lang, "The assistant is replying…", "助手正在回复…") : placeholder
          }
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
            aria-label={pick(lang, "Stop the reply", "停止回复")}
          >
            {stopping ? <Spinner size={14} /> : <Icon name="stop" size={14} />}
            <span>
              {stopping ? pick(lang, "Stopping", "正在停止") : pick(lang, "Stop", "停止")}
            </span>
          </button>
        ) : (
          <button
            type="submit"
            className="btn btn-primary btn-send"
            disabled={!canSend}
            aria-label={pick(lang, "Send message", "发送消息")}
          >
            <Icon name="send" size={15} />
            <span>{pick(lang, "Send", "发送")}</span>
          </button>
        )}
      </div>
      <div className="composer-hint" aria-live="polite">
        {tooLong ? (
          <span className="text-danger">
            {pick(
              lang,
              `${length.toLocaleString()} / ${MAX_CHARS.toLocaleString()} characters: too long to send.`,
              `${length.toLocaleString()} / ${MAX_CHARS.toLocaleString()} 个字符：太长，无法发送。`,
            )}
          </span>
        ) : lang === "zh" ? (
          <span>
            <kbd>Enter</kbd> 发送 · <kbd>Shift</kbd>+<kbd>Enter</kbd> 换行
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
