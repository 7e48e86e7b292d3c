/** The switch of the developer view (tool names, ids, arguments, timings). */

import { useDeveloperView } from "./developer-view";
import { Icon } from "./Icon";

export function DeveloperToggle({ className = "" }: { className?: string }) {
  const [on, setOn] = useDeveloperView();
  return (
    <button
      type="button"
      className={`btn btn-ghost dev-toggle ${className}`}
      aria-pressed={on}
      onClick={() => setOn(!on)}
      data-testid="developer-toggle"
      title={
        on
          ? "Developer view is on: tool names, ids, arguments and timings"
          : "Show tool names, ids, arguments and timings"
      }
    >
      <Icon name="code" size={15} />
      <span className="dev-toggle-label">Developer view</span>
    </button>
  );
}
