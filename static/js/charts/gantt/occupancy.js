// Gantt charts (the data endpoint's kind=gantt): occupancy blocks, where a window holds more bars than are
// drawn one by one.
import { categoryColour, modeOf, scaleColour } from "./colours.js";
import { laneBox, rowGeometry, xPixel } from "./bars.js";

// Occupancy: a block per row (or per tier lane of a row) and pixel column; darkness = busy fraction;
// colour = the mode's dominant category (most busy time in the block) or busy-weighted mean value,
// sent by the server. Two tiers on one processor (backfill) are two lanes, each its own fraction.
const TIER_COLOUR = ["rgb(31, 92, 160)", "rgb(110, 150, 0)"];
export const occupancyPlugin = {
  id: "csOccupancy",
  beforeDatasetsDraw(chart) {
    const g = chart.$g;
    if (!g || g.mode !== "occupancy" || !g.occupancy) return;
    const { ctx, chartArea, scales } = chart;
    const px = xPixel(scales.x);
    const occ = g.occupancy;
    const [t0, t1] = occ.t;
    const n = occ.columns;
    const step = (t1 - t0) / n;
    // The diff page (`opts.statusColour`): each block in the colour of its changed jobs' main status (the server's).
    const byStatus = chart.$statusColour && occ.c && occ.c.status;
    const mode = byStatus ? { type: "status" } : chart.$colourOf ? { type: "job" } : modeOf(g, chart.$colour);
    const codes = byStatus ? occ.c.status : mode.type !== "job" && occ.c ? occ.c[mode.key] : null;
    const tiers = occ.tiers ? occ.tiers.rows : null;
    let blocks = 0;
    const byColour = {}; // blocks painted per colour (what the tests read: a changed job is never painted unchanged)
    // Painted as pixels: every block is written into one image of the plot area (a line of each row band,
    // then copied down the band) and the image drawn once — 40 rows × 2 tiers × 1,400 columns were
    // 112,000 fillRects with a colour and an alpha each. Alpha as before: 0.2 + 0.8 × busy fraction.
    const left = Math.floor(chartArea.left);
    const top = Math.floor(chartArea.top);
    const W = Math.max(1, Math.ceil(chartArea.right) - left);
    const H = Math.max(1, Math.ceil(chartArea.bottom) - top);
    const off = chart.$occupancyCanvas || (chart.$occupancyCanvas = document.createElement("canvas"));
    if (off.width !== W || off.height !== H) {
      off.width = W;
      off.height = H;
    }
    const octx = off.getContext("2d");
    const image = octx.createImageData(W, H);
    const pixels = new Uint32Array(image.data.buffer);
    // Pixels as 32-bit words in the byte order of every browser platform (little-endian: R, G, B, A).
    const rgb = new Map(); // a colour as the canvas writes it ("#rrggbb") → [name, r | g << 8 | b << 16]
    const rgbOf = (css) => {
      let hit = rgb.get(css);
      if (!hit) {
        octx.fillStyle = css;
        const name = octx.fillStyle;
        const hex = name.startsWith("#") ? name : "#999999";
        const v = parseInt(hex.slice(1), 16);
        hit = [name, ((v >> 16) & 255) | (((v >> 8) & 255) << 8) | ((v & 255) << 16)];
        rgb.set(css, hit);
      }
      return hit;
    };
    const paint = (row, line, y, h, base) => {
      const y0 = Math.max(0, Math.round(y) - top);
      const y1 = Math.min(H, Math.max(y0 + 1, Math.round(y + h) - top));
      if (y1 <= y0) return;
      const start = y0 * W;
      let painted = -Infinity; // whole pixels, each painted once: no darker seams where translucent blocks overlap
      row.forEach((v, k) => {
        if (!v) return;
        const x0 = Math.round(px(t0 + k * step));
        if (x0 < painted) return; // a sub-pixel column whose pixel an earlier column painted
        const x1 = Math.max(x0 + 1, Math.round(px(t0 + (k + 1) * step)));
        painted = x1;
        let css = base;
        if (line && line[k] !== ".") {
          const code = line.charCodeAt(k) - 48;
          css =
            mode.type === "status"
              ? chart.$statusColour(code, g)
              : mode.type === "scale"
                ? scaleColour(code / 63)
                : categoryColour(mode, code);
        }
        const [name, colour] = rgbOf(css);
        const alpha = Math.round(255 * Math.min(1, 0.2 + 0.8 * v));
        const a = Math.max(0, x0 - left);
        const b = Math.min(W, x1 - left);
        if (b > a) pixels.fill((colour | (alpha << 24)) >>> 0, start + a, start + b);
        blocks++;
        byColour[name] = (byColour[name] || 0) + 1;
      });
      for (let yy = y0 + 1; yy < y1; yy++) pixels.copyWithin(yy * W, start, start + W);
    };
    occ.rows.forEach((row, r) => {
      const geo = rowGeometry(chart, r);
      const line = codes ? codes[r] : null;
      if (!tiers) {
        paint(row, line, geo.top, geo.height, TIER_COLOUR[0]);
        return;
      }
      tiers[r].forEach((tierRow, t) => {
        const [y, h] = laneBox({ ...geo, lanes: 2 }, t);
        paint(tierRow, line, y, h, TIER_COLOUR[t]);
      });
    });
    octx.putImageData(image, 0, 0);
    ctx.save();
    ctx.beginPath();
    ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
    ctx.clip();
    ctx.drawImage(off, left, top);
    ctx.restore();
    chart.$painted = { ...(chart.$painted || {}), blocks, byColour };
  },
};
