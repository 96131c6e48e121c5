// A horizontal bar chart in SVG (no library, no inline style: classes and attributes only), with
// the same numbers in a table beside it for screen readers and for reading exact values.

export interface Bar {
  label: string;
  value: number;
}

const ROW = 28;
const LABEL_WIDTH = 180;
const WIDTH = 760;

export function BarChart({ title, bars, format }: { title: string; bars: Bar[]; format(value: number): string }) {
  const max = Math.max(...bars.map((bar) => bar.value), 0);
  const room = WIDTH - LABEL_WIDTH - 90;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${bars.length * ROW + 8}`}
        width="100%"
        role="img"
        aria-label={`${title}: ${bars.map((bar) => `${bar.label} ${format(bar.value)}`).join(', ')}`}
      >
        {bars.map((bar, index) => {
          const y = index * ROW + 4;
          const width = max > 0 ? Math.max(1, (bar.value / max) * room) : 1;
          return (
            <g key={bar.label}>
              <text x={LABEL_WIDTH - 8} y={y + ROW / 2 + 4} text-anchor="end" class="chart-label">
                {bar.label}
              </text>
              <rect x={LABEL_WIDTH} y={y + 4} width={width} height={ROW - 10} rx={3} class="chart-bar" />
              <text x={LABEL_WIDTH + width + 6} y={y + ROW / 2 + 4} class="chart-value">
                {format(bar.value)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}
