// Whiskers for every dataset that carries an `err` array (bar or line charts): a Chart.js plugin.
export const errorBars = {
  id: "errorBars",
  afterDatasetsDraw(chart) {
    const ctx = chart.ctx;
    const vScale = chart.options.indexAxis === "y" ? chart.scales.x : chart.scales.y;
    chart.data.datasets.forEach((ds, d) => {
      if (!ds.err) return;
      const meta = chart.getDatasetMeta(d);
      if (meta.hidden) return;
      ctx.save();
      ctx.strokeStyle = ds.errColor || "#222";
      ctx.lineWidth = 1.2;
      meta.data.forEach((el, i) => {
        const e = ds.err[i];
        const raw = ds.data[i];
        const v = raw && typeof raw === "object" ? raw.y : raw;
        if (!e || v === null || v === undefined) return;
        const top = vScale.getPixelForValue(v + e);
        const bottom = vScale.getPixelForValue(v - e);
        ctx.beginPath();
        ctx.moveTo(el.x, top);
        ctx.lineTo(el.x, bottom);
        ctx.moveTo(el.x - 5, top);
        ctx.lineTo(el.x + 5, top);
        ctx.moveTo(el.x - 5, bottom);
        ctx.lineTo(el.x + 5, bottom);
        ctx.stroke();
      });
      ctx.restore();
    });
  },
};
