// Run page: poll the status while the run is in progress, draw the charts when it is done.
(function () {
  "use strict";
  const box = document.getElementById("run-status");
  const statusUrl = box && box.dataset.statusUrl;

  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => {
        document.getElementById("status-text").textContent = s.status;
        document.getElementById("progress").value = s.progress;
        document.getElementById("progress-message").textContent = s.message || "";
        box.className = "status status-" + s.status;
        if (s.error) {
          const err = document.getElementById("run-error");
          err.textContent = s.error;
          err.hidden = false;
        }
        if (s.finished) {
          if (s.status === "succeeded") window.location.reload();
        } else {
          setTimeout(poll, 1000);
        }
      })
      .catch(() => setTimeout(poll, 3000));
  }

  const payloadEl = document.getElementById("run-payload");
  if (!payloadEl) {
    if (statusUrl && !/succeeded|failed|cancelled/.test(box.className)) setTimeout(poll, 500);
    return;
  }
  const payload = JSON.parse(payloadEl.textContent);
  const palette = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00"];

  // Comparison: one metric at a time, mean with a CI whisker drawn by a tiny plugin.
  const select = document.getElementById("metric-select");
  const metricNames = Object.keys(payload.comparison);
  metricNames.forEach((m) => select.add(new Option(m, m)));
  const ciPlugin = {
    id: "ci",
    afterDatasetsDraw(chart) {
      const ci = chart.data.datasets[0].ci || [];
      const meta = chart.getDatasetMeta(0);
      const y = chart.scales.y;
      const ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = "#222";
      meta.data.forEach((bar, i) => {
        const v = chart.data.datasets[0].data[i];
        if (!ci[i]) return;
        const top = y.getPixelForValue(v + ci[i]);
        const bottom = y.getPixelForValue(v - ci[i]);
        ctx.beginPath();
        ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bottom);
        ctx.moveTo(bar.x - 6, top); ctx.lineTo(bar.x + 6, top);
        ctx.moveTo(bar.x - 6, bottom); ctx.lineTo(bar.x + 6, bottom);
        ctx.stroke();
      });
      ctx.restore();
    },
  };
  let comparisonChart = null;
  function drawComparison(name) {
    const m = payload.comparison[name];
    if (!m) return;
    const data = { labels: m.labels, datasets: [{ label: name, data: m.mean, ci: m.ci, backgroundColor: palette }] };
    if (comparisonChart) comparisonChart.destroy();
    comparisonChart = new Chart(document.getElementById("comparison-chart"), {
      type: "bar", data, plugins: [ciPlugin],
      options: { animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } } },
    });
  }
  select.addEventListener("change", () => drawComparison(select.value));
  if (metricNames.length) drawComparison(metricNames[0]);

  // Gantt: floating horizontal bars per resource.
  const g = payload.gantt;
  if (g && g.bars.length) {
    const kinds = [...new Set(g.bars.map((b) => b.kind || "task"))];
    const datasets = kinds.map((k, i) => ({
      label: k,
      data: g.bars.filter((b) => (b.kind || "task") === k).map((b) => ({ x: [b.s, b.e], y: b.r, job: b.job })),
      backgroundColor: palette[i % palette.length],
      borderSkipped: false,
    }));
    new Chart(document.getElementById("gantt-chart"), {
      type: "bar",
      data: { labels: g.resources, datasets },
      options: {
        indexAxis: "y", animation: false, maintainAspectRatio: false, grouped: false,
        scales: { x: { type: "linear", title: { display: true, text: "time (s)" } }, y: { stacked: true } },
        plugins: { tooltip: { callbacks: { label: (c) => "job " + c.raw.job + ": " + c.raw.x[0].toFixed(1) + "–" + c.raw.x[1].toFixed(1) } } },
      },
    });
    document.getElementById("gantt-note").textContent =
      g.bars.length + " of " + g.total_segments + " segments" + (g.truncated ? " (busiest resources only)" : "");
  } else {
    document.getElementById("gantt-note").textContent = "This run recorded no schedule segments.";
  }

  // Series: one line chart per series.
  const holder = document.getElementById("series-charts");
  Object.entries(payload.series).forEach(([name, s], i) => {
    const div = document.createElement("div");
    div.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = "series-" + name;
    div.appendChild(canvas);
    holder.appendChild(div);
    new Chart(canvas, {
      type: "line",
      data: { datasets: [{ label: name, data: s.t.map((t, k) => ({ x: t, y: s.v[k] })), stepped: true, pointRadius: 0, borderColor: palette[i % palette.length] }] },
      options: { animation: false, maintainAspectRatio: false, parsing: false, scales: { x: { type: "linear", title: { display: true, text: "time (s)" } } } },
    });
  });
})();
