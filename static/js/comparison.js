// Result page: the comparison chart of one summary metric across algorithms. Bars are the means
// (in the stored unit, ticks written by format.js); whiskers the one spread the metrics table
// shows (95 % CI over repetitions, else the family's within-run CI), named on the chart; the
// axis always spans mean ± spread so no whisker is clipped. The lower bound is an extra grey bar.
(function () {
  "use strict";
  const payloadEl = document.getElementById("run-payload");
  const canvas = document.getElementById("comparison-chart");
  if (!payloadEl || !canvas) return;
  const payload = JSON.parse(payloadEl.textContent);
  const { algorithmColor, errorBars } = window.cs;
  const F = window.csFormat;
  const registry = (window.cloudsched = window.cloudsched || {});
  const specs = payload.metrics || {};
  const spec = (name) => specs[name] || { kind: "number", unit: "", label: name };
  const labelOf = (name) => spec(name).label || name;

  const select = document.getElementById("metric-select");
  const caption = document.getElementById("comparison-caption");
  const boundNames = new Set(Object.values(payload.comparison).filter((c) => c.bound).map((c) => c.bound.name));
  const names = Object.keys(payload.comparison).filter((m) => !boundNames.has(m));
  names.forEach((m) => select.add(new Option(labelOf(m), m)));

  function draw(name) {
    const m = payload.comparison[name];
    if (!m) return;
    const s = spec(name);
    const labels = [...m.labels], mean = [...m.mean], err = [...m.spread], std = [...m.std];
    const colours = labels.map((alg) => algorithmColor(alg)); // one colour per algorithm, everywhere
    if (m.bound) { labels.push(/bound/.test(labelOf(m.bound.name)) ? labelOf(m.bound.name) : `${labelOf(m.bound.name)} (lower bound)`); mean.push(m.bound.value); err.push(0); std.push(0); colours.push("#999"); }
    const whiskers = err.some((e) => e) ? m.spread_label : "";
    const lows = mean.map((v, i) => (v ?? 0) - (err[i] || 0)), highs = mean.map((v, i) => (v ?? 0) + (err[i] || 0));
    const lo = Math.min(0, ...lows), hi = Math.max(0, ...highs);
    const pad = (hi - lo) * 0.05 || 1;
    const ref = Math.max(Math.abs(lo), Math.abs(hi));
    // ticks at 1, 2 or 5 × 10^k of the display unit (hours, kWh, %), counts never below 1
    const per = F.unit(s, ref), span = (hi - lo) / per || 1;
    const raw = span / 6, mag = 10 ** Math.floor(Math.log10(raw));
    let stepSize = ([1, 2, 5, 10].find((k) => k * mag >= raw) || 10) * mag * per;
    if (s.kind === "count" || s.kind === "flag") stepSize = Math.max(1, stepSize);
    const data = { labels, datasets: [{ label: labelOf(name), data: mean, err, backgroundColor: colours }] };
    if (registry.comparison) registry.comparison.destroy();
    registry.comparison = new Chart(canvas, {
      type: "bar", data, plugins: [errorBars],
      options: {
        animation: false, maintainAspectRatio: false,
        scales: {
          y: { suggestedMin: lo < 0 ? lo - pad : 0, suggestedMax: hi + pad, title: { display: true, text: labelOf(name) },
               ticks: { stepSize, callback: (v) => F.value(v, s, ref) } },
        },
        plugins: {
          legend: { display: false },
          subtitle: { display: true, text: whiskers ? `bars: mean · whiskers: ${whiskers}` : "bars: mean (no spread: one repetition)", color: "#555" },
          tooltip: { callbacks: { label: (c) => {
            const i = c.dataIndex, v = mean[i];
            const line = `${F.value(v, s)} ${F.spread(v, err[i], s)}`.trim();
            return std[i] && whiskers.includes("repetitions") ? [line, `standard deviation ${F.spread(v, std[i], s).slice(2)}`] : line;
          } } },
        },
      },
    });
    const reps = (payload.repetitions || []).length;
    caption.textContent = `${labelOf(name)}: bars are each algorithm's mean` + (reps > 1 ? ` over ${reps} repetitions` : "") +
      (whiskers ? `; whiskers are the ${whiskers.replace(/^± /, "")}.` : "; no whiskers: one repetition and no within-run interval.") +
      (s.description ? ` (${s.description})` : "");
  }
  select.addEventListener("change", () => draw(select.value));
  const first = (payload.primary || []).find((m) => names.includes(m)) || names[0];
  if (first) { select.value = first; draw(first); }
})();
