// Croupier replay viewer: renders the ReplayDoc embedded in the page as JSON, in the script
// element of type application/json with the id replay-doc. Plain JavaScript, no libraries.
//
// Security: names, log lines, summaries and fault messages come from agents and log files.
// The DOM is built with createElement and textContent only (never by parsing markup), and nothing
// is inline (no event-handler attributes, no style attributes), so the page works under
// `default-src 'none'; script-src 'self'; style-src 'self'`.
(function () {
  "use strict";

  var FRENCH_SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var UNO_COLOURS = { R: "red", Y: "yellow", G: "green", B: "blue" };

  // Creates an element with classes and text; `text` is always set as text.
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) {
      e.className = className;
    }
    if (text !== undefined && text !== null) {
      e.textContent = String(text);
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  // A card drawn as a card, from its text: `10H`, `QS` (French) or `R7`, `GSkip`, `W4` (UNO).
  function card(text, game) {
    text = String(text);
    var c = el("span", "card");
    c.title = text;
    var rank = text;
    var suit = "";
    if (game === "uno") {
      var colour = UNO_COLOURS[text.charAt(0)];
      if (text === "W" || text === "W4") {
        c.classList.add("uno", "uno-wild");
        rank = text === "W" ? "W" : "+4";
        suit = "wild";
      } else if (colour) {
        c.classList.add("uno", "uno-" + colour);
        rank = text.slice(1);
        if (rank === "Skip") {
          rank = "\u2298";
        } else if (rank === "Rev") {
          rank = "\u21c4";
        } else if (rank === "D2") {
          rank = "+2";
        }
        suit = colour;
      } else {
        c.classList.add("unknown");
      }
    } else {
      var s = text.charAt(text.length - 1);
      if (FRENCH_SUITS[s] && text.length > 1) {
        rank = text.slice(0, -1);
        suit = FRENCH_SUITS[s];
        c.classList.add(s === "D" || s === "H" ? "red" : "black");
      } else {
        c.classList.add("unknown");
      }
    }
    c.appendChild(el("span", "rank", rank));
    if (suit && game !== "uno") {
      c.appendChild(el("span", "suit", suit));
    }
    return c;
  }

  function seatName(doc, s) {
    var name = doc.players[s];
    return "P" + s + (name === undefined ? "" : " " + name);
  }

  function Viewer(doc, root) {
    this.doc = doc;
    this.root = root;
    this.step = 0;
    this.last = Math.max(0, doc.steps.length - 1);
    this.build();
    this.show(0);
  }

  Viewer.prototype.build = function () {
    var doc = this.doc;
    var self = this;
    var root = this.root;
    clear(root);

    var header = el("header", "replay-header");
    header.id = "replay-header";
    header.appendChild(
      el("h1", null, doc.game + " \u00b7 " + doc.rules + " \u00b7 game " + doc.index)
    );
    header.appendChild(
      el(
        "p",
        "replay-meta",
        "deal " + doc.deal + " \u00b7 seed " + (doc.seedText || doc.seed) + " \u00b7 " +
          (doc.viewer === null || doc.viewer === undefined
            ? "spectator view (public information only)"
            : "seen by " + seatName(doc, doc.viewer))
      )
    );
    var players = el("ol", "replay-players");
    players.id = "replay-players";
    for (var s = 0; s < doc.players.length; s++) {
      var li = el("li", null, seatName(doc, s));
      if (doc.teams) {
        li.appendChild(el("span", "tag", "team " + doc.teams[s]));
      }
      players.appendChild(li);
    }
    header.appendChild(players);
    root.appendChild(header);

    var controls = el("nav", "replay-controls");
    controls.id = "replay-controls";
    function button(id, label, title, go) {
      var b = el("button", null, label);
      b.id = id;
      b.type = "button";
      b.title = title;
      b.addEventListener("click", function () {
        self.show(go());
      });
      controls.appendChild(b);
      return b;
    }
    // First and last are arrows to a bar (U+21E4, U+21E5): the media-control glyphs (U+23EE,
    // U+23ED) are missing from common fonts (DejaVu, Liberation) and showed as empty boxes.
    this.firstButton = button("replay-first", "\u21e4", "first step (Home)", function () {
      return 0;
    });
    this.prevButton = button("replay-prev", "\u25c0", "previous step (\u2190)", function () {
      return self.step - 1;
    });
    this.nextButton = button("replay-next", "\u25b6", "next step (\u2192)", function () {
      return self.step + 1;
    });
    this.lastButton = button("replay-last", "\u21e5", "last step (End)", function () {
      return self.last;
    });
    var slider = el("input");
    slider.id = "replay-slider";
    slider.type = "range";
    slider.min = "0";
    slider.max = String(this.last);
    slider.value = "0";
    slider.setAttribute("aria-label", "step");
    slider.addEventListener("input", function () {
      self.show(parseInt(slider.value, 10));
    });
    controls.appendChild(slider);
    this.slider = slider;
    this.counter = el("span", "replay-step");
    this.counter.id = "replay-step";
    this.counter.setAttribute("aria-live", "polite");
    controls.appendChild(this.counter);
    root.appendChild(controls);

    this.action = el("p", "replay-action");
    this.action.id = "replay-action";
    root.appendChild(this.action);

    var board = el("div", "replay-board");
    this.table = el("section", "replay-table");
    this.table.id = "replay-table";
    board.appendChild(this.table);
    var handBox = el("section", "replay-hand-box");
    handBox.appendChild(el("h2", null, "Hand"));
    this.hand = el("div", "replay-hand");
    this.hand.id = "replay-hand";
    handBox.appendChild(this.hand);
    board.appendChild(handBox);
    root.appendChild(board);

    var side = el("div", "replay-side");
    var evBox = el("section", "replay-events-box");
    evBox.appendChild(el("h2", null, "Events"));
    this.events = el("ul", "replay-events");
    this.events.id = "replay-events";
    evBox.appendChild(this.events);
    side.appendChild(evBox);
    var logBox = el("section", "replay-log-box");
    logBox.appendChild(el("h2", null, "Agent log"));
    this.log = el("ol", "replay-log");
    this.log.id = "replay-log";
    logBox.appendChild(this.log);
    side.appendChild(logBox);
    root.appendChild(side);

    this.result = el("p", "replay-result");
    this.result.id = "replay-result";
    root.appendChild(this.result);

    document.addEventListener("keydown", function (e) {
      // The slider moves itself on arrow keys; a second move here would skip a step.
      if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) {
        return;
      }
      if (e.key === "ArrowRight") {
        self.show(self.step + 1);
      } else if (e.key === "ArrowLeft") {
        self.show(self.step - 1);
      } else if (e.key === "Home") {
        self.show(0);
      } else if (e.key === "End") {
        self.show(self.last);
      } else {
        return;
      }
      e.preventDefault();
    });
  };

  Viewer.prototype.show = function (i) {
    if (typeof i !== "number" || isNaN(i)) {
      return;
    }
    i = Math.max(0, Math.min(this.last, i));
    this.step = i;
    var doc = this.doc;
    var step = doc.steps[i] || { events: [], faults: [], table: null };
    this.slider.value = String(i);
    this.counter.textContent = "step " + i + " / " + this.last;
    this.firstButton.disabled = this.prevButton.disabled = i === 0;
    this.nextButton.disabled = this.lastButton.disabled = i === this.last;

    if (step.action === null || step.action === undefined) {
      this.action.textContent = "the deal";
    } else {
      this.action.textContent = seatName(doc, step.actor) + ": " + step.action;
    }
    this.renderTable(step.table);
    this.renderHand(step.table);
    this.renderEvents(step);
    this.renderLog(i);
    this.result.textContent = i === this.last ? "result: " + doc.result.summary : "";
  };

  Viewer.prototype.renderTable = function (t) {
    drawTable(this.table, this.doc, t);
  };

  // The table `t` of a document's step into `box`: seats (hands as counts), facts, piles.
  // Also what the play page draws a live table with (window.croupierView).
  function drawTable(box, doc, t) {
    clear(box);
    if (!t) {
      return;
    }
    var seats = el("ol", "seats");
    for (var s = 0; s < t.seats.length; s++) {
      var sv = t.seats[s];
      var li = el("li", "seat");
      if (t.to_act === s) {
        li.classList.add("to-act");
      }
      if (doc.viewer === s) {
        li.classList.add("viewer");
      }
      li.appendChild(el("span", "seat-name", seatName(doc, s)));
      var backs = el("span", "backs");
      backs.appendChild(el("span", "card-back"));
      backs.appendChild(el("span", "count", "\u00d7" + sv.cards));
      li.appendChild(backs);
      if (sv.score !== null && sv.score !== undefined) {
        li.appendChild(el("span", "score", "score " + sv.score));
      }
      for (var k = 0; k < sv.tags.length; k++) {
        li.appendChild(el("span", "tag", sv.tags[k]));
      }
      if (t.to_act === s) {
        li.appendChild(el("span", "tag to-act-tag", "to act"));
      }
      seats.appendChild(li);
    }
    box.appendChild(seats);

    var facts = el("dl", "facts");
    for (var f = 0; f < t.facts.length; f++) {
      var item = el("div", "fact");
      item.appendChild(el("dt", null, t.facts[f].label));
      item.appendChild(el("dd", null, t.facts[f].value));
      facts.appendChild(item);
    }
    box.appendChild(facts);

    for (var p = 0; p < t.piles.length; p++) {
      var pile = t.piles[p];
      var pbox = el("div", "pile");
      pbox.appendChild(el("h3", null, pile.label));
      var row = el("div", "cards");
      for (var c = 0; c < pile.cards.length; c++) {
        var pc = pile.cards[c];
        var slot = el("div", "slot");
        var stack = el("div", "stack");
        stack.appendChild(card(pc.card, doc.game));
        if (pc.cover !== null && pc.cover !== undefined) {
          var cover = card(pc.cover, doc.game);
          cover.classList.add("cover");
          stack.appendChild(cover);
        }
        slot.appendChild(stack);
        if (pc.seat !== null && pc.seat !== undefined) {
          slot.appendChild(el("span", "by", "P" + pc.seat));
        }
        row.appendChild(slot);
      }
      if (pile.cards.length === 0) {
        row.appendChild(el("span", "empty", "no cards"));
      }
      pbox.appendChild(row);
      box.appendChild(pbox);
    }
  }

  Viewer.prototype.renderHand = function (t) {
    drawHand(this.hand, this.doc, t);
  };

  // The viewing seat's hand of table `t` into `box`.
  function drawHand(box, doc, t) {
    clear(box);
    if (!t || t.hand === null || t.hand === undefined) {
      box.appendChild(el("p", "empty", "A spectator sees no hand."));
      return;
    }
    if (t.hand.length === 0) {
      box.appendChild(el("p", "empty", "no cards"));
    }
    for (var i = 0; i < t.hand.length; i++) {
      box.appendChild(card(t.hand[i], doc.game));
    }
  }

  // What the play page (arena/assets/play.js) draws with: the same cards and table.
  window.croupierView = {
    el: el,
    clear: clear,
    card: card,
    drawTable: drawTable,
    drawHand: drawHand,
  };

  Viewer.prototype.renderEvents = function (step) {
    var box = this.events;
    clear(box);
    for (var i = 0; i < step.events.length; i++) {
      box.appendChild(el("li", "event", step.events[i]));
    }
    for (var f = 0; f < step.faults.length; f++) {
      var fault = step.faults[f];
      var text = "P" + fault.seat + " fault " + fault.verdict;
      if (fault.message !== null && fault.message !== undefined) {
        text += ": " + fault.message;
      }
      box.appendChild(el("li", "event fault", text));
    }
    if (box.childNodes.length === 0) {
      box.appendChild(el("li", "event empty", "nothing visible happened"));
    }
  };

  // The viewing seat's log up to this step, this step's lines marked; lines from logs that
  // did not record their step are always listed.
  Viewer.prototype.renderLog = function (i) {
    var box = this.log;
    clear(box);
    var lines = this.doc.log || [];
    var current = null;
    for (var k = 0; k < lines.length; k++) {
      var line = lines[k];
      var placed = line.step !== null && line.step !== undefined;
      if (placed && line.step > i) {
        continue;
      }
      var li = el("li", "log-line level-" + String(line.level).replace(/[^a-z]/g, ""));
      if (placed) {
        li.appendChild(el("span", "log-step", "#" + line.step));
        if (line.step === i) {
          li.classList.add("current");
          current = current || li;
        }
      }
      li.appendChild(el("span", "log-level", line.level));
      li.appendChild(el("span", "log-text", line.text));
      box.appendChild(li);
    }
    if (lines.length === 0) {
      box.appendChild(
        el(
          "li",
          "log-line empty",
          this.doc.viewer === null || this.doc.viewer === undefined
            ? "Agent logs are private: choose a seat's view to see its agent's log."
            : "This agent logged nothing."
        )
      );
    }
    if (current && current.scrollIntoView) {
      current.scrollIntoView({ block: "nearest" });
    }
  };

  function start() {
    var source = document.getElementById("replay-doc");
    if (!source && document.getElementById("play")) {
      // The play page: it draws with window.croupierView and has no document to show.
      return;
    }
    var root = document.getElementById("replay");
    if (!root) {
      root = el("main");
      root.id = "replay";
      document.body.appendChild(root);
    }
    var doc;
    var text = source ? source.textContent : "";
    try {
      doc = JSON.parse(text);
    } catch (err) {
      clear(root);
      root.appendChild(el("p", "replay-error", "No readable replay in this page: " + err));
      return;
    }
    if (!doc || !doc.steps || !doc.players) {
      clear(root);
      root.appendChild(el("p", "replay-error", "No replay in this page."));
      return;
    }
    // A seed is a 64-bit integer, but JSON.parse makes every number a double, so a seed
    // above 2^53 would be shown rounded (and replaying that seed deals other cards). Its
    // digits are taken from the text instead: the first "seed" key is the document's own,
    // as no field before it holds an object (and a quote inside a string is escaped).
    var exact = /"seed":\s*(\d+)/.exec(text);
    if (exact) {
      doc.seedText = exact[1];
    }
    window.croupierReplay = new Viewer(doc, root);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
