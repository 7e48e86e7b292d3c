/**
 * A picture-like visual for a product: a pictogram of its category (a shoe, a boot, a sock, a
 * tent...) on a tint of its own, drawn as inline SVG. The shop has no product photos; this tells
 * at a glance what kind of thing a tile or a cart line is.
 */

import { hueOf } from "../api/format";

/** Pictograms on a 24×24 grid, drawn with a stroke. */
const PICTOGRAMS = {
  shoe: "M2.5 16.5c0-2.6.7-4.6 1.2-7.5l4.3.8c.7 1.9 2.5 3.1 5.1 3.4l5.6.9c1.9.3 3.3 1.6 3.3 3.1v1.3H2.5zM2.5 18.5h19.5M9 11.5l1.4-1.6M11.5 12.6l1.3-1.7",
  boot: "M7 3h6.5v8.5l5.6 2.4c1.5.6 2.4 1.8 2.4 3.1v1.5H5.8c.5-3.7 1.2-9 1.2-15.5zM5.8 20.5h15.7M13.5 7h-3M13.5 10h-3",
  sock: "M8 3h7v8.5l-4.8 7.9a3.3 3.3 0 01-5.6-3.4L8 11.5zM8 6.5h7",
  top: "M8.5 3.5L3 6.5l2 4.5 2.5-1.2V20.5h9V9.8L19 11l2-4.5-5.5-3c-.6 1.5-2 2.4-3.5 2.4s-2.9-.9-3.5-2.4z",
  jacket:
    "M8.5 3.5L4.5 5.5 3 20.5h4l1-9.5v9.5h8v-9.5l1 9.5h4L19.5 5.5l-4-2L12 7zM12 7v13.5M10 14h-1M15 14h-1",
  shorts: "M5 4.5h14l1.5 13.5h-6.5L12 11.5 10 18H3.5zM5 7.5h14",
  backpack:
    "M6.5 9a5.5 5.5 0 0111 0v10.5a1 1 0 01-1 1h-9a1 1 0 01-1-1zM9.5 4.3V2.8h5v1.5M9 13.5h6v4H9zM6.5 12h11",
  cap: "M3.5 15.5a8.5 8.5 0 0117 0v1h-17zM12 7V5.5M3.5 16.5h17.5c0 1.3-1 2-2.2 2H3.5z",
  watch:
    "M8 7h8a1 1 0 011 1v8a1 1 0 01-1 1H8a1 1 0 01-1-1V8a1 1 0 011-1zM9 7l.8-4h4.4L15 7M9 17l.8 4h4.4l.8-4M12 10v2.3l1.5 1",
  bottle: "M10 2.5h4v3l2 2.8v12.2a1 1 0 01-1 1H9a1 1 0 01-1-1V8.3l2-2.8zM8 12h8M8 16h8",
  tent: "M12 4L2.5 20h19zM12 4v16M9 20l3-5.5 3 5.5M10.5 6.5L12 4l1.5 2.5",
  dumbbell: "M6.5 7.5v9M3.5 9.5v5M17.5 7.5v9M20.5 9.5v5M6.5 12h11",
  bag: "M5 8h14l-1.2 12.5H6.2zM9 8V6.5a3 3 0 016 0V8",
} as const;

type Pictogram = keyof typeof PICTOGRAMS;

/** The pictogram of a category, by the words in its name. */
export function pictogramOf(category: string | undefined): Pictogram {
  const c = (category ?? "").toLowerCase();
  if (/boot/.test(c)) return "boot";
  if (/shoe|sneaker|runner|racer|trainer|flat/.test(c)) return "shoe";
  if (/sock/.test(c)) return "sock";
  if (/jacket|coat|shell/.test(c)) return "jacket";
  if (/short|tight|pant|legging/.test(c)) return "shorts";
  if (/top|shirt|tee|jersey/.test(c)) return "top";
  if (/pack|bag/.test(c)) return "backpack";
  if (/electronic|watch|gps|light/.test(c)) return "watch";
  if (/hydration|bottle|flask/.test(c)) return "bottle";
  if (/camp|tent/.test(c)) return "tent";
  if (/fitness|gym|weight/.test(c)) return "dumbbell";
  if (/accessor|hat|cap/.test(c)) return "cap";
  return "bag";
}

export function ProductPicture({
  id,
  category,
  name,
  size = "tile",
}: {
  id: string;
  category: string | undefined;
  /** Its name, for a product whose category is not known ("Merino Wool Socks": a sock). */
  name?: string | undefined;
  /** `tile`: a band across a product tile; `small`: a square beside a cart line or a column. */
  size?: "tile" | "small";
}) {
  const byCategory = pictogramOf(category);
  const kind = byCategory === "bag" && name ? pictogramOf(name) : byCategory;
  // One hue per category (what it is), shifted a little per product (which one it is).
  const hue = (hueOf(kind) + (hueOf(id) % 24)) % 360;
  return (
    <span
      className={`picture picture-${size}`}
      data-picture={kind}
      style={{
        background: `linear-gradient(140deg, hsl(${hue} 65% 95%), hsl(${(hue + 30) % 360} 60% 87%))`,
        color: `hsl(${hue} 45% 30%)`,
      }}
      aria-hidden="true"
    >
      <svg
        viewBox="0 0 24 24"
        width={size === "tile" ? 40 : 20}
        height={size === "tile" ? 40 : 20}
        fill="none"
        stroke="currentColor"
        strokeWidth={size === "tile" ? 1.4 : 1.7}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        <path d={PICTOGRAMS[kind]} />
      </svg>
    </span>
  );
}
