// A small live time-series chart (uPlot). The canvas is hidden from screen readers:
// the chart's label and the values beside it say what it shows.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries { label: string; colour: string; values: (number | null)[] }

const WINDOW_S = 60;

/** `yMax`: a fixed top of the scale (100 for percentages); else it follows the data. */
export function TimeChart({ title, times, series, unit, summary, yMax }: {
  title: string; times: number[]; series: ChartSeries[]; unit?: string; summary: string; yMax?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
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
        // At least a minute wide, so the first samples of a sale do not fill the chart.
        x: { time: true, range: (_u, min, max) => [Math.min(min, max - WINDOW_S), max] },
        y: { range: (_u, min, max) => [Math.min(0, min ?? 0), yMax ?? (max > 0 ? max * 1.1 : 1)] },
      },
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => `${Number.isInteger(t) ? t : t.toFixed(1)}${unit ?? ''}`), size: 56 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.colour, width: 2, points: { show: (u: uPlot) => u.data[0].length <= 40, size: 6, fill: s.colour } }))],
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
      <div role="img" aria-label={`${title}: ${summary}`} class="time-chart-plot">
        <div ref={box} aria-hidden="true" />
      </div>
      <ul class="chart-legend" aria-hidden="true">
        {series.map((s) => <li key={s.label}><span class="swatch" style={{ background: s.colour }} />{s.label}</li>)}
      </ul>
    </figure>
  );
}
