// bgnet's board: an SVG drawing of a position from one side, and the checker moves a person makes.
//
// A board is 26 numbers seen from the side at the bottom (the viewer): slots 1..24 are points numbered
// from the viewer (who moves from 24 to 1, home board 1..6 at the bottom right), positive counts the
// viewer's checkers, negative the other side's; slot 25 is the viewer's bar, slot 0 the other side's.
// A variant's board (bgnet.variants) has 52: slot 25 + p is a checker pinned on point p (+1 the viewer's
// under the other side's stack, -1 theirs under the viewer's), slots 50 and 51 the checkers still
// waiting to enter (acey-deucey).  `rules` ({capture: "hit"|"pin"|"none", block: 2|1, rotate}) says what
// a landing on a lone checker does and how the other side numbers the points (rotate: both sides move
// the same way, the other side's point q is the viewer's (q + 11) % 24 + 1); backgammon's by default.
// No legality is decided here: the server sends the legal plays (bgnet's move generator) and the
// page only lets a person walk to one of them, one die at a time.
"use strict";

const BG = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 1000, H = 760, R = 29, PW = 64;
  const TOP = 30, BOTTOM = 730, TIP = 300;
  const BAR_X = 414, BAR_W = 60, TRAY_X = 892, TRAY_W = 92;
  const STANDARD = { capture: "hit", block: 2, rotate: false };
  const WAITING = 26;  // the source slot of a checker entering from off the board (acey-deucey)

  function pin(board, p) { return board.length > 26 ? board[25 + p] : 0; }

  function colX(col) { return 30 + PW / 2 + PW * col + (col >= 6 ? BAR_W : 0); }
  function pointX(p) { return colX(p <= 12 ? 12 - p : p - 13); }
  function isTop(p) { return p >= 13; }

  function el(name, attrs, parent, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function checker(g, x, y, mine, label) {
    el("circle", { cx: x, cy: y, r: R - 1, class: mine ? "chk mine" : "chk theirs" }, g);
    if (label) el("text", { x: x, y: y + 7, class: mine ? "count mine" : "count theirs" }, g, label);
  }

  // n checkers from the point's edge; `under` (true: the viewer's, false: theirs) is a pinned checker
  // drawn at the edge, under the stack that pins it.
  function stack(g, x, base, dir, n, mine, under) {
    let at = 0;
    if (under !== undefined && under !== null) {
      el("circle", { cx: x, cy: base + dir * R, r: R - 1, class: (under ? "chk mine" : "chk theirs") + " pinned" }, g);
      at = 1;
    }
    const shown = Math.min(n, 5 - at);
    for (let i = 0; i < shown; i++) {
      checker(g, x, base + dir * (R + (i + at) * 2 * R), mine, i === shown - 1 && n > shown ? String(n) : "");
    }
  }

  function die(g, x, y, size, value, cls) {
    el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 8, class: "die " + cls }, g);
    const o = size * 0.27;
    const spots = {
      1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
      4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
      6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
    }[value];
    for (const [a, b] of spots) el("circle", { cx: x + a * o, cy: y + b * o, r: size * 0.08, class: "spot " + cls }, g);
  }

  // Draw `board` into `svg`.  opts: dice [{value, used}], diceSide "you"|"bgnet", cube {value, owner},
  // sources (Set of slots that can move), dests (Set of slots: 0 is off), selected (slot or null).
  function render(svg, board, opts = {}) {
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("data-board", JSON.stringify(board));
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const g = el("g", {}, svg);
    el("rect", { x: 10, y: 10, width: 870, height: 740, rx: 10, class: "frame" }, g);
    el("rect", { x: 30, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: "felt" }, g);
    el("rect", { x: BAR_X + BAR_W, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: "felt" }, g);
    el("rect", { x: BAR_X, y: TOP, width: BAR_W, height: BOTTOM - TOP, class: "bar" }, g);
    el("rect", { x: TRAY_X, y: 10, width: TRAY_W, height: 740, rx: 10, class: "frame" }, g);
    el("rect", { x: TRAY_X + 10, y: TOP, width: TRAY_W - 20, height: 300, class: "tray" }, g);
    el("rect", { x: TRAY_X + 10, y: BOTTOM - 300, width: TRAY_W - 20, height: 300, class: "tray" }, g);
    const sources = opts.sources || new Set(), dests = opts.dests || new Set();
    for (let p = 1; p <= 24; p++) {
      const x = pointX(p), top = isTop(p);
      const base = top ? TOP : BOTTOM, tip = top ? TOP + TIP : BOTTOM - TIP;
      let cls = "pt " + ((p % 2) ? "odd" : "even");
      if (dests.has(p)) cls += " dest";
      if (opts.selected === p) cls += " sel";
      el("polygon", { points: `${x - PW / 2 + 2},${base} ${x + PW / 2 - 2},${base} ${x},${tip}`, class: cls }, g);
      el("text", { x: x, y: top ? 24 : 748, class: "label" }, g, String(p));
      const n = board[p], pinned = pin(board, p);
      if (n || pinned) stack(g, x, base, top ? 1 : -1, Math.abs(n), n > 0, pinned ? pinned > 0 : null);
      if (sources.has(p) && opts.selected !== p) {
        const y = base + (top ? 1 : -1) * (R + (Math.min(Math.abs(n) + (pinned ? 1 : 0), 5) - 1) * 2 * R);
        el("circle", { cx: x, cy: y, r: R + 2, class: "movable" }, g);
      }
    }
    // The bars: the viewer's (slot 25) in the top half, the other side's (slot 0) in the bottom half.
    const bx = BAR_X + BAR_W / 2;
    if (board[25] > 0) stack(g, bx, 330, -1, board[25], true);
    if (board[0] < 0) stack(g, bx, 430, 1, -board[0], false);
    if (opts.selected === 25) el("rect", { x: BAR_X + 2, y: TOP, width: BAR_W - 4, height: 300, class: "selbar" }, g);
    else if (sources.has(25)) el("circle", { cx: bx, cy: 330 - R, r: R + 2, class: "movable" }, g);
    // Borne off: 15 minus the checkers on the board, pinned and waiting, as thin bars in the trays;
    // checkers waiting to enter (acey-deucey) as hollow bars after them.
    let mine = 0, theirs = 0;
    for (let s = 0; s < board.length; s++) { if (board[s] > 0) mine += board[s]; else theirs -= board[s]; }
    const waitMine = board.length > 26 ? board[50] : 0, waitTheirs = board.length > 26 ? -board[51] : 0;
    const bars = (count, first, cls, down) => {
      for (let i = first; i < first + count; i++) {
        const y = down ? TOP + 4 + 19 * i : BOTTOM - 4 - 19 * (i + 1);
        el("rect", { x: TRAY_X + 14, y: y, width: TRAY_W - 28, height: 16, rx: 3, class: cls }, g);
      }
    };
    bars(15 - mine, 0, "off mine", false);
    bars(waitMine, 15 - mine, "waiting mine", false);
    bars(15 - theirs, 0, "off theirs", true);
    bars(waitTheirs, 15 - theirs, "waiting theirs", true);
    if (sources.has(WAITING)) el("rect", { x: TRAY_X + 6, y: BOTTOM - 306, width: TRAY_W - 12, height: 310, rx: 6, class: "movable" }, g);
    if (dests.has(0)) el("rect", { x: TRAY_X + 6, y: BOTTOM - 306, width: TRAY_W - 12, height: 310, rx: 6, class: "offdest" }, g);
    // The cube: in the tray's middle when centred, towards its owner otherwise.
    if (opts.cube) {
      const y = { centered: 380, bgnet: 110, you: 650 }[opts.cube.owner] ?? 380;
      const cx = TRAY_X + TRAY_W / 2;
      el("rect", { x: cx - 24, y: y - 24, width: 48, height: 48, rx: 6, class: "cube", id: "cube" }, g);
      el("text", { x: cx, y: y + 9, class: "cubetext" }, g, String(opts.cube.owner === "centered" && opts.cube.value === 1 ? 64 : opts.cube.value));
    }
    // The dice: the viewer's in the right half, the other side's in the left half.
    if (opts.dice && opts.dice.length) {
      const right = opts.diceSide !== "bgnet";
      const cx = right ? BAR_X + BAR_W + 3 * PW : 30 + 3 * PW;
      const size = opts.dice.length > 2 ? 44 : 56, gap = size + 14;
      const x0 = cx - (gap * (opts.dice.length - 1)) / 2;
      opts.dice.forEach((d, i) => die(g, x0 + i * gap, 380, size, d.value, (right ? "you" : "bgnet") + (d.used ? " used" : "")));
    }
    // Hit areas on top of everything (the checkers and dice ignore the pointer): each knows its slot.
    const hits = el("g", { class: "hits" }, svg);
    for (let p = 1; p <= 24; p++) {
      const x = pointX(p), top = isTop(p);
      el("rect", { x: x - PW / 2, y: top ? TOP : 380, width: PW, height: 350, class: "hit", "data-slot": p, id: "pt-" + p }, hits);
    }
    el("rect", { x: BAR_X, y: TOP, width: BAR_W, height: BOTTOM - TOP, class: "hit", "data-slot": 25, id: "pt-25" }, hits);
    el("rect", { x: TRAY_X, y: 380, width: TRAY_W, height: 370, class: "hit", "data-slot": 0, id: "pt-off" }, hits);
  }

  // -- the person's moves: single-die steps, each kept only when it leads to a legal play --------------

  function key(board) { return board.join(","); }

  // Single-die steps (from, to) of the viewer (to 0: off; from 26: a waiting checker entering), as the
  // rules allow them, permissive where unsure (the head, tavla's no hit-and-run, fevga's start and
  // primes): the legal plays decide.
  function steps(board, d, rules = STANDARD) {
    const out = [];
    const open = (to) => board[to] >= 0 || (board[to] > -rules.block && !pin(board, to));
    if (board[25] > 0) {
      if (open(25 - d)) out.push([25, 25 - d]);
      return out;
    }
    const waiting = board.length > 26 ? board[50] : 0;
    if (waiting > 0 && open(25 - d)) out.push([WAITING, 25 - d]);
    let home = waiting === 0, highest = 0;
    for (let p = 1; p <= 24; p++) {
      if (board[p] > 0) { highest = p; if (p > 6) home = false; }
      if (pin(board, p) > 0) home = false;
    }
    for (let p = 1; p <= 24; p++) {
      if (board[p] <= 0) continue;
      const to = p - d;
      if (to >= 1) { if (open(to)) out.push([p, to]); }
      else if (home && (to === 0 || p === highest)) out.push([p, 0]);
    }
    return out;
  }

  function apply(board, from, to, rules = STANDARD) {
    const b = board.slice();
    if (from === WAITING) b[50] -= 1;
    else b[from] -= 1;
    if (from <= 24 && b[from] === 0 && pin(b, from) < 0) { b[from] = -1; b[25 + from] = 0; }  // a pin let go
    if (to >= 1) {
      if (b[to] === -1 && !pin(b, to) && rules.block >= 2) {
        if (rules.capture === "hit") { b[to] = 0; b[0] -= 1; }
        else if (rules.capture === "pin") { b[to] = 0; b[25 + to] = -1; }
      }
      b[to] += 1;
    }
    return b;
  }

  // The other side's step (from, to) in its own numbering, applied to the viewer's board.
  function applyTheirs(board, from, to, rules = STANDARD) {
    const b = board.slice();
    const slot = (q) => (rules.rotate ? ((q + 11) % 24) + 1 : 25 - q);
    if (from === WAITING) b[51] += 1;
    else if (from === 25) b[0] += 1;
    else {
      const src = slot(from);
      b[src] += 1;
      if (b[src] === 0 && pin(b, src) > 0) { b[src] = 1; b[25 + src] = 0; }
    }
    if (to >= 1) {
      const dst = slot(to);
      if (b[dst] === 1 && !pin(b, dst) && rules.block >= 2) {
        if (rules.capture === "hit") { b[dst] = 0; b[25] += 1; }
        else if (rules.capture === "pin") { b[dst] = 0; b[25 + dst] = 1; }
      }
      b[dst] -= 1;
    }
    return b;
  }

  // A turn: the legal plays' boards (key -> notation) and the dice; the steps made so far can be undone.
  class Turn {
    constructor(board, dice, legal, rules = STANDARD) {
      this.rules = rules;
      this.board = board.slice();
      this.remaining = dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [dice[0], dice[1]];
      this.all = this.remaining.slice();
      this.finals = new Map(legal.map((p) => [key(p.board), p.play]));
      this.history = [];
      this.memo = new Map();
    }
    reach(board, rem) {
      const k = key(board) + "|" + rem.slice().sort().join("");
      if (this.memo.has(k)) return this.memo.get(k);
      let ok = this.finals.has(key(board));
      if (!ok) {
        for (const d of new Set(rem)) {
          const rest = rem.slice(); rest.splice(rest.indexOf(d), 1);
          for (const [f, t] of steps(board, d, this.rules)) if (this.reach(apply(board, f, t, this.rules), rest)) { ok = true; break; }
          if (ok) break;
        }
      }
      this.memo.set(k, ok);
      return ok;
    }
    // The steps now possible from `slot`: [{to, die}] leading to a legal play.
    options(slot) {
      const out = [];
      if (this.done()) return out;
      for (const d of new Set(this.remaining)) {
        const rest = this.remaining.slice(); rest.splice(rest.indexOf(d), 1);
        for (const [f, t] of steps(this.board, d, this.rules)) {
          if (f === slot && !out.some((o) => o.to === t) && this.reach(apply(this.board, f, t, this.rules), rest)) out.push({ to: t, die: d });
        }
      }
      return out;
    }
    sources() {
      const s = new Set();
      for (let p = 1; p <= 25; p++) if (this.board[p] > 0 && this.options(p).length) s.add(p);
      if (this.board.length > 26 && this.board[50] > 0 && this.options(WAITING).length) s.add(WAITING);
      return s;
    }
    step(from, to) {
      const o = this.options(from).find((x) => x.to === to);
      if (!o) return false;
      this.history.push({ board: this.board, remaining: this.remaining.slice() });
      this.board = apply(this.board, from, to, this.rules);
      this.remaining.splice(this.remaining.indexOf(o.die), 1);
      return true;
    }
    undo() {
      const h = this.history.pop();
      if (h) { this.board = h.board; this.remaining = h.remaining; }
    }
    done() { return this.finals.has(key(this.board)); }
    play() { return this.finals.get(key(this.board)); }
    dice() {
      const left = this.remaining.slice();
      return this.all.map((v) => {
        const i = left.indexOf(v);
        if (i >= 0) { left.splice(i, 1); return { value: v, used: false }; }
        return { value: v, used: true };
      });
    }
  }

  return { render, Turn, applyTheirs, steps, apply, key, WAITING };
})();
