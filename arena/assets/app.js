// Live pages: the leaderboard, the list of matches being played, a team's page and an
// upload's stages follow the server's live events (GET /api/events, server-sent events)
// instead of polling. Text goes in with textContent only, so a team name is never markup.
(function () {
  "use strict";
  const table = document.getElementById("leaderboard");
  const live = document.getElementById("live");
  const team = document.getElementById("team-live");
  const version = document.getElementById("version");
  const match = document.getElementById("match");
  if (!table && !live && !team && !version && !match) return;
  const pct = (x) => (100 * x).toFixed(1);
  const when = (ms) => (ms > 0 ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "never");
  function cell(tr, text) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function renderBoard(data) {
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
      // One cell per boss, as the server renders it (web/pages/bosses.rs).
      for (const b of r.bosses || []) {
        const td = cell(tr, "");
        td.className = "boss";
        if (b.deals === 0) {
          const none = document.createElement("span");
          none.className = "muted";
          none.textContent = "–";
          td.appendChild(none);
          continue;
        }
        td.appendChild(document.createTextNode(pct(b.win_rate) + "% (" + pct(b.win_rate_ci95[0]) + "–" + pct(b.win_rate_ci95[1]) + ") "));
        const deals = document.createElement("span");
        deals.className = "muted";
        deals.textContent = b.deals + " deals";
        td.appendChild(deals);
        if (b.badge) {
          td.appendChild(document.createTextNode(" "));
          const badge = document.createElement("span");
          badge.className = "badge";
          badge.textContent = b.badge;
          td.appendChild(badge);
        }
      }
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
    const games = document.getElementById("games");
    if (games) games.textContent = String(data.games);
  }
  function renderLive(data) {
    const items = data.matches.map((m) => {
      const li = document.createElement("li");
      li.textContent = "match " + m.id + " (" + m.kind + "): " + m.agents.join(" v ") + ", game " + m.games + " of " + m.of;
      return li;
    });
    live.replaceChildren(...items);
    live.setAttribute("data-playing", String(data.playing));
    const none = document.getElementById("live-none");
    if (none) {
      none.textContent = "No match is being played.";
      none.hidden = items.length > 0;
    }
  }
  // A team's page: its own tables are fetched again (at most every five seconds) when one of
  // its versions changes or its row on the board does.
  const teamId = team ? Number(team.getAttribute("data-team")) : null;
  let teamRow = null;
  let refetch = null;
  function refreshTeam() {
    if (refetch) return;
    refetch = setTimeout(async () => {
      try {
        const r = await fetch(location.href, { credentials: "same-origin" });
        if (r.ok) {
          const doc = new DOMParser().parseFromString(await r.text(), "text/html");
          const fresh = doc.getElementById("team-live");
          if (fresh) team.replaceChildren(...fresh.childNodes);
        }
      } catch (e) {
        // The server restarting: the next event tries again.
      }
      refetch = null;
    }, 5000);
  }
  const events = new EventSource("/api/events");
  events.addEventListener("board", (e) => {
    const data = JSON.parse(e.data);
    if (table) renderBoard(data);
    if (team) {
      const row = JSON.stringify(data.rows.find((r) => r.team_id === teamId) || null);
      if (teamRow !== null && row !== teamRow) refreshTeam();
      teamRow = row;
    }
  });
  // A match's page, until the match is done: asks where it is at each tick of the live list,
  // and reloads when more of its games are stored.
  async function followMatch() {
    if (!match || match.getAttribute("data-state") === "done") return;
    try {
      const r = await fetch("/api/matches/" + match.getAttribute("data-match"), { credentials: "same-origin" });
      if (!r.ok) return;
      const m = await r.json();
      const shown = document.querySelectorAll("#match-games tbody tr").length;
      if (m.state !== match.getAttribute("data-state") || m.games.length !== shown) location.reload();
    } catch (e) {
      // The next tick asks again.
    }
  }
  events.addEventListener("live", (e) => {
    if (live) renderLive(JSON.parse(e.data));
    followMatch();
  });
  events.addEventListener("version", (e) => {
    const v = JSON.parse(e.data);
    if (team && v.team === teamId) refreshTeam();
    if (!version) return;
    if (String(v.team) !== version.getAttribute("data-team") || String(v.version) !== version.getAttribute("data-version")) return;
    if (v.state === "valid" || v.state === "refused") {
      location.reload();
    } else {
      document.getElementById("state").textContent = v.state === "smoke" ? "smoke match" : v.state;
    }
  });
  // A stream opened (or reopened) after a verdict came: the page asks once where the version is.
  events.addEventListener("hello", async () => {
    followMatch();
    if (!version) return;
    const s = version.getAttribute("data-state");
    if (s === "valid" || s === "refused") return;
    try {
      const r = await fetch("/api/teams/" + version.getAttribute("data-team") + "/versions/" + version.getAttribute("data-version"), { credentials: "same-origin" });
      if (r.ok) {
        const v = await r.json();
        if (v.status === "valid" || v.status === "refused") location.reload();
      }
    } catch (e) {
      // The next event says it.
    }
  });
  events.addEventListener("resync", () => {
    if (team) refreshTeam();
  });
})();
