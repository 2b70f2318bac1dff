// Runs the replay viewer (VIEWER_JS path in argv[2]) against a small fake DOM, with the
// ReplayDoc JSON read from stdin, and checks what it renders at every step. Run by
// tournament/tests/tournament/replay.rs. The fake DOM has no HTML parser: `innerHTML`,
// `style` and inline event attributes throw, so a viewer that used them fails here.
"use strict";
const fs = require("fs");
const vm = require("vm");

class El {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.childNodes = [];
    this.parentNode = null;
    this.text = "";
    this.className = "";
    this.id = "";
    this.attrs = {};
    this.listeners = {};
    this.disabled = false;
    this.value = "";
  }
  get firstChild() {
    return this.childNodes[0] || null;
  }
  appendChild(c) {
    if (!(c instanceof El)) throw new Error("appendChild of a non-element");
    if (c.parentNode) c.parentNode.removeChild(c);
    c.parentNode = this;
    this.childNodes.push(c);
    return c;
  }
  removeChild(c) {
    const i = this.childNodes.indexOf(c);
    if (i < 0) throw new Error("removeChild of a non-child");
    this.childNodes.splice(i, 1);
    c.parentNode = null;
    return c;
  }
  get textContent() {
    return this.text + this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(v) {
    this.childNodes = [];
    this.text = String(v);
  }
  get classList() {
    const self = this;
    const list = () => self.className.split(/\s+/).filter(Boolean);
    return {
      add(...cs) {
        const s = new Set(list());
        cs.forEach((c) => s.add(c));
        self.className = [...s].join(" ");
      },
      contains(c) {
        return list().includes(c);
      },
    };
  }
  setAttribute(k, v) {
    if (/^on/i.test(k) || k.toLowerCase() === "style") throw new Error("inline attribute " + k);
    this.attrs[k] = String(v);
  }
  addEventListener(t, f) {
    (this.listeners[t] = this.listeners[t] || []).push(f);
  }
  fire(t, ev) {
    ev = Object.assign({ target: this, preventDefault() {} }, ev || {});
    (this.listeners[t] || []).forEach((f) => f(ev));
  }
  set innerHTML(_) {
    throw new Error("innerHTML set");
  }
  get innerHTML() {
    throw new Error("innerHTML read");
  }
  set outerHTML(_) {
    throw new Error("outerHTML set");
  }
  get style() {
    throw new Error("style used");
  }
  insertAdjacentHTML() {
    throw new Error("insertAdjacentHTML used");
  }
  scrollIntoView() {}
}

function* walk(n) {
  yield n;
  for (const c of n.childNodes) yield* walk(c);
}
const has = (n, cls) => n.className.split(/\s+/).includes(cls);
const byClass = (root, cls) => [...walk(root)].filter((n) => has(n, cls));

const body = new El("body");
const main = body.appendChild(new El("main"));
main.id = "replay";
const source = body.appendChild(new El("script"));
source.id = "replay-doc";
source.text = fs.readFileSync(0, "utf8");
const doc = JSON.parse(source.text);

const docListeners = {};
const document = {
  body,
  readyState: "complete",
  createElement: (t) => new El(t),
  getElementById: (id) => [...walk(body)].find((n) => n.id === id) || null,
  addEventListener(t, f) {
    (docListeners[t] = docListeners[t] || []).push(f);
  },
  write() {
    throw new Error("document.write used");
  },
};
const window = {};
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), { document, window });

const $ = (id) => {
  const n = document.getElementById(id);
  if (!n) throw new Error("no #" + id);
  return n;
};
function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
const key = (k) =>
  (docListeners.keydown || []).forEach((f) => f({ key: k, target: body, preventDefault() {} }));
const n = doc.steps.length - 1;
const stepText = () => $("replay-step").textContent;

// The header names every player exactly, as text.
const header = $("replay-header").textContent;
doc.players.forEach((p) => check(header.includes(p), "player name missing: " + p));

check(stepText() === "step 0 / " + n, "first: " + stepText());
check($("replay-prev").disabled && $("replay-first").disabled, "prev enabled at 0");
for (let i = 0; i <= n; i++) {
  check(stepText() === "step " + i + " / " + n, "at " + i + ": " + stepText());
  const step = doc.steps[i];
  const t = step.table;
  const hand = byClass($("replay-hand"), "card");
  const want = t.hand || [];
  check(hand.length === want.length, `step ${i}: ${hand.length} hand cards, want ${want.length}`);
  const tableCards = byClass($("replay-table"), "card");
  const piles = t.piles.reduce((a, p) => a + p.cards.length + p.cards.filter((c) => c.cover).length, 0);
  check(tableCards.length === piles, `step ${i}: ${tableCards.length} table cards, want ${piles}`);
  for (const c of hand.concat(tableCards)) {
    check(!has(c, "unknown"), `step ${i}: a card not drawn as one: ${c.textContent}`);
    if (doc.game === "uno") {
      check(c.className.includes("uno-"), "an UNO card without colour");
    } else {
      check(has(c, "red") || has(c, "black"), "a French card without colour");
      const s = c.title.slice(-1);
      check(has(c, "red") === (s === "H" || s === "D"), "wrong colour for " + c.title);
    }
  }
  const seats = byClass($("replay-table"), "seat");
  check(seats.length === t.seats.length, "seats");
  seats.forEach((s, k) => check(has(s, "to-act") === (t.to_act === k), "to-act mark"));
  const evs = $("replay-events").childNodes.map((li) => li.textContent);
  step.events.forEach((e) => check(evs.includes(e), `step ${i}: event missing: ${e}`));
  step.faults.forEach((f) =>
    check(evs.some((e) => e.startsWith("P" + f.seat + " fault " + f.verdict)), "fault missing")
  );
  const logLines = $("replay-log").childNodes.filter((li) => !has(li, "empty"));
  const wantLog = doc.log.filter((l) => l.step === null || l.step <= i);
  check(logLines.length === wantLog.length, `step ${i}: ${logLines.length} log lines, want ${wantLog.length}`);
  wantLog.forEach((l, k) => check(logLines[k].textContent.includes(l.text), "log text"));
  check(
    ($("replay-result").textContent !== "") === (i === n),
    "the result shows at the last step only"
  );
  if (i < n) $("replay-next").fire("click");
}
check($("replay-next").disabled && $("replay-last").disabled, "next enabled at the end");
$("replay-next").fire("click");
check(stepText() === "step " + n + " / " + n, "next past the end");
key("ArrowLeft");
check(stepText() === "step " + Math.max(0, n - 1) + " / " + n, "ArrowLeft: " + stepText());
key("Home");
check(stepText() === "step 0 / " + n, "Home");
key("ArrowRight");
check(stepText() === "step " + Math.min(1, n) + " / " + n, "ArrowRight");
key("End");
check(stepText() === "step " + n + " / " + n, "End");
$("replay-first").fire("click");
check(stepText() === "step 0 / " + n, "first button");
$("replay-last").fire("click");
$("replay-prev").fire("click");
check(stepText() === "step " + Math.max(0, n - 1) + " / " + n, "prev button");
const slider = $("replay-slider");
slider.value = String(Math.min(2, n));
slider.fire("input");
check(stepText() === "step " + Math.min(2, n) + " / " + n, "slider");
// An arrow key on the slider is the slider's own: the page does not move a second time.
(docListeners.keydown || []).forEach((f) => f({ key: "ArrowRight", target: slider, preventDefault() {} }));
check(stepText() === "step " + Math.min(2, n) + " / " + n, "slider arrow moved twice");
process.stdout.write("ok " + n + " steps\n");
