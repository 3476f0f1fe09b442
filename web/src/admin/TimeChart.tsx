// A small live time-series chart (uPlot). The canvas is hidden from screen readers:
// the chart's label and the values beside it say what it shows. Under the title, the
// span of time the chart shows, as the chart itself last drew it.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { timeWindow } from './timeWindow';

export interface ChartSeries { label: string; colour: string; values: (number | null)[] }

const clock = (s: number) => new Date(s * 1000).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** `yMax`: a fixed top of the scale (100 for percentages); else it follows the data. */
export function TimeChart({ title, times, series, unit, summary, yMax }: {
  title: string; times: number[]; series: ChartSeries[]; unit?: string; summary: string; yMax?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const timesNow = useRef(times);
  timesNow.current = times;
  const [drawn, setDrawn] = useState<{ from: number; to: number; top: number } | null>(null);
  const data = [times, ...series.map((s) => s.values)] as uPlot.AlignedData;

  useEffect(() => {
    const el = box.current!;
    const width = () => Math.max(260, el.clientWidth);
    plot.current = new uPlot({
      width: width(),
      height: 200,
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: true, range: () => timeWindow(timesNow.current, Date.now() / 1000) },
        y: { range: (_u, min, max) => [Math.min(0, min ?? 0), yMax ?? (max > 0 ? max * 1.1 : 1)] },
      },
      // Clock times only, far enough apart to read (uPlot's own put a date beside a time, touching).
      axes: [{ space: 80, values: (_u, ticks) => ticks.map(clock) }, { values: (_u, ticks) => ticks.map((t) => `${Number.isInteger(t) ? t : t.toFixed(1)}${unit ?? ''}`), size: 56 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.colour, width: 2, points: { show: (u: uPlot) => u.data[0].length <= 40, size: 6, fill: s.colour } }))],
      hooks: {
        draw: [(u) => {
          const x = u.scales.x;
          if (x?.min != null && x.max != null) setDrawn({ from: x.min, to: x.max, top: u.scales.y?.max ?? 0 });
        }],
      },
    }, data, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: width(), height: 200 }));
    resize.observe(el);
    return () => { resize.disconnect(); plot.current?.destroy(); plot.current = null; };
    // The series (their number and names) are fixed for a chart's life; data changes below.
  }, [series.length]);

  useEffect(() => { plot.current?.setData(data); }, [times.length, times.at(-1)]);

  return (
    <figure class="time-chart">
      <figcaption>{title}</figcaption>
      <p class="time-chart-span">
        {drawn ? <><time>{clock(drawn.from)}</time>–<time>{clock(drawn.to)}</time></> : ' '}
      </p>
      <div role="img" aria-label={`${title}: ${summary}`} class="time-chart-plot" data-y-top={drawn?.top}>
        <div ref={box} aria-hidden="true" />
      </div>
      <ul class="chart-legend" aria-hidden="true">
        {series.map((s) => <li key={s.label}><span class="swatch" style={{ background: s.colour }} />{s.label}</li>)}
      </ul>
    </figure>
  );
}
