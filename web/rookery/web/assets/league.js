/* The league's pages: the board (with its history, recent games, incidents and the final
 * evaluation's progress) and each bot's page. Data from /api/league and /api/league/bots/<bot>;
 * every text is set with textContent (no markup from the data). */
(function () {
  "use strict";
  var boot = JSON.parse(document.getElementById("rookery-boot").textContent);
  var app = document.getElementById("app");
  var COLORS = ["#2458a6", "#c62828", "#2e7d32", "#c99400", "#6a1b9a", "#00838f", "#ef6c00",
    "#5d4037", "#455a64", "#ad1457", "#558b2f", "#283593"];

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }
  function fmt(x) { return x === null || x === undefined ? "—" : (x > 0 ? "+" : "") + x.toFixed(1); }
  function botLink(versionId) {
    var bot = versionId.slice(0, versionId.lastIndexOf("@"));
    return el("a", { href: "/league/bots/" + encodeURIComponent(bot), text: versionId });
  }
  function statusBadge(status) {
    var names = { open: "open: submissions and continuous play", final: "final evaluation",
      closed: "closed: final standings" };
    return el("span", { cls: "league-status " + status, text: names[status] || status });
  }

  function boardTable(lines, id) {
    var head = el("tr", {}, ["#", "version", "status", "rating", "interval", "games", ""].map(
      function (t) { return el("th", { text: t }); }));
    var rows = lines.map(function (l) {
      return el("tr", { "data-version": l.version_id }, [
        el("td", { cls: "n", text: String(l.rank) }),
        el("td", {}, [botLink(l.version_id)]),
        el("td", { text: l.status }),
        el("td", { cls: "n", text: l.elo === null ? "—" : fmt(l.elo) + " ± " + ((l.upper - l.lower) / 2).toFixed(1) }),
        el("td", { cls: "n", text: l.elo === null ? "" : "[" + l.lower.toFixed(0) + ", " + l.upper.toFixed(0) + "]" }),
        el("td", { cls: "n", text: String(l.games) }),
        el("td", { cls: "tie", text: l.tied_with_next ? "~ tied with the next" : "", title: "intervals overlap" }),
      ]);
    });
    return el("div", { cls: "scroll" }, [el("table", { cls: "data", id: id }, [el("thead", {}, [head]), el("tbody", {}, rows)])]);
  }

  function chart(history, ids) {
    var W = 760, H = 280, L = 48, R = 12, T = 12, B = 28;
    var series = ids.filter(function (id) { return history[id] && history[id].length; });
    var box = svg("svg", { "class": "league-chart", id: "rating-chart", viewBox: "0 0 " + W + " " + H, width: W, height: H });
    if (!series.length) {
      var t = svg("text", { x: L, y: H / 2 }); t.textContent = "no rated games yet"; box.appendChild(t);
      return box;
    }
    var xs = [], ys = [];
    series.forEach(function (id) { history[id].forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) x1 = x0 + 1; if (y1 === y0) { y0 -= 10; y1 += 10; }
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return T + (1 - (v - y0) / (y1 - y0)) * (H - T - B); }
    [y0, (y0 + y1) / 2, y1].forEach(function (v) {
      box.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#eef0f3" }));
      var label = svg("text", { x: 4, y: Y(v) + 4 }); label.textContent = fmt(v); box.appendChild(label);
    });
    var xl = svg("text", { x: W - R - 120, y: H - 8 }); xl.textContent = "pairs played →"; box.appendChild(xl);
    series.forEach(function (id, i) {
      var pts = history[id].map(function (p) { return X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join(" ");
      var line = svg("polyline", { points: pts, fill: "none", stroke: COLORS[i % COLORS.length], "stroke-width": 1.6, "data-version": id });
      var title = svg("title", {}); title.textContent = id; line.appendChild(title);
      box.appendChild(line);
      var last = history[id][history[id].length - 1];
      box.appendChild(svg("circle", { cx: X(last[0]), cy: Y(last[1]), r: 3, fill: COLORS[i % COLORS.length], "data-version": id }));
    });
    return box;
  }
  function legend(ids) {
    return el("div", { cls: "legend" }, ids.map(function (id, i) {
      var sw = el("i"); sw.style.background = COLORS[i % COLORS.length];
      return el("span", {}, [sw, document.createTextNode(id)]);
    }));
  }

  function recentTable(pairs) {
    var head = el("tr", {}, ["pair", "kind", "versions", "score", "games (replays)"].map(function (t) { return el("th", { text: t }); }));
    var rows = pairs.map(function (p) {
      var links = el("td", {}, p.games.map(function (g, i) {
        return el("a", { href: "/replays/" + encodeURIComponent(g.game_id), cls: "replay-link", text: "game " + (i + 1) + " (" + g.termination.toLowerCase() + ") " });
      }));
      return el("tr", {}, [
        el("td", { cls: "n", text: String(p.pair_id) }),
        el("td", { text: p.kind + (p.void ? " (void)" : p.rated ? "" : " (unrated)") }),
        el("td", {}, [botLink(p.a), document.createTextNode(" v "), botLink(p.b)]),
        el("td", { cls: "n", text: p.score_a + " – " + (2 - p.score_a) }),
        links,
      ]);
    });
    return el("div", { cls: "scroll" }, [el("table", { cls: "data", id: "recent-games" }, [el("thead", {}, [head]), el("tbody", {}, rows)])]);
  }
  function incidentList(items) {
    if (!items.length) return el("p", { cls: "muted", id: "incidents", text: "no incidents" });
    return el("ul", { id: "incidents" }, items.map(function (i) {
      return el("li", {}, [el("b", { text: i.version_id + " " + i.kind + ": " }), document.createTextNode(i.detail)]);
    }));
  }
  function finalPanel(final) {
    var done = Math.min(1, final.pairs_played / Math.max(1, final.budget));
    var bar = el("div", { cls: "progress" }, [el("div")]); bar.firstChild.style.width = (100 * done).toFixed(0) + "%";
    var children = [
      el("h2", { text: final.status === "closed" ? "Final evaluation: done" : "Final evaluation in progress" }),
      el("p", { cls: "meta", id: "final-progress", text: final.pairs_played + " of at most " + final.budget + " pairs between neighbours; separated at " + final.confidence + " confidence" }),
      bar,
    ];
    if (final.steps) {
      children.push(el("ul", { cls: "verdicts", id: "final-steps" }, final.steps.map(function (s) {
        var los = el("span", { cls: "los" + (s.separated ? " separated" : "") }, [el("span")]);
        los.firstChild.style.width = (100 * s.los).toFixed(0) + "%";
        return el("li", {}, [document.createTextNode(s.upper + " vs " + s.lower + " "), los,
          document.createTextNode(" LOS " + s.los.toFixed(3) + (s.separated ? " separated" : " not yet"))]);
      })));
    }
    if (final.verdicts && final.verdicts.length) {
      children.push(el("ul", { cls: "verdicts", id: "final-verdicts" }, final.verdicts.map(function (v) { return el("li", { text: v }); })));
    }
    return el("section", { cls: "panel", id: "final" }, children);
  }

  // What both pages end with: the rating chart of the versions ids (under title) and its
  // legend, the recent games and the incidents.
  function historyGamesIncidents(title, data, ids) {
    app.appendChild(el("h2", { text: title }));
    app.appendChild(chart(data.history, ids));
    app.appendChild(legend(ids));
    app.appendChild(el("h2", { text: "Recent games" }));
    app.appendChild(recentTable(data.recent));
    app.appendChild(el("h2", { text: "Incidents" }));
    app.appendChild(incidentList(data.incidents));
  }

  function boardPage(data) {
    app.textContent = "";
    var s = data.season;
    app.appendChild(el("h1", { text: "League — season " + s.name }));
    app.appendChild(el("p", { cls: "meta" }, [statusBadge(s.status), document.createTextNode(
      "  deadline " + new Date(s.deadline * 1000).toISOString().replace(".000Z", "Z") + " · " + s.pairs_played + " duplicate pairs played")]));
    if (data.final) app.appendChild(finalPanel(data.final));
    app.appendChild(el("h2", { text: s.status === "closed" ? "Final standings" : "Board: the latest version of each bot" }));
    app.appendChild(boardTable(data.board, "board"));
    app.appendChild(el("h2", { text: "Every active version" }));
    app.appendChild(boardTable(data.all, "all-versions"));
    historyGamesIncidents("Rating history", data, data.all.map(function (l) { return l.version_id; }));
  }

  function botPage(data) {
    app.textContent = "";
    app.appendChild(el("h1", { text: "Bot " + data.bot }));
    app.appendChild(el("p", { cls: "meta", text: "season " + data.season.name + " · " + data.versions.length + " version(s)" }));
    var head = el("tr", {}, ["version", "status", "rating", "games", "sha256", "submitted", "detail"].map(function (t) { return el("th", { text: t }); }));
    var rows = data.versions.map(function (v) {
      return el("tr", { "data-version": v.version_id }, [
        el("td", { text: v.version_id }), el("td", { text: v.status }),
        el("td", { cls: "n", text: v.elo === null ? "—" : fmt(v.elo) + " ± " + ((v.upper - v.lower) / 2).toFixed(1) }),
        el("td", { cls: "n", text: String(v.games) }), el("td", { text: v.sha256 }),
        el("td", { text: new Date(v.submitted_at * 1000).toISOString().slice(0, 19).replace("T", " ") }),
        el("td", { text: v.detail }),
      ]);
    });
    app.appendChild(el("h2", { text: "Versions" }));
    app.appendChild(el("div", { cls: "scroll" }, [el("table", { cls: "data", id: "versions" }, [el("thead", {}, [head]), el("tbody", {}, rows)])]));
    historyGamesIncidents("Rating chart", data, data.versions.map(function (v) { return v.version_id; }));
  }

  function showError(error) {
    app.textContent = "";
    app.appendChild(el("p", { cls: "error", id: "league-error", text: String(error.message || error) }));
  }
  var shown = "";
  function refresh() {
    var url = boot.view === "bot" ? "/api/league/bots/" + encodeURIComponent(boot.bot) : "/api/league";
    getJSON(url).then(function (data) {
      var text = JSON.stringify(data);
      if (text === shown) return;  // redraw only what changed: a link stays under the pointer
      shown = text;
      (boot.view === "bot" ? botPage : boardPage)(data);
    }).catch(showError);
  }
  refresh();
  setInterval(function () { if (!document.hidden) refresh(); }, 5000);
})();
