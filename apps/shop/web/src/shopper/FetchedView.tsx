/** What a drawer shows while its list loads, when it failed (with a retry), or the list. */

import type { ReactNode } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon } from "../ui/Icon";
import type { Fetched } from "./use-fetched";

export function FetchedView<T>({
  state,
  retry,
  children,
}: {
  state: Fetched<T>;
  retry: () => void;
  children: (value: T) => ReactNode;
}) {
  const lang = useLang();
  if (state.status === "loading") {
    return (
      <div className="account-loading" aria-busy="true">
        <span className="skeleton skeleton-line" />
        <span className="skeleton skeleton-line short" />
      </div>
    );
  }
  if (state.status === "error") {
    return (
      <div className="banner banner-error" role="alert">
        <Icon name="alert" size={15} />
        <span>
          {state.unreachable
            ? pick(lang, "The server could not be reached.", "连不上服务器。")
            : state.message}
        </span>
        <button type="button" className="btn btn-link" onClick={retry}>
          {pick(lang, "Retry", "重试")}
        </button>
      </div>
    );
  }
  return <>{children(state.value)}</>;
}
