// Colours shared by every page: an algorithm's colour and a job's colour.

// An algorithm's colour, the same on every page (run, study, diff) and in every family: a fixed
// table (distinct within each family), "policy:algorithm" names (ep_jobs online) as their
// algorithm's colour lightened or darkened by the policy, and a stable hash for any other name.
const ALGORITHM_COLOURS = {
  fcfs: "#7f7f7f",
  lpt: "#ff7f0e",
  // backfill
  easy: "#1f77b4",
  keasy: "#d62728",
  reasy: "#2ca02c",
  measy: "#9467bd",
  // dvfs_bot
  cloud_aware: "#17becf",
  baseline: "#8c564b",
  // ep_jobs
  tapra: "#d62728",
  tapra_fast: "#ff7f0e",
  min_min: "#1f77b4",
  mm_ga: "#2ca02c",
  gsa: "#9467bd",
  // federated
  round_robin: "#bcbd22",
  cls: "#1f77b4",
  cmms: "#2ca02c",
  dcls: "#d62728",
  dcmms: "#ff7f0e",
  // vm_reservations
  opt_min_migration: "#d62728",
  min_migration: "#ff7f0e",
  llif: "#1f77b4",
  ffd: "#2ca02c",
  est: "#9467bd",
  mffde: "#8c564b",
  exact: "#17becf",
};
const POLICY_SHADE = {
  ontapra: 0,
  "ontapra-ndrc": -0.35,
  fcfs: 0.45,
  "fcfs-ndrc": 0.25,
  slf: -0.55,
  "slf-ndrc": 0.65,
  llf: -0.2,
  "llf-ndrc": 0.8,
};

// f > 0 mixes toward white, f < 0 toward black
function shade(hex, f) {
  const n = parseInt(hex.slice(1), 16);
  const c = [n >> 16, (n >> 8) & 255, n & 255];
  const out = c.map((v) => Math.round(f >= 0 ? v + (255 - v) * f : v * (1 + f)));
  return "#" + out.map((v) => v.toString(16).padStart(2, "0")).join("");
}

// "#rrggbb" (callers append an alpha byte), from FNV-1a of the name
function hashColour(name) {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
  const hue = h % 360;
  const sat = (50 + ((h >>> 9) % 30)) / 100;
  const light = (35 + ((h >>> 17) % 20)) / 100;
  const a = sat * Math.min(light, 1 - light);
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return "#" + [0, 8, 4].map((n) => channel(n).toString(16).padStart(2, "0")).join("");
}

export function algorithmColor(name) {
  const s = String(name);
  if (ALGORITHM_COLOURS[s]) return ALGORITHM_COLOURS[s];
  const [policy, alg] = s.split(":");
  if (alg !== undefined && ALGORITHM_COLOURS[alg] && policy in POLICY_SHADE) {
    return shade(ALGORITHM_COLOURS[alg], POLICY_SHADE[policy]);
  }
  return hashColour(s);
}

// A job's colour: the same job has the same colour on every chart of the page.
export function jobColour(job) {
  let h = 2166136261; // FNV-1a, then golden-angle hues so neighbouring ids look different
  const s = String(job);
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return `hsl(${((h % 1000) * 137.508) % 360}, ${55 + ((h >>> 10) % 30)}%, ${42 + ((h >>> 20) % 22)}%)`;
}
