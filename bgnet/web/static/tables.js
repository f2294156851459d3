// Tables of bgnet's analyses (the JSON of GET /api/analyze), shared by the play page's hint and the
// analysis page.
"use strict";

const BGTables = (() => {
  const pct = (x) => (100 * x).toFixed(1);
  const sign = (x) => (x >= 0 ? "+" : "") + x.toFixed(4);

  function table(head, rows, id) {
    const t = document.createElement("table");
    if (id) t.id = id;
    const tr = t.createTHead().insertRow();
    for (const h of head) { const th = document.createElement("th"); th.textContent = h; tr.appendChild(th); }
    const body = t.createTBody();
    for (const r of rows) {
      const row = body.insertRow();
      for (const c of r) row.insertCell().textContent = c;
    }
    return t;
  }

  // The ranked plays: rank, play, ply, equity, loss and the 5 probabilities of the side to play.
  function plays(list, limit) {
    const rows = list.slice(0, limit || list.length).map((p, i) => [
      i + 1, p.play, p.ply, sign(p.equity), i === 0 ? "" : (-p.loss).toFixed(4),
      pct(p.probabilities[0]), pct(p.probabilities[1]), pct(p.probabilities[2]),
      pct(1 - p.probabilities[0]), pct(p.probabilities[3]), pct(p.probabilities[4]),
    ]);
    if (!rows.length) rows.push(["", "no legal play", "", "", "", "", "", "", "", "", ""]);
    return table(["#", "play", "ply", "equity", "loss", "win", "wg", "wbg", "lose", "lg", "lbg"], rows, "plays");
  }

  // The cube decision of the side on roll (taker: advice for the side doubled).
  function cube(a, taker) {
    const c = a.cube;
    const box = document.createElement("div");
    box.id = "cubedecision";
    const p = a.probabilities;
    const rows = [
      ["", "No double", sign(c.no_double)],
      ["", "Double, take", sign(c.double_take)],
      ["", "Double, pass", sign(c.double_pass)],
    ];
    if (c.mwc) { rows[0].push(pct(c.mwc.no_double) + "%"); rows[1].push(pct(c.mwc.double_take) + "%"); rows[2].push(pct(c.mwc.double_pass) + "%"); }
    box.appendChild(table(["", "cube action", "equity"].concat(c.mwc ? ["MWC"] : []), rows));
    const d = document.createElement("div");
    d.innerHTML = `<b>Proper cube action:</b> <span id="cubeaction"></span>`;
    box.appendChild(d);
    d.querySelector("span").textContent = taker ? `${c.action} (your answer: ${c.taker_action || "take"})` : c.action;
    const q = document.createElement("div");
    q.textContent = `Side on roll (${a.ply}-ply): win ${pct(p[0])}% (gammon ${pct(p[1])}%, backgammon ${pct(p[2])}%), lose gammon ${pct(p[3])}%, lose backgammon ${pct(p[4])}%; cubeless equity ${sign(a.equity)}`;
    box.appendChild(q);
    return box;
  }

  return { plays, cube };
})();
