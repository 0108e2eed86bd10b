/**
 * Opens and clicks per hour as a small SVG line chart of our own: two series over at most a
 * few hundred hours need no chart library (uPlot, the smallest that fits, would add about
 * 20 KB gzipped and draw on a canvas that screen readers cannot read). The figures are also
 * given as a table.
 */
import type { HourFigures } from '../types.ts';

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 40, right: 12, top: 12, bottom: 36 };

function pathOf(values: readonly number[], max: number): string {
  const step = values.length > 1 ? (WIDTH - PAD.left - PAD.right) / (values.length - 1) : 0;
  const y = (value: number) =>
    HEIGHT - PAD.bottom - (value / max) * (HEIGHT - PAD.top - PAD.bottom);
  return values
    .map(
      (value, index) =>
        `${index === 0 ? 'M' : 'L'}${(PAD.left + index * step).toFixed(1)},${y(value).toFixed(1)}`,
    )
    .join(' ');
}

const hourLabel = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit' });

export function HourChart(props: { hours: readonly HourFigures[] }) {
  const { hours } = props;
  if (hours.length === 0) return <p>No opens or clicks recorded yet.</p>;
  const max = Math.max(1, ...hours.map((h) => Math.max(h.opened, h.clicks)));
  const opened = hours.reduce((sum, h) => sum + h.opened, 0);
  const clicks = hours.reduce((sum, h) => sum + h.clicks, 0);
  const first = hours[0];
  const last = hours.at(-1);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Opens and clicks per hour: ${opened} opens and ${clicks} clicks over ${hours.length} hours`}
      >
        <line
          class="axis"
          x1={PAD.left}
          y1={HEIGHT - PAD.bottom}
          x2={WIDTH - PAD.right}
          y2={HEIGHT - PAD.bottom}
        />
        <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={HEIGHT - PAD.bottom} />
        <text class="tick" x={PAD.left - 6} y={PAD.top + 4} text-anchor="end">
          {max}
        </text>
        <text class="tick" x={PAD.left - 6} y={HEIGHT - PAD.bottom} text-anchor="end">
          0
        </text>
        {first && (
          <text class="tick" x={PAD.left} y={HEIGHT - 12}>
            {hourLabel(first.hour)}
          </text>
        )}
        {last && hours.length > 1 && (
          <text class="tick" x={WIDTH - PAD.right} y={HEIGHT - 12} text-anchor="end">
            {hourLabel(last.hour)}
          </text>
        )}
        <path
          class="series-opens"
          d={pathOf(
            hours.map((h) => h.opened),
            max,
          )}
        />
        <path
          class="series-clicks"
          d={pathOf(
            hours.map((h) => h.clicks),
            max,
          )}
        />
      </svg>
      <figcaption>
        <span class="key key-opens">Opens</span> <span class="key key-clicks">Clicks</span> per hour
      </figcaption>
      <details>
        <summary>Figures by hour</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Opens</th>
              <th scope="col">Clicks</th>
            </tr>
          </thead>
          <tbody>
            {hours.map((h) => (
              <tr key={h.hour}>
                <td>{hourLabel(h.hour)}</td>
                <td>{h.opened}</td>
                <td>{h.clicks}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
