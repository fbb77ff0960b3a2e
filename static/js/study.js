// Study page: metric vs swept parameter, one line per algorithm, sd whiskers; the measured
// values in a table beside the paper's claims. Refreshes while runs are still going.
(function () {
  "use strict";
  const payload = JSON.parse(document.getElementById("study-payload").textContent);
  const { palette, fmt, errorBars } = window.cs;
  const select = document.getElementById("study-metric");
  const names = Object.keys(payload.metrics).sort();
  names.forEach((m) => select.add(new Option(m, m)));
  let chart = null;
  const numericX = names.every((m) => Object.values(payload.metrics[m]).every((pts) => pts.every((p) => typeof p.x === "number")));

  function draw(metric) {
    const lines = payload.metrics[metric] || {};
    const datasets = Object.entries(lines).map(([label, pts], i) => ({
      label, data: pts.map((p) => ({ x: numericX ? p.x : String(p.x), y: p.y })), err: pts.map((p) => p.err),
      borderColor: palette[i % palette.length], backgroundColor: palette[i % palette.length], errColor: palette[i % palette.length], tension: 0, pointRadius: 3,
    }));
    const bound = payload.bounds && payload.bounds[metric];
    if (bound && payload.metrics[bound]) { // the lower bound is the instance's: draw one line of it, dashed
      const [label, pts] = Object.entries(payload.metrics[bound])[0];
      const groupSuffix = label.includes(" · ") ? " · " + label.split(" · ")[1] : "";
      datasets.push({ label: `lower bound (${bound})${groupSuffix}`, data: pts.map((p) => ({ x: numericX ? p.x : String(p.x), y: p.y })),
        borderColor: "#777", backgroundColor: "#777", borderDash: [6, 4], pointRadius: 2 });
    }
    if (chart) chart.destroy();
    chart = new Chart(document.getElementById("study-chart"), {
      type: "line", data: { datasets }, plugins: [errorBars],
      options: { animation: false, maintainAspectRatio: false,
        scales: { x: numericX ? { type: "linear", title: { display: true, text: payload.x_axis || "point" } } : { type: "category", labels: [...new Set(datasets.flatMap((d) => d.data.map((p) => p.x)))], title: { display: true, text: payload.x_axis || "point" } },
                  y: { title: { display: true, text: metric } } },
        plugins: { legend: { position: "bottom" }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmt(c.raw.y)}` + (c.dataset.err ? ` ± ${fmt(c.dataset.err[c.dataIndex])}` : "") } } } },
    });
    window.cloudsched = { study: chart };
    drawTable(metric, lines);
  }

  function drawTable(metric, lines) {
    const table = document.getElementById("study-table");
    const xs = [...new Set(Object.values(lines).flatMap((pts) => pts.map((p) => p.x)))];
    xs.sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))));
    const labels = Object.keys(lines);
    table.innerHTML = "";
    const head = table.createTHead().insertRow();
    [payload.x_axis || "point", ...labels].forEach((t) => { const th = document.createElement("th"); th.textContent = t; head.appendChild(th); });
    const body = table.createTBody();
    xs.forEach((x) => {
      const row = body.insertRow();
      row.insertCell().textContent = x;
      labels.forEach((l) => {
        const p = lines[l].find((q) => q.x === x);
        row.insertCell().textContent = p ? `${fmt(p.y)} ± ${fmt(p.err)}` : "—";
      });
    });
  }
  select.addEventListener("change", () => draw(select.value));
  const varies = (m) => new Set(Object.values(payload.metrics[m]).flatMap((pts) => pts.map((p) => p.y))).size > 1;
  const first = (payload.primary || []).find((m) => names.includes(m)) || names.find(varies) || names[0];
  if (first) { select.value = first; draw(first); }

  const status = document.getElementById("study-status");
  if (status.dataset.statusUrl && status.dataset.finished === "0") {
    let last = null;
    const poll = () => fetch(status.dataset.statusUrl, { credentials: "same-origin" }).then((r) => r.json()).then((s) => {
      const key = JSON.stringify(s.counts);
      document.getElementById("study-counts").textContent = Object.entries(s.counts).filter(([, v]) => v).map(([k, v]) => `${v} ${k}`).join(" ");
      if (last !== null && key !== last) window.location.reload();
      last = key;
      if (!s.finished) setTimeout(poll, 2000); else window.location.reload();
    }).catch(() => setTimeout(poll, 4000));
    setTimeout(poll, 1500);
  }
})();
