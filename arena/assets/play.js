// Croupier's play page: one seat of a game against agents. It asks the server for what the
// seat may see (GET /api/play/ID), draws it with the replay viewer's own drawing
// (window.croupierView, from viewer.js), offers the legal actions as buttons, and sends the
// one clicked (POST /api/play/ID/act). The server refuses anything not offered.
//
// Security: agent names, events and action texts come from agents and the rules engine; the
// DOM is built with createElement and textContent only, nothing inline, under the page's CSP.
// Every POST carries the page's CSRF token in X-Csrf-Token.
//
// Liveness: the page asks every two seconds (faster while the agents play); a page that stops
// asking is taken as left, and closing or leaving the page ends the game at once.
(function () {
  "use strict";
  var V = window.croupierView;
  var root = document.getElementById("play");
  if (!V || !root) {
    return;
  }
  var el = V.el;
  var id = root.getAttribute("data-game");
  var csrf = root.getAttribute("data-csrf") || "";
  var api = "/api/play/" + encodeURIComponent(id);
  var over = false;
  var sending = false;
  var timer = null;
  var deadline = null;
  var last = null;

  // A new child of `parent`, with its class, id and text.
  function add(parent, tag, className, idName, text) {
    var e = el(tag, className, text);
    if (idName) {
      e.id = idName;
    }
    parent.appendChild(e);
    return e;
  }

  // A titled section of `parent`; its body element.
  function section(parent, className, title, tag, bodyClass, bodyId) {
    var box = add(parent, "section", className);
    add(box, "h2", null, null, title);
    return add(box, tag, bodyClass, bodyId);
  }

  V.clear(root);
  var status = add(root, "p", "play-status", "play-status");
  status.setAttribute("aria-live", "polite");
  var error = add(root, "p", "play-error", "play-error");
  var actions = section(root, "play-actions-box", "Your move", "div", "play-actions", "play-actions");
  var board = add(root, "div", "replay-board");
  var table = add(board, "section", "replay-table", "play-table");
  var hand = section(board, "replay-hand-box", "Your hand", "div", "replay-hand", "play-hand");
  var events = section(root, "replay-events-box", "Events", "ul", "replay-events", "play-events");

  function schedule(ms) {
    if (timer !== null) {
      clearTimeout(timer);
    }
    timer = over ? null : setTimeout(poll, ms);
  }

  function say(text) {
    status.textContent = text;
  }

  function tick() {
    if (deadline === null || over || !last || last.state !== "turn") {
      return;
    }
    var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    say(
      "Your turn (P" + last.seat + "): " + Math.floor(left / 60) + ":" +
        String(left % 60).padStart(2, "0") + " left"
    );
  }
  setInterval(tick, 1000);

  function send(action, moves) {
    if (sending) {
      return;
    }
    sending = true;
    var buttons = actions.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = true;
    }
    fetch(api + "/act", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Csrf-Token": csrf },
      body: JSON.stringify({ action: action, moves: moves }),
    })
      .then(function (r) {
        return r.json().then(function (j) {
          return { ok: r.ok, body: j };
        });
      })
      .then(function (r) {
        sending = false;
        if (r.ok) {
          error.textContent = "";
          show(r.body);
        } else {
          error.textContent = String(r.body && r.body.error ? r.body.error : "refused");
          schedule(200);
        }
      })
      .catch(function (e) {
        sending = false;
        error.textContent = "could not send the move: " + e;
        schedule(1000);
      });
  }

  function show(s) {
    last = s;
    var doc = { players: s.players, game: s.game, viewer: s.seat, teams: s.teams };
    V.drawTable(table, doc, s.table);
    V.drawHand(hand, doc, s.table);
    V.clear(events);
    for (var i = s.events.length - 1; i >= 0; i--) {
      events.appendChild(el("li", "event", s.events[i]));
    }
    V.clear(actions);
    root.setAttribute("data-moves", String(s.moves));
    root.setAttribute("data-state", s.state);
    if (s.state === "turn") {
      deadline = Date.now() + (s.turn_left_ms || 0);
      s.legal.forEach(function (a) {
        var b = el("button", "action", a);
        b.type = "button";
        b.addEventListener("click", function () {
          send(a, s.moves);
        });
        actions.appendChild(b);
      });
      tick();
      schedule(2000);
    } else if (s.state === "host") {
      actions.appendChild(el("p", "muted", "The agents are playing\u2026"));
      say("The agents are playing\u2026");
      schedule(400);
    } else {
      over = true;
      say("Game over: " + (s.result ? s.result.summary : ""));
      if (s.replay) {
        var link = el("a", null, "open the replay");
        link.href = s.replay;
        link.id = "play-replay";
        actions.appendChild(link);
        setTimeout(function () {
          window.location.assign(s.replay);
        }, 1000);
      }
    }
  }

  function poll() {
    timer = null;
    fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) {
        return r.json().then(function (j) {
          return { ok: r.ok, body: j };
        });
      })
      .then(function (r) {
        if (r.ok) {
          show(r.body);
        } else {
          over = true;
          say(String(r.body && r.body.error ? r.body.error : "the game is gone"));
        }
      })
      .catch(function () {
        schedule(2000);
      });
  }

  // Leaving the page ends the game (a reload too): the server is told as the page goes.
  window.addEventListener("pagehide", function () {
    if (over) {
      return;
    }
    fetch(api + "/leave", {
      method: "POST",
      credentials: "same-origin",
      keepalive: true,
      headers: { "X-Csrf-Token": csrf },
    });
  });

  poll();
})();
