// Gantt charts (the data endpoint's kind=gantt): what the chart shows, said truthfully in words.
import { timeText } from "../time.js";

// What the chart shows, said in words under its title.
export function note(g, per) {
  const last = g.row0 + g.resources.length;
  const by = g.group_by ? ` (grouped by ${g.group_by.replace("_", " ")}: ${g.groups.length} groups)` : "";
  const rows = `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${g.total_resources} resources${by}`;
  let what;
  if (g.mode === "occupancy") {
    const tiers =
      g.occupancy && g.occupancy.tiers
        ? "; the foreground and background tiers in two lanes, each its own busy fraction"
        : "";
    what =
      `${g.window_segments} segments in this window on these rows, more than the ${g.max_bars} drawn one by one, ` +
      "so drawn as occupancy blocks (one per row and pixel column: darker = a larger share of the resource " +
      `busy${tiers})`;
    what += g.zoom_shows_bars
      ? "; zoom in to see single bars"
      : `; zooming in will not separate them (more than ${g.max_bars} segments overlap every instant of this ` +
        "window on these rows)";
  } else {
    const multi = (g.lanes || []).some((n) => n > 1)
      ? "; segments overlapping on one resource are drawn in lanes inside its row"
      : "";
    what = `${g.bars.n} bars, every segment of this window on these rows${multi}`;
  }
  const ev = g.events || { total: 0, t: [] };
  const events = ev.total
    ? ` ${ev.total} events here` +
      (ev.mode === "counts"
        ? " (too many to mark one by one: marked as counts per pixel column and kind, darker = more; " +
          "zoom in for single marks)."
        : ", every one marked.")
    : "";
  const cut = g.schedule_cut;
  let rec = "";
  if (cut) {
    const limit = cut.limit ? `its limit of ${cut.limit} segments` : "its max_segments setting";
    rec =
      ` The family stopped recording the schedule at ${limit} (${cut.recorded} recorded)` +
      (cut.cut_at_s !== null && cut.cut_at_s !== undefined
        ? `, at t = ${timeText(cut.cut_at_s, per)}: nothing later is drawn.`
        : ".");
  }
  const head = `${g.algorithm} · repetition ${g.repetition}: ${rows}`;
  return `${head}; ${what} (${g.total_segments} segments in all).${events}${rec}`;
}

export function subtitle(g, per) {
  const cut = g.schedule_cut;
  if (cut && cut.cut_at_s !== null && cut.cut_at_s !== undefined && g.window[0] >= cut.cut_at_s)
    return {
      display: true,
      text: `nothing recorded after t = ${timeText(cut.cut_at_s, per)}: the family capped its schedule recording`,
      color: "#a60",
    };
  if (!g.bars.n && g.mode !== "occupancy" && cut)
    return {
      display: true,
      text: "no segments recorded in this window: the family capped its schedule recording",
      color: "#a60",
    };
  if (g.mode === "occupancy")
    return {
      display: true,
      text:
        `occupancy blocks (${g.window_segments} segments)` +
        (g.zoom_shows_bars ? ": zoom in for single bars" : ": too dense to separate at any zoom"),
      color: "#555",
    };
  return { display: false, text: "" };
}
