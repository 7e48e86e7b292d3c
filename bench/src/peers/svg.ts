/**
 * Two small SVG charts for `bench/peers`, written by hand (no chart library): a timeline (per
 * system, the model's streams and each tool's run as bars on one time axis) and grouped
 * horizontal bars (a ratio per scenario and system, with a reference line at 1). Pure: strings
 * in, a string out.
 */

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const FONT = 'font-family="ui-sans-serif,system-ui,sans-serif"';

/** Palette: one colour per series, readable on white. */
export const PALETTE = [
  "#2563eb",
  "#dc2626",
  "#16a34a",
  "#9333ea",
  "#ea580c",
  "#0891b2",
  "#ca8a04",
  "#db2777",
  "#4b5563",
];

const fmt = (n: number): string => String(Math.round(n * 10) / 10);

/** One bar of a timeline lane, in ms from the row's start. */
export interface TimelineSegment {
  from: number;
  to: number;
  kind: "stream" | "answer" | "tool" | "wait";
  label?: string;
}

export interface TimelineRow {
  label: string;
  /** Lanes top to bottom: usually the model's streams, then one lane per tool call. */
  lanes: TimelineSegment[][];
  /** Vertical ticks on the row: the lower bound, the turn's end... */
  markers: Array<{ at: number; kind: "bound" | "end"; label?: string }>;
}

export interface TimelineChart {
  title: string;
  subtitle?: string;
  rows: TimelineRow[];
  /** The axis length in ms; default the latest thing drawn. */
  maxMs?: number;
}

const SEGMENT_FILL: Record<TimelineSegment["kind"], string> = {
  stream: "#94a3b8",
  answer: "#475569",
  tool: "#2563eb",
  wait: "#fbbf24",
};

/** A timeline: one row per system, lanes of bars, markers, a ms axis. */
export function timelineSvg(chart: TimelineChart): string {
  const left = 190;
  const right = 30;
  const width = 1000;
  const laneH = 9;
  const laneGap = 2;
  const rowGap = 14;
  const top = chart.subtitle ? 62 : 44;
  const plotW = width - left - right;
  const maxMs =
    chart.maxMs ??
    Math.max(
      1,
      ...chart.rows.flatMap((r) => [
        ...r.lanes.flat().map((s) => s.to),
        ...r.markers.map((m) => m.at),
      ]),
    );
  const x = (ms: number) => left + (Math.max(0, ms) / maxMs) * plotW;
  const parts: string[] = [];
  let y = top;
  for (const row of chart.rows) {
    const rowH = Math.max(1, row.lanes.length) * (laneH + laneGap);
    parts.push(
      `<text x="${left - 8}" y="${fmt(y + rowH / 2 + 4)}" text-anchor="end" font-size="12" ${FONT}>${escapeXml(row.label)}</text>`,
    );
    parts.push(
      `<rect x="${left}" y="${fmt(y - 2)}" width="${plotW}" height="${fmt(rowH + 2)}" fill="#f8fafc"/>`,
    );
    row.lanes.forEach((lane, i) => {
      const ly = y + i * (laneH + laneGap);
      for (const s of lane) {
        const w = Math.max(1, x(s.to) - x(s.from));
        const title = s.label ? `<title>${escapeXml(s.label)}</title>` : "";
        parts.push(
          `<rect x="${fmt(x(s.from))}" y="${fmt(ly)}" width="${fmt(w)}" height="${laneH}" fill="${SEGMENT_FILL[s.kind]}">${title}</rect>`,
        );
      }
    });
    for (const m of row.markers) {
      const colour = m.kind === "bound" ? "#16a34a" : "#111827";
      const dash = m.kind === "bound" ? ' stroke-dasharray="3,2"' : "";
      const title = m.label ? `<title>${escapeXml(m.label)}</title>` : "";
      parts.push(
        `<line x1="${fmt(x(m.at))}" x2="${fmt(x(m.at))}" y1="${fmt(y - 4)}" y2="${fmt(y + rowH + 2)}" stroke="${colour}" stroke-width="2"${dash}>${title}</line>`,
      );
    }
    y += rowH + rowGap;
  }
  const axisY = y;
  const step = niceStep(maxMs / 8);
  for (let t = 0; t <= maxMs + 1e-9; t += step) {
    parts.push(
      `<line x1="${fmt(x(t))}" x2="${fmt(x(t))}" y1="${top - 6}" y2="${fmt(axisY - 6)}" stroke="#e5e7eb"/>`,
      `<text x="${fmt(x(t))}" y="${fmt(axisY + 8)}" text-anchor="middle" font-size="11" fill="#374151" ${FONT}>${fmt(t)}</text>`,
    );
  }
  parts.push(
    `<text x="${left + plotW / 2}" y="${fmt(axisY + 26)}" text-anchor="middle" font-size="11" fill="#374151" ${FONT}>ms from the turn's start</text>`,
  );
  const legendY = axisY + 46;
  const legend: Array<[string, string, string]> = [
    ["rect", SEGMENT_FILL.stream, "model's response with the calls"],
    ["rect", SEGMENT_FILL.answer, "model's final answer"],
    ["rect", SEGMENT_FILL.tool, "tool running"],
    ["rect", SEGMENT_FILL.wait, "tool waiting for the cart lock"],
    ["bound", "#16a34a", "lower bound of the turn"],
    ["end", "#111827", "turn end"],
  ];
  let lx = left;
  let ly = legendY;
  for (const [shape, colour, text] of legend) {
    const w = 26 + text.length * 6;
    if (lx + w > width - right) {
      lx = left;
      ly += 16;
    }
    parts.push(
      shape === "rect"
        ? `<rect x="${lx}" y="${ly - 9}" width="14" height="9" fill="${colour}"/>`
        : `<line x1="${lx + 7}" x2="${lx + 7}" y1="${ly - 11}" y2="${ly + 1}" stroke="${colour}" stroke-width="2"${shape === "bound" ? ' stroke-dasharray="3,2"' : ""}/>`,
      `<text x="${lx + 18}" y="${ly}" font-size="11" fill="#374151" ${FONT}>${escapeXml(text)}</text>`,
    );
    lx += w;
  }
  const height = ly + 16;
  return svgDocument(width, height, chart.title, chart.subtitle, parts);
}

/** Grouped horizontal bars: per group (scenario), one bar per series (system). */
export interface BarChart {
  title: string;
  subtitle?: string;
  series: string[];
  groups: Array<{ label: string; values: Array<number | undefined> }>;
  /** A vertical reference line (1 for ratios to the lower bound). */
  reference?: number;
  /** Values above are drawn clipped, with their number shown. */
  maxValue?: number;
  minValue?: number;
  unit?: string;
}

export function barChartSvg(chart: BarChart): string {
  const left = 230;
  const right = 60;
  const width = 1000;
  const barH = 7;
  const groupGap = 10;
  const top = chart.subtitle ? 62 : 44;
  const plotW = width - left - right;
  const values = chart.groups.flatMap((g) => g.values.filter((v): v is number => v !== undefined));
  const min = chart.minValue ?? Math.min(chart.reference ?? 0, ...values) * 0.98;
  const max = chart.maxValue ?? Math.max(...values, (chart.reference ?? 0) * 1.02);
  const x = (v: number) => left + ((Math.min(max, Math.max(min, v)) - min) / (max - min)) * plotW;
  const parts: string[] = [];
  let y = top;
  for (const group of chart.groups) {
    const groupH = chart.series.length * (barH + 1);
    parts.push(
      `<text x="${left - 8}" y="${fmt(y + groupH / 2 + 4)}" text-anchor="end" font-size="12" ${FONT}>${escapeXml(group.label)}</text>`,
    );
    group.values.forEach((v, i) => {
      const by = y + i * (barH + 1);
      if (v === undefined) {
        parts.push(
          `<text x="${left + 4}" y="${fmt(by + barH - 1)}" font-size="8" fill="#6b7280" ${FONT}>${escapeXml(`${chart.series[i]}: no figure`)}</text>`,
        );
        return;
      }
      const colour = PALETTE[i % PALETTE.length]!;
      const w = Math.max(1, x(v) - left);
      parts.push(
        `<rect x="${left}" y="${fmt(by)}" width="${fmt(w)}" height="${barH}" fill="${colour}"><title>${escapeXml(`${chart.series[i]}: ${v.toFixed(3)}${chart.unit ?? ""}`)}</title></rect>`,
      );
      if (v > max) {
        parts.push(
          `<text x="${fmt(x(v) + 3)}" y="${fmt(by + barH - 1)}" font-size="8" fill="${colour}" ${FONT}>${v.toFixed(2)}</text>`,
        );
      }
    });
    y += groupH + groupGap;
  }
  const axisY = y;
  const step = niceStep((max - min) / 8);
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) {
    parts.push(
      `<line x1="${fmt(x(t))}" x2="${fmt(x(t))}" y1="${top - 6}" y2="${fmt(axisY - 4)}" stroke="#e5e7eb"/>`,
      `<text x="${fmt(x(t))}" y="${fmt(axisY + 8)}" text-anchor="middle" font-size="11" fill="#374151" ${FONT}>${fmt2(t)}</text>`,
    );
  }
  if (chart.reference !== undefined) {
    parts.push(
      `<line x1="${fmt(x(chart.reference))}" x2="${fmt(x(chart.reference))}" y1="${top - 8}" y2="${fmt(axisY - 2)}" stroke="#111827" stroke-width="1.5" stroke-dasharray="4,3"/>`,
    );
  }
  const legendY = axisY + 30;
  let lx = left;
  let ly = legendY;
  chart.series.forEach((name, i) => {
    const w = 30 + name.length * 6.5;
    if (lx + w > width - right) {
      lx = left;
      ly += 16;
    }
    parts.push(
      `<rect x="${lx}" y="${ly - 9}" width="14" height="9" fill="${PALETTE[i % PALETTE.length]}"/>`,
      `<text x="${lx + 18}" y="${ly}" font-size="11" fill="#374151" ${FONT}>${escapeXml(name)}</text>`,
    );
    lx += w;
  });
  return svgDocument(width, ly + 16, chart.title, chart.subtitle, parts);
}

const fmt2 = (n: number): string => String(Math.round(n * 100) / 100);

/** A round step for about `raw` per tick: 1, 2 or 5 times a power of ten. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

function svgDocument(
  width: number,
  height: number,
  title: string,
  subtitle: string | undefined,
  parts: string[],
): string {
  const head = [
    `<text x="16" y="24" font-size="16" font-weight="600" ${FONT}>${escapeXml(title)}</text>`,
  ];
  if (subtitle) {
    head.push(
      `<text x="16" y="44" font-size="12" fill="#4b5563" ${FONT}>${escapeXml(subtitle)}</text>`,
    );
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${fmt(height)}" viewBox="0 0 ${width} ${fmt(height)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...head,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}
