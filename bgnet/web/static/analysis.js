// The analysis page: a pasted position, its IDs, the ranked plays of a roll and the cube decision,
// from GET /api/position and GET /api/analyze (the JSON of `bgnet analyze --json`).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const app = { ready: false, analysis: null, cube: null, position: null };
  window.bgnet = app;
  const params = new URLSearchParams(location.search);
  for (const k of ["position", "dice", "ply"]) if (params.get(k)) $(k).value = params.get(k);

  async function get(path, query) {
    const res = await fetch(path + "?" + new URLSearchParams(query));
    const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
    return data;
  }

  function idLine(name, value, id) {
    const d = document.createElement("div");
    d.innerHTML = `${name}: <code id="${id}"></code> <button type="button">copy</button>`;
    d.querySelector("code").textContent = value;
    d.querySelector("button").onclick = () => navigator.clipboard && navigator.clipboard.writeText(value);
    return d;
  }

  async function analyse() {
    app.ready = false;
    $("error").textContent = "";
    $("status").textContent = "Analysing...";
    const position = $("position").value.trim();
    const dice = $("dice").value.trim();
    const ply = $("ply").value;
    try {
      const pos = await get("/api/position", { position });
      app.position = pos;
      if (!dice && pos.dice) $("dice").value = `${pos.dice[0]}${pos.dice[1]}`;
      const roll = $("dice").value.trim();
      const cube = pos.cube ? { value: pos.cube.value, owner: { center: "centered", me: "you", opp: "bgnet" }[pos.cube.owner] } : { value: 1, owner: "centered" };
      BG.render($("board"), pos.board, { cube, dice: roll.length === 2 ? [...roll].map((v) => ({ value: Number(v), used: false })) : [] });
      $("ids").innerHTML = "";
      $("ids").appendChild(idLine("Position ID", pos.position_id, "pid"));
      if (pos.match_id) $("ids").appendChild(idLine("Match ID", pos.match_id, "mid"));
      $("ids").appendChild(idLine("XGID", pos.xgid, "xgid"));
      const pips = document.createElement("div");
      pips.textContent = `Pips: on roll ${pos.pips[0]}, opponent ${pos.pips[1]}` + (pos.cube && pos.cube.match_length ? `; ${pos.cube.match_length}-point match, score ${pos.cube.score[0]}-${pos.cube.score[1]}${pos.cube.crawford ? ", Crawford" : ""}` : "");
      $("ids").appendChild(pips);
      const query = { position, ply };
      $("playsbox").innerHTML = "";
      if (roll) {
        const a = await get("/api/analyze", { ...query, dice: roll });
        app.analysis = a;
        const title = document.createElement("b");
        title.textContent = `${a.dice[0]}-${a.dice[1]} at ${a.ply}-ply (${a.cubeful ? "cubeful" : "cubeless"} equity for the side to play)`;
        $("playsbox").append(title, BGTables.plays(a.plays));
      }
      const c = await get("/api/analyze", query);
      app.cube = c;
      $("cubebox").innerHTML = "<b>Cube decision</b>";
      $("cubebox").appendChild(BGTables.cube(c, false));
      $("status").textContent = "";
    } catch (e) {
      $("error").textContent = e.message;
      $("status").textContent = "";
    } finally {
      app.ready = true;
    }
  }

  // -- setting up a position by hand: click points (the bar: 25 white, 0 black) in the chosen mode --------
  let editing = null;
  const drawEdit = () => BG.render($("board"), editing, { cube: { value: 1, owner: "centered" } });
  $("edit").onclick = () => {
    editing = (app.position ? app.position.board : new Array(26).fill(0)).slice();
    $("edittools").classList.remove("hidden");
    $("edit").classList.add("hidden");
    drawEdit();
  };
  $("clear").onclick = () => { editing = new Array(26).fill(0); drawEdit(); };
  $("board").addEventListener("click", (e) => {
    if (!editing) return;
    const hit = e.target.closest ? e.target.closest("[data-slot]") : null;
    if (!hit || hit.id === "pt-off") return;
    const slot = Number(hit.getAttribute("data-slot"));
    const mode = $("editmode").value;
    if (slot === 25) {  // the bar: white's checkers are slot 25, black's slot 0
      if (mode === "white") editing[25] += 1;
      else if (mode === "black") editing[0] -= 1;
      else if (editing[25] > 0) editing[25] -= 1;
      else if (editing[0] < 0) editing[0] += 1;
    } else if (mode === "remove") {
      if (editing[slot]) editing[slot] -= Math.sign(editing[slot]);
    } else {
      const sign = mode === "white" ? 1 : -1;
      if (editing[slot] * sign < 0) editing[slot] = 0;  // a point holds one side's checkers
      editing[slot] += sign;
    }
    drawEdit();
  });
  $("done").onclick = async () => {
    $("error").textContent = "";
    try {
      const pos = await get("/api/position", { board: editing.join(",") });
      $("position").value = pos.position_id;
      editing = null;
      $("edittools").classList.add("hidden");
      $("edit").classList.remove("hidden");
      analyse();
    } catch (e) { $("error").textContent = e.message; }
  };

  $("form").onsubmit = (e) => { e.preventDefault(); analyse(); };
  analyse();
})();
