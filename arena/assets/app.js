// Live leaderboard: polls the JSON API and rebuilds the table's rows. Text goes in with
// textContent only, so a team name is never markup.
(function () {
  "use strict";
  const table = document.getElementById("leaderboard");
  if (!table) return;
  const url = table.getAttribute("data-refresh");
  const pct = (x) => (100 * x).toFixed(1);
  const when = (ms) => (ms > 0 ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "never");
  function cell(tr, text) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function render(data) {
    const body = document.createElement("tbody");
    for (const r of data.rows) {
      const tr = document.createElement("tr");
      if (r.suspended) tr.className = "suspended";
      // A version with no rated game yet has no rank: it is in placement.
      cell(tr, r.rank === null ? "–" : String(r.rank));
      const name = cell(tr, "");
      const a = document.createElement("a");
      a.href = "/teams/" + encodeURIComponent(r.team_id);
      a.textContent = r.team;
      name.appendChild(a);
      cell(tr, "v" + r.version);
      cell(tr, r.mu.toFixed(2) + " ± " + r.sigma.toFixed(2));
      cell(tr, r.conservative.toFixed(2));
      cell(tr, String(r.games));
      cell(tr, r.rank === null ? "placement" : pct(r.win_rate) + "% (" + pct(r.win_rate_ci95[0]) + "–" + pct(r.win_rate_ci95[1]) + ")");
      const f = Object.entries(r.faults).map(([k, v]) => k + " " + v).join(", ") || "–";
      cell(tr, f + (r.suspended ? " (suspended)" : ""));
      cell(tr, when(r.changed_ms));
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
    const games = document.getElementById("games");
    if (games) games.textContent = String(data.games);
  }
  async function tick() {
    try {
      const r = await fetch(url, { credentials: "same-origin" });
      if (r.ok) render(await r.json());
    } catch (e) {
      // The server restarting: try again at the next tick.
    }
  }
  setInterval(tick, 3000);
})();
