/** The switch of the developer view (tool names, ids, arguments, timings). */

import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { useDeveloperView } from "./developer-view";
import { Icon } from "./Icon";

export function DeveloperToggle({ className = "" }: { className?: string }) {
  const [on, setOn] = useDeveloperView();
  const lang = useLang();
  return (
    <button
      type="button"
      className={`btn btn-ghost dev-toggle ${className}`}
      aria-pressed={on}
      onClick={() => setOn(!on)}
      data-testid="developer-toggle"
      title={
        on
          ? pick(
              lang,
              "Developer view is on: tool names, ids, arguments and timings",
              "开发者视图已打开：工具名、编号、参数和时间",
            )
          : pick(
              lang,
              "Show tool names, ids, arguments and timings",
              "显示工具名、编号、参数和时间",
            )
      }
    >
      <Icon name="code" size={15} />
      <span className="dev-toggle-label">{pick(lang, "Developer view", "开发者视图")}</span>
    </button>
  );
}
