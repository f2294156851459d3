// The play page: a session against bgnet through the JSON API (/api/games).  Each tab keeps its own
// session id in sessionStorage, so tabs never share a game.  ?speed=0 shows the bot's moves at once;
// ?variant=plakoto (or tavli, fevga, ...) starts a variant session (no cube) instead of backgammon.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const speed = Number(params.get("speed") ?? "1");
  const svg = $("board");
  const app = { state: null, ready: false, busy: 0 };
  window.bgnet = app;  // for people curious in the console, and for the browser tests
  let sid = sessionStorage.getItem("bgnet-session");
  let view = { board: null, dice: [], diceSide: "you", cube: null };
  let turn = null, selected = null, dragFrom = null;

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms * speed));

  async function api(method, path, body) {
    const opts = { method, headers: {} };
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: `HTTP ${res.status}` }; }
    if (!res.ok) { const err = new Error(data.error || `HTTP ${res.status}`); err.status = res.status; throw err; }
    return data;
  }

  function log(text) {
    const d = document.createElement("div");
    d.textContent = text;
    $("log").appendChild(d);
    $("log").scrollTop = $("log").scrollHeight;
  }

  function draw() {
    const opts = { cube: view.cube, diceSide: view.diceSide, dice: view.dice, selected };
    if (turn) {
      opts.dice = turn.dice();
      opts.diceSide = "you";
      opts.sources = app.ready ? turn.sources() : new Set();
      if (selected !== null) opts.dests = new Set(turn.options(selected).map((o) => o.to));
      view.board = turn.board;
    }
    BG.render(svg, view.board, opts);
  }

  async function act(fn) {
    app.ready = false; app.busy++;
    $("error").textContent = "";
    try { await fn(); }
    catch (e) {
      $("error").textContent = e.message;
      if (e.status === 404 && app.state === null) { sid = null; }
    } finally { app.busy--; if (!app.busy) { app.ready = true; update(); } }
  }

  async function showEvent(ev, rules) {
    if (ev.kind === "opening" && ev.variant) {
      const who = ev.first === "you" ? "you move" : "bgnet moves";
      log(ev.dice
        ? `Game ${ev.game} (${ev.variant}): you roll ${ev.dice.you}, bgnet rolls ${ev.dice.bgnet}; ${who} first.`
        : `Game ${ev.game} (${ev.variant}): ${ev.first === "you" ? "you" : "bgnet"} won the last game and ${ev.first === "you" ? "move" : "moves"} first.`);
    } else if (ev.kind === "opening") {
      log(`Game ${ev.game}${ev.crawford ? " (Crawford)" : ""}: you roll ${ev.dice.you}, bgnet rolls ${ev.dice.bgnet}; ${ev.first === "you" ? "you move" : "bgnet moves"} first.`);
    } else if (ev.kind === "move" && ev.who === "bgnet") {
      const dice = ev.dice.map((v) => ({ value: v, used: false }));
      view.diceSide = "bgnet";
      view.dice = dice;
      turn = null; selected = null;
      draw();
      await sleep(350);
      for (const [f, t] of ev.steps) {
        view.board = BG.applyTheirs(view.board, f, t, rules);
        draw();
        await sleep(350);
      }
      view.board = ev.board;
      draw();
      log(ev.play ? `bgnet rolls ${ev.dice[0]}-${ev.dice[1]} and plays ${ev.play}${ev.again ? "; bgnet rolls again" : ""}` : `bgnet rolls ${ev.dice[0]}-${ev.dice[1]}: no legal play`);
      await sleep(250);
    } else if (ev.kind === "move") {
      log(ev.play ? `you play ${ev.dice[0]}-${ev.dice[1]}: ${ev.play}${ev.again ? "; you roll again" : ""}` : `you roll ${ev.dice[0]}-${ev.dice[1]}: no legal play`);
    } else if (ev.kind === "roll") {
      log(`you roll ${ev.dice[0]}-${ev.dice[1]}`);
    } else if (ev.kind === "double") {
      log(`${ev.who} ${ev.who === "you" ? "double" : "doubles"} to ${ev.value}`);
    } else if (ev.kind === "take") {
      log(`${ev.who} ${ev.who === "you" ? "take" : "takes"}: the cube is on ${ev.value}`);
    } else if (ev.kind === "beaver") {
      log(`${ev.who} ${ev.who === "you" ? "beaver" : "beavers"}: the cube is on ${ev.value}`);
    } else if (ev.kind === "drop") {
      log(`${ev.who} ${ev.who === "you" ? "drop" : "drops"}`);
    } else if (ev.kind === "resign") {
      log(`${ev.who} offer${ev.who === "you" ? "" : "s"} to resign ${["", "a single game", "a gammon", "a backgammon"][ev.value]}`);
    } else if (ev.kind === "accept") {
      log(`${ev.who} accepts the resignation`);
    } else if (ev.kind === "reject") {
      log(`${ev.who} rejects the resignation: play on`);
    } else if (ev.kind === "over") {
      log(ev.text);
    }
  }

  async function receive(state) {
    sid = state.id;
    sessionStorage.setItem("bgnet-session", sid);
    if (view.board === null) view.board = state.board;
    for (const ev of state.events) await showEvent(ev, state.rules || undefined);
    app.state = state;
    view.board = state.board;
    view.cube = state.cube;
    view.dice = state.dice ? state.dice.map((v) => ({ value: v, used: false })) : [];
    view.diceSide = "you";
    selected = null;
    turn = state.phase === "move" && state.actor === "you" && state.legal.length ? new BG.Turn(state.board, state.dice, state.legal, state.rules || undefined) : null;
    fillPlays(state.legal);
    $("legalmore").textContent = state.legal_total > state.legal.length ? `${state.legal.length} of ${state.legal_total} legal plays listed: type the others` : "";
    $("legalmore").classList.toggle("hidden", !(state.legal_total > state.legal.length));
    if (state.message) $("error").textContent = state.message;
    $("hintbox").classList.add("hidden");
  }

  function statusText(s) {
    if (s.match.over) return s.match.length ? `Match over: ${s.match.winner === "you" ? "you win" : "bgnet wins"} ${s.match.score.you}-${s.match.score.bgnet}.` : (s.result ? s.result.text : "Session over.");
    if (s.phase === "over") return s.result.text + " Next game?";
    if (s.actor !== "you") return "bgnet is thinking...";
    if (s.phase === "roll") return "Your turn: roll or double.";
    if (s.phase === "doubled") return `bgnet doubles to ${s.cube.value * 2}: take or drop?`;
    if (s.phase === "move") return turn && turn.done() ? `Your ${s.dice[0]}-${s.dice[1]}: ${turn.play()}. Confirm?` : `Your move${s.variant ? " (" + s.variant + ")" : ""}: ${s.dice[0]}-${s.dice[1]}.`;
    return "";
  }

  function update() {
    const s = app.state;
    if (!s) return;
    const mine = s.actor === "you" && app.ready;
    const show = (id, on) => $(id).classList.toggle("hidden", !on);
    show("roll", mine && s.phase === "roll");
    show("double", mine && s.phase === "roll" && s.may_double);
    show("take", mine && s.phase === "doubled");
    show("drop", mine && s.phase === "doubled");
    show("beaver", mine && s.phase === "doubled" && s.may_beaver);
    show("undo", mine && s.phase === "move");
    show("confirm", mine && s.phase === "move");
    show("next", app.ready && s.phase === "over" && !s.match.over);
    show("playsbox", mine && s.phase === "move" && s.legal.length > 0);
    show("mat", !s.variant);
    $("resign").classList.toggle("hidden", !!s.variant);
    $("resign-level").classList.toggle("hidden", !!s.variant);
    $("undo").disabled = !(turn && turn.history.length);
    $("confirm").disabled = !(turn && turn.done());
    $("hint").disabled = !mine || s.phase === "resigned";
    $("resign").disabled = !mine || !["roll", "move"].includes(s.phase);
    $("status").textContent = statusText(s);
    $("mat").href = `/api/games/${s.id}/mat`;
    const m = s.match;
    const score = m.length
      ? `${m.length}-point match: you ${m.score.you}, bgnet ${m.score.bgnet}${s.match.crawford ? " (Crawford game)" : s.match.post_crawford ? " (post-Crawford)" : ""}`
      : `Money session, game ${m.game}: you ${m.score.you >= 0 ? "+" : ""}${m.score.you}, bgnet ${m.score.bgnet >= 0 ? "+" : ""}${m.score.bgnet}${m.jacoby ? " (Jacoby)" : ""}${m.beavers ? " (beavers)" : ""}`;
    $("info").innerHTML = "";
    if (s.variant) {
      const pips = pipsOf(turn ? turn.board : s.board, s.rules);
      const head = m.length ? `${s.session}: match to ${m.length}, you ${m.score.you}, bgnet ${m.score.bgnet}` : `${s.session}, game ${m.game}: you ${m.score.you}, bgnet ${m.score.bgnet}`;
      for (const line of [head, `This game: ${s.variant} (no cube)`, `Pips: you ${pips[0]}, bgnet ${pips[1]}`, `bgnet: ${s.bot}`]) {
        const d = document.createElement("div"); d.textContent = line; $("info").appendChild(d);
      }
      const ids = document.createElement("div");
      ids.className = "ids";
      ids.innerHTML = `Position <code id="pid"></code>`;
      $("info").appendChild(ids);
      $("pid").textContent = s.position;
      draw();
      return;
    }
    const owner = { centered: "centred", you: "yours", bgnet: "bgnet's" }[s.cube.owner];
    const pips = turn ? pipsOf(turn.board) : [s.pips.you, s.pips.bgnet];
    for (const line of [score, `Cube: ${s.cube.value} (${owner})`, `Pips: you ${pips[0]}, bgnet ${pips[1]}`, `bgnet plays at ${s.ply}-ply`]) {
      const d = document.createElement("div"); d.textContent = line; $("info").appendChild(d);
    }
    const ids = document.createElement("div");
    ids.className = "ids";
    ids.innerHTML = `Position ID <code id="pid"></code> Match ID <code id="mid"></code>`;
    $("info").appendChild(ids);
    $("pid").textContent = s.position_id; $("mid").textContent = s.match_id;
    draw();
  }

  // Pips of both sides from a board seen by the person; on a variant's board pinned checkers count on
  // their point, waiting ones 25, and in same-direction games the other side's point q is ours (q+11)%24+1.
  function pipsOf(b, rules) {
    let a = 0, c = 0;
    const theirs = (s) => (rules && rules.rotate ? ((s + 11) % 24) + 1 : 25 - s);
    for (let p = 1; p <= 25; p++) if (b[p] > 0) a += p * b[p];
    for (let p = 1; p <= 24; p++) if (b[p] < 0) c += theirs(p) * -b[p];
    if (b[0] < 0) c += 25 * -b[0];
    if (b.length > 26) {
      for (let p = 1; p <= 24; p++) { if (b[25 + p] > 0) a += p; else if (b[25 + p] < 0) c += theirs(p); }
      a += 25 * b[50]; c += 25 * -b[51];
    }
    return [a, c];
  }

  function fillPlays(legal) {
    const sel = $("legalplays");
    sel.innerHTML = "";
    for (const p of legal || []) {
      const o = document.createElement("option");
      o.value = p.play; o.textContent = p.play + (p.again ? " (roll again)" : "");
      sel.appendChild(o);
    }
  }

  // -- checkers: click a checker, then a highlighted point (or drag it there) ----------------------

  function slotAt(target) {
    const e = target && target.closest ? target.closest("[data-slot]") : null;
    return e ? Number(e.getAttribute("data-slot")) : null;
  }

  function press(slot) {
    if (!turn || !app.ready || slot === null) return;
    if (slot === 0 && selected === null && turn.sources().has(BG.WAITING)) slot = BG.WAITING;  // the tray: enter
    const count = slot === BG.WAITING ? turn.board[50] : turn.board[slot];
    if (selected !== null && selected !== slot && turn.options(selected).some((o) => o.to === slot)) {
      turn.step(selected, slot);
      selected = null;
    } else if (slot !== 0 && count > 0 && turn.options(slot).length) {
      selected = selected === slot ? null : slot;
    } else {
      selected = null;
    }
    update();
  }

  svg.addEventListener("pointerdown", (e) => {
    const slot = slotAt(e.target);
    dragFrom = selected === null ? slot : null;
    press(slot);
  });
  svg.addEventListener("pointerup", (e) => {
    if (dragFrom === null || selected !== dragFrom) { dragFrom = null; return; }
    const slot = slotAt(document.elementFromPoint(e.clientX, e.clientY));
    dragFrom = null;
    if (slot !== null && slot !== selected) press(slot);
  });

  // -- buttons ---------------------------------------------------------------------------------

  const post = (action, body) => act(async () => receive(await api("POST", `/api/games/${sid}/${action}`, body || {})));
  $("roll").onclick = () => post("roll");
  $("double").onclick = () => post("double");
  $("take").onclick = () => post("take");
  $("drop").onclick = () => post("drop");
  $("beaver").onclick = () => post("beaver");
  $("next").onclick = () => { $("log").innerHTML = ""; post("next"); };
  $("resign").onclick = () => post("resign", { level: $("resign-level").value });
  $("undo").onclick = () => { if (turn) { turn.undo(); selected = null; update(); } };
  $("confirm").onclick = () => { if (turn && turn.done()) post("move", { play: turn.play() }); };
  $("playlegal").onclick = () => { if ($("legalplays").value) post("move", { play: $("legalplays").value }); };
  $("playtyped").onclick = () => {
    if (!$("typed").value.trim()) return;
    post("move", { play: $("typed").value }).then(() => { if (!$("error").textContent) $("typed").value = ""; });
  };
  $("hint").onclick = () => act(async () => showHint(await api("GET", `/api/games/${sid}/hint`)));
  $("new").onclick = () => {
    const match = document.querySelector("input[name=kind]:checked").value === "match";
    const game = $("game").value;
    let body = match ? { length: Number($("length").value) } : { length: 0, jacoby: $("jacoby").checked, beavers: $("beavers").checked };
    if (game !== "backgammon") body = { length: match ? Number($("length").value) : 0, variant: game };
    else body.variant = "backgammon";
    $("log").innerHTML = "";
    view.board = null;
    act(async () => receive(await api("POST", "/api/games", body)));
  };

  function showHint(h) {
    const box = $("hintbox");
    box.innerHTML = "";
    box.classList.remove("hidden");
    const title = document.createElement("b");
    box.appendChild(title);
    if (h.variant) {
      title.textContent = `bgnet (${h.bot}) would play ${h.best || "nothing (no legal play)"} with ${h.dice[0]}-${h.dice[1]}`;
    } else if (h.dice) {
      title.textContent = `bgnet's ranking of ${h.dice[0]}-${h.dice[1]} (${h.cubeful ? "cubeful" : "cubeless"} equity, ${h.ply}-ply)`;
      box.appendChild(BGTables.plays(h.plays, 10));
    } else {
      title.textContent = h.for === "you" ? "Your cube decision" : "bgnet's double: your answer";
      box.appendChild(BGTables.cube(h, h.for !== "you"));
    }
  }

  window.addEventListener("resize", draw);
  act(async () => {
    if (sid) {
      try { await receive(await api("GET", `/api/games/${sid}`)); return; } catch (e) { if (e.status !== 404) throw e; }
    }
    await receive(await api("POST", "/api/games", { length: Number(params.get("length") || 0), ...(params.get("seed") ? { seed: Number(params.get("seed")) } : {}), ...(params.get("variant") ? { variant: params.get("variant") } : {}) }));
  });
  api("GET", "/api/variants").then((v) => {
    for (const g of v.games) { const o = document.createElement("option"); o.value = g; o.textContent = g; $("game").appendChild(o); }
    $("game").value = params.get("variant") || v.default || "backgammon";
  }).catch(() => {});
})();
