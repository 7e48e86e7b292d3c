/** Small line icons (24×24 grid, drawn with currentColor); decorative: hidden from screen readers. */

const PATHS = {
  send: "M4 12l16-8-6 16-2.5-6.5L4 12z",
  stop: "M7 7h10v10H7z",
  plus: "M12 5v14M5 12h14",
  minus: "M5 12h14",
  trash: "M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3",
  cart: "M3 4h2l2.4 11.2a1 1 0 001 .8h9.2a1 1 0 001-.8L20 8H6.2M9 20.5a.5.5 0 100-1 .5.5 0 000 1zM17 20.5a.5.5 0 100-1 .5.5 0 000 1z",
  chat: "M4 5h16v11H9l-5 4V5z",
  timeline: "M4 6h9M7 12h11M4 18h7",
  check: "M5 12.5l4.5 4.5L19 7.5",
  x: "M6 6l12 12M18 6L6 18",
  clock: "M12 7v5l3 2M12 21a9 9 0 110-18 9 9 0 010 18z",
  bolt: "M13 2L4 14h7l-1 8 9-12h-7l1-8z",
  alert:
    "M12 8v5M12 16.5v.5M10.3 3.9L2.6 17.5A2 2 0 004.3 20.5h15.4a2 2 0 001.7-3L13.7 3.9a2 2 0 00-3.4 0z",
  refresh: "M20 11a8 8 0 10-2.3 5.7M20 5v6h-6",
  store: "M4 9l1.5-5h13L20 9M4 9v11h16V9M4 9h16M9 20v-6h6v6",
  logout: "M15 4h4v16h-4M10 16l-4-4 4-4M6 12h10",
  spark:
    "M12 3l1.9 5.6a2 2 0 001.3 1.3L21 12l-5.8 2.1a2 2 0 00-1.3 1.3L12 21l-1.9-5.6a2 2 0 00-1.3-1.3L3 12l5.8-2.1a2 2 0 001.3-1.3z",
  info: "M12 11v6M12 7.5v.5M12 21a9 9 0 110-18 9 9 0 010 18z",
  slash: "M5 19L19 5M12 21a9 9 0 110-18 9 9 0 010 18z",
  new: "M12 5v14M5 12h14",
  code: "M8 7l-5 5 5 5M16 7l5 5-5 5M13.5 5l-3 14",
  "arrow-down": "M12 5v14M6 13l6 6 6-6",
  star: "M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L12 16.9l-5.2 2.7 1-5.8-4.3-4.1 5.9-.9z",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg
      className={`icon icon-${name}`}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={name === "star" || name === "spark" ? 0 : 2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path
        d={PATHS[name]}
        fill={name === "star" || name === "bolt" || name === "spark" ? "currentColor" : "none"}
      />
    </svg>
  );
}

/** A small spinning ring for work in progress. */
export function Spinner({ size = 14 }: { size?: number }) {
  return <span className="spinner" style={{ width: size, height: size }} aria-hidden="true" />;
}
