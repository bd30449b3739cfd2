/**
 * The overview page: one self-contained HTML document (inline CSS, JS and SVG, no external requests) that fetches
 * /overview/data and draws progress figures, bar charts and tables. Invariant: every number shown is the JSON
 * value as received (counts formatted with thousands separators, nanotons as TON with nine decimals), so a test can
 * compare the page with ClickHouse.
 */
export const OVERVIEW_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TON exporter overview</title>
<style>
  :root { --fg: #1d2733; --muted: #66788a; --bar: #0098ea; --bar2: #2ebd85; --bad: #e5484d; --line: #e3e8ee; }
  body { font: 14px/1.4 system-ui, sans-serif; color: var(--fg); margin: 0; background: #f6f8fa; }
  header { background: #fff; border-bottom: 1px solid var(--line); padding: 14px 24px; display: flex; gap: 16px;
           align-items: baseline; }
  header h1 { font-size: 18px; margin: 0; }
  header span { color: var(--muted); }
  main { padding: 16px 24px; display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
  section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
  section h2 { font-size: 14px; margin: 0 0 10px; color: var(--muted); font-weight: 600; }
  .stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 10px; grid-column: 1 / -1; }
  .stat { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
  .stat b { display: block; font-size: 20px; font-variant-numeric: tabular-nums; }
  .stat small { color: var(--muted); }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  th, td { text-align: right; padding: 3px 6px; border-bottom: 1px solid var(--line); }
  th:first-child, td:first-child { text-align: left; }
  svg text { font-size: 10px; fill: var(--muted); }
  .wide { grid-column: 1 / -1; }
  #error { color: var(--bad); }
</style>
</head>
<body>
<header><h1>TON exporter overview</h1><span id="generated">loading…</span><span id="error"></span></header>
<main>
  <div class="stats">
    <div class="stat"><small>Masterchain blocks stored</small><b id="done-blocks">–</b></div>
    <div class="stat"><small>Last masterchain seqno</small><b id="last-seqno">–</b></div>
    <div class="stat"><small>Lag behind chain</small><b id="lag">–</b></div>
    <div class="stat"><small>Transactions stored</small><b id="tx-total">–</b></div>
    <div class="stat"><small>Blocks in flight</small><b id="pending">–</b></div>
  </div>
  <section><h2>Transactions per day</h2><div id="chart-daily-tx"></div></section>
  <section><h2>Active accounts per day</h2><div id="chart-daily-accounts"></div></section>
  <section><h2>Write throughput (transactions stored per minute)</h2><div id="chart-throughput"></div></section>
  <section><h2>Transactions per hour (latest 48 h with data)</h2><div id="chart-hourly"></div></section>
  <section><h2>Latest masterchain blocks</h2>
    <table id="latest-blocks"><thead><tr><th>seqno</th><th>generated (UTC)</th><th>blocks</th><th>transactions</th>
    </tr></thead><tbody></tbody></table></section>
  <section class="wide"><h2>Daily activity</h2>
    <table id="daily"><thead><tr><th>day</th><th>transactions</th><th>successful</th><th>aborted</th>
    <th>active accounts</th><th>messages in</th><th>bounced</th><th>fees, TON</th><th>value moved, TON</th></tr></thead>
    <tbody></tbody></table></section>
  <section class="wide"><h2>Delivered messages per day by decoded opcode</h2>
    <table id="opcodes"><thead><tr><th>day</th><th>opcode</th><th>messages</th><th>value attached, TON</th></tr>
    </thead><tbody></tbody></table></section>
</main>
<script>
"use strict";
const fmt = (n) => Number(n).toLocaleString("en-US");
const ton = (s) => {
  const v = BigInt(s), whole = v / 1000000000n, frac = (v % 1000000000n).toString().padStart(9, "0");
  return whole.toLocaleString("en-US") + "." + frac;
};
const utc = (t) => new Date(t * 1000).toISOString().replace("T", " ").slice(0, 19);
const duration = (s) => s === null ? "–" : s < 120 ? s + " s" : s < 7200 ? Math.round(s / 60) + " min"
  : s < 172800 ? Math.round(s / 3600) + " h" : Math.round(s / 86400) + " d";
const el = (tag, attrs, text) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
};
function bars(target, points, color) {
  const box = document.getElementById(target);
  box.textContent = "";
  const W = 480, H = 160, L = 44, B = 22;
  const svg = el("svg", { viewBox: "0 0 " + W + " " + H, width: "100%", role: "img" });
  const max = Math.max(1, ...points.map((p) => p.value));
  const w = (W - L) / Math.max(1, points.length);
  svg.appendChild(el("text", { x: 2, y: 10 }, fmt(max)));
  svg.appendChild(el("text", { x: 2, y: H - B }, "0"));
  svg.appendChild(el("line", { x1: L, x2: W, y1: H - B, y2: H - B, stroke: "#ccd" }));
  points.forEach((p, i) => {
    const h = (p.value / max) * (H - B - 8);
    const r = el("rect", { x: L + i * w + 1, y: H - B - h, width: Math.max(1, w - 2), height: h, fill: color,
      "data-label": p.label, "data-value": p.value });
    r.appendChild(el("title", {}, p.label + ": " + fmt(p.value)));
    svg.appendChild(r);
  });
  const step = Math.max(1, Math.ceil(points.length / 6));
  points.forEach((p, i) => {
    if (i % step === 0) svg.appendChild(el("text", { x: L + i * w + 1, y: H - 6 }, p.short));
  });
  if (points.length === 0) svg.appendChild(el("text", { x: L + 10, y: H / 2 }, "no data yet"));
  box.appendChild(svg);
}
function fill(tableId, rows) {
  const body = document.querySelector("#" + tableId + " tbody");
  body.textContent = "";
  for (const cells of rows) {
    const tr = document.createElement("tr");
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    body.appendChild(tr);
  }
}
function render(d) {
  const p = d.progress;
  document.getElementById("generated").textContent = "as of " + utc(d.generated_at) + " UTC";
  document.getElementById("done-blocks").textContent = fmt(p.done_blocks);
  document.getElementById("last-seqno").textContent = p.last_mc_seqno === null ? "–" : String(p.last_mc_seqno);
  document.getElementById("lag").textContent = duration(p.lag_seconds);
  document.getElementById("tx-total").textContent = fmt(p.transactions);
  document.getElementById("pending").textContent = fmt(p.pending_blocks);
  bars("chart-daily-tx", d.daily.map((x) => ({ label: x.day, short: x.day.slice(2), value: x.transactions })),
    "var(--bar)");
  bars("chart-daily-accounts", d.daily.map((x) => ({ label: x.day, short: x.day.slice(2), value: x.active_accounts })),
    "var(--bar2)");
  bars("chart-throughput", d.throughput.map((x) => ({ label: utc(x.minute), short: utc(x.minute).slice(11, 16),
    value: x.transactions })), "var(--bar)");
  bars("chart-hourly", d.hourly.map((x) => ({ label: utc(x.hour), short: utc(x.hour).slice(5, 13),
    value: x.transactions })), "var(--bar2)");
  fill("latest-blocks", d.latest_blocks.map((b) => [String(b.mc_seqno), b.gen_utime ? utc(b.gen_utime) : "–",
    fmt(b.block_count), fmt(b.tx_count)]));
  fill("daily", d.daily.map((x) => [x.day, fmt(x.transactions), fmt(x.successful), fmt(x.aborted),
    fmt(x.active_accounts), fmt(x.messages_in), fmt(x.bounced_in), ton(x.total_fees), ton(x.value_moved)]));
  fill("opcodes", d.opcodes_daily.map((x) => [x.day, x.name, fmt(x.messages), ton(x.value)]));
  document.body.dataset.ready = "true";
}
async function load() {
  try {
    const r = await fetch("/overview/data" + location.search, { cache: "no-store" });
    if (!r.ok) throw new Error("HTTP " + r.status);
    render(await r.json());
    document.getElementById("error").textContent = "";
  } catch (e) {
    document.getElementById("error").textContent = "cannot load data: " + e.message;
  }
}
load();
setInterval(load, 15000);
</script>
</body>
</html>
`
