/* Rookery dashboard: vanilla JS, no build step, no external asset.
 * boot.mode "live": data from the JSON API of the page's server; "static": embedded JSON.
 * Every face-up card carries data-card and data-hand (its hand number); hidden cards are drawn
 * face down and carry neither, so a page never names a card before its hand is over. */
(function () {
  "use strict";
  var boot = JSON.parse(document.getElementById("rookery-boot").textContent);
  var dataNode = document.getElementById("rookery-data");
  var DATA = dataNode ? JSON.parse(dataNode.textContent) : null;
  var app = document.getElementById("app");
  var LIVE = boot.mode === "live";
  var SVGNS = "http://www.w3.org/2000/svg";
  var SUITS = {
    B: { name: "Black", color: "#1b1b1b" },
    R: { name: "Red", color: "#c62828" },
    Y: { name: "Yellow", color: "#8a6500" },
    G: { name: "Green", color: "#2e7d32" }
  };
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

  // DOM helpers -------------------------------------------------------------------------------
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function sv(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = value;
      else if (key === "onclick") node.addEventListener("click", value);
      else if (key === "onchange") node.addEventListener("change", value);
      else if (key === "oninput") node.addEventListener("input", value);
      else node.setAttribute(key, value === true ? "" : String(value));
    });
  }
  function append(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); continue; }
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(value, digits) { return Number(value).toFixed(digits || 0); }
  function signed(value) { var v = Math.round(value); return (v > 0 ? "+" : v < 0 ? "\u2212" : "") + Math.abs(v); }

  // Links -------------------------------------------------------------------------------------
  function homeHref() { return LIVE ? "/" : (boot.home || "index.html"); }
  function replayHref(id) {
    return LIVE ? "/replays/" + encodeURIComponent(id) : (boot.replays || "replays/") + encodeURIComponent(id) + ".html";
  }
  function tableHref(id) { return "/tables/" + encodeURIComponent(id); }
  function tournamentHref(key) { return "/tournaments/" + encodeURIComponent(key); }
  document.getElementById("home-link").setAttribute("href", homeHref());
  function crumbs(items) {
    var nav = document.getElementById("crumbs");
    clear(nav);
    items.forEach(function (item, i) {
      if (i) append(nav, " / ");
      append(nav, item.href ? el("a", { href: item.href, text: item.text }) : el("span", { text: item.text }));
    });
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }
  function showError(error) {
    clear(app);
    append(app, el("p", { class: "error", text: String(error.message || error) }));
  }

  // Cards -------------------------------------------------------------------------------------
  function suitOf(code) { return code.indexOf("ROOK") === 0 ? "K" : code.charAt(0); }
  function rankOf(code) { return code.indexOf("ROOK") === 0 ? "" : code.slice(1); }
  function cardSpan(code, hand) {
    return el("span", { class: "c " + suitOf(code), "data-card": code, "data-hand": hand, text: code });
  }
  function cardList(codes, hand) {
    if (!codes || !codes.length) return el("span", { class: "muted", text: "none" });
    return codes.map(function (code) { return [cardSpan(code, hand), " "]; });
  }
  function rookBird(x, y, s) {
    // A small bird: body, head, beak, tail and a wing.
    return sv("g", { transform: "translate(" + x + "," + y + ") scale(" + s + ")" },
      sv("path", { d: "M-14 4 C-8 -8 8 -10 14 -2 L20 -6 L15 1 C12 10 -4 12 -14 4 Z", fill: "#111" }),
      sv("circle", { cx: 12, cy: -4, r: 4.5, fill: "#111" }),
      sv("path", { d: "M16 -5 L22 -3 L16 -2 Z", fill: "#e6a100" }),
      sv("path", { d: "M-14 4 L-22 0 L-20 8 Z", fill: "#111" }),
      sv("path", { d: "M-6 -1 C-2 -9 6 -8 8 -3 C3 -4 -1 -2 -6 -1 Z", fill: "#444" }));
  }
  /* A face-up card: the only way a card's face is drawn. Its corner reads the whole code
   * ("R10": suit letter and rank), so that a fanned card stays legible and suits differ by
   * more than colour; the corner is what shows of a card overlapped by the next one. */
  function cardFace(code, hand, x, y, w, extraClass) {
    var h = w * 1.45, suit = suitOf(code), color = suit === "K" ? "#111" : SUITS[suit].color;
    var g = sv("g", { class: "card face " + (extraClass || ""), "data-card": code, "data-hand": hand, transform: "translate(" + x + "," + y + ")" },
      sv("title", { text: code }),
      sv("rect", { width: w, height: h, rx: w * 0.12, fill: suit === "K" ? "#f7f1e3" : "#fff", stroke: color, "stroke-width": 2 }),
      sv("text", { x: 3, y: 13, class: "card-code", fill: color, text: code === "ROOK2" ? "ROOK2" : code }));
    if (suit === "K") {
      g.appendChild(rookBird(w / 2, h * 0.6, w / 52));
    } else {
      g.appendChild(sv("rect", { x: w * 0.2, y: h * 0.42, width: w * 0.6, height: h * 0.46, rx: w * 0.08, fill: color }));
      g.appendChild(sv("text", { x: w / 2, y: h * 0.75, "text-anchor": "middle", class: "card-big", fill: "#fff", "font-size": Math.max(11, w * 0.36), text: rankOf(code) }));
    }
    return g;
  }
  function cardBack(x, y, w) {
    var h = w * 1.45;
    return sv("g", { class: "card back", transform: "translate(" + x + "," + y + ")" },
      sv("rect", { width: w, height: h, rx: w * 0.12, fill: "#23395d", stroke: "#e8eef7", "stroke-width": 1.5 }),
      sv("rect", { x: 4, y: 4, width: w - 8, height: h - 8, rx: w * 0.08, fill: "none", stroke: "#8aa4c8", "stroke-width": 1 }),
      rookBird(w / 2, h / 2, w / 70));
  }
  function suitChip(letter) {
    if (!letter) return el("span", { class: "muted", text: "\u2014" });
    return el("span", {}, el("span", { class: "suit " + letter, text: letter }), " " + SUITS[letter].name);
  }

  // Seats -------------------------------------------------------------------------------------
  function seatName(view, seat) {
    var s = view.seats[seat];
    return s ? s.bot : "seat " + seat;
  }
  function seatLabel(view, seat) { return "seat " + seat + " (" + seatName(view, seat) + ")"; }
  function sideNames(view, side) {
    var names = [];
    view.ruleset.sides.forEach(function (s, seat) { if (s === side) names.push(seatLabel(view, seat)); });
    return "side " + side + " (" + names.join(", ") + ")";
  }
  function reasonText(result) { return result.reason.toLowerCase().replace(/_/g, " "); }
  function gameOverText(view, result) {
    var text = "Game over: " + reasonText(result);
    if (result.reason === "FORFEIT" && result.forfeit_seat !== undefined) text += " by " + seatLabel(view, result.forfeit_seat);
    text += result.winners.length ? ", " + result.winners.map(function (side) { return sideNames(view, side); }).join(" and ") + " wins" : ", no winner";
    if (result.detail) text += " \u2014 " + result.detail;
    return text;
  }

  // The state of a hand after its steps 0..index (a pure function of public steps) ----------
  function reduceHand(hand, index, view) {
    var rules = view.ruleset;
    var st = {
      dealer: hand.dealer, auction: [], highBid: 0, bidder: -1, bid: 0, forced: false, trump: null,
      called: null, partner: -1, nestTaken: false, buried: false, trick: [], trickDone: null,
      trickNumber: 0, tricks: [], captured: new Array(rules.num_sides).fill(0), played: [],
      scores: hand.scores_before.slice(), result: null, gameOver: null, redeal: false, step: null
    };
    for (var s = 0; s < rules.players; s++) st.played.push([]);
    for (var i = 0; i <= index && i < hand.steps.length; i++) {
      var e = hand.steps[i];
      st.step = e;
      if (e.type === "dealt") st.dealer = e.dealer;
      else if (e.type === "bid") { st.auction.push([e.seat, e.amount]); st.highBid = e.amount; }
      else if (e.type === "pass") st.auction.push([e.seat, "pass"]);
      else if (e.type === "auction_won") { st.bidder = e.seat; st.bid = e.amount; st.forced = e.forced; }
      else if (e.type === "redeal") st.redeal = true;
      else if (e.type === "nest_taken") st.nestTaken = true;
      else if (e.type === "trump") st.trump = e.suit;
      else if (e.type === "buried") st.buried = true;
      else if (e.type === "called") st.called = e.card;
      else if (e.type === "partner") st.partner = e.seat;
      else if (e.type === "play") {
        if (st.trickDone) { st.tricks.push({ cards: st.trick, winner: st.trickDone.seat, points: st.trickDone.points, step: st.trickDone.index }); st.trick = []; st.trickDone = null; }
        st.trick.push([e.seat, e.card]);
        st.played[e.seat].push(e.card);
      } else if (e.type === "trick") {
        st.trickDone = { seat: e.seat, points: e.points, trick: e.trick, index: i }; st.trickNumber = e.trick;
        st.captured[rules.sides[e.seat]] += e.points;
      } else if (e.type === "scored") {
        st.result = e.result;
        if (!e.result.redeal) st.scores = e.result.scores_after.slice();
      } else if (e.type === "game_over") st.gameOver = e.result;
    }
    return st;
  }
  /* The first step at which a finished hand shows its hidden cards: the scored step, or the
   * last step of a hand cut short by the end of the game. -1: never (still being played). */
  function revealFrom(hand) {
    if (!hand.reveal) return -1;
    for (var i = 0; i < hand.steps.length; i++) if (hand.steps[i].type === "scored") return i;
    return hand.steps.length - 1;
  }
  function remaining(codes, minus) {
    return codes.filter(function (c) { return minus.indexOf(c) < 0; });
  }
  /* What a seat holds now, from a finished hand's reveal (only ever called with one). */
  function heldCards(hand, st, seat) {
    var codes = hand.reveal.hands[seat].slice();
    if (seat === st.bidder && st.nestTaken) codes = codes.concat(hand.reveal.nest);
    if (seat === st.bidder && st.buried) codes = remaining(codes, hand.reveal.buried);
    return remaining(codes, st.played[seat]);
  }
  /* The cards to draw face up for a seat, or null (face down): the hands as dealt once the
   * hand is over, every hand as held in the face-up mode (finished games only), or the
   * followed seat's own. */
  function visibleCards(hand, st, seat, opts) {
    if (!hand.reveal) return null;
    if (opts.revealed) return hand.reveal.hands[seat];
    if (opts.faceUp || opts.perspective === seat) return heldCards(hand, st, seat);
    return null;
  }
  function holdingCount(view, st, seat) {
    var rules = view.ruleset, isBidder = seat === st.bidder;
    return Math.max(0, rules.hand_size + (isBidder && st.nestTaken ? rules.nest_size : 0) - (isBidder && st.buried ? rules.nest_size : 0) - st.played[seat].length);
  }
  function stepText(view, e) {
    if (!e) return "";
    var who = e.seat !== undefined ? seatLabel(view, e.seat) : "";
    switch (e.type) {
      case "dealt": return "Hand " + e.hand + " dealt by " + seatLabel(view, e.dealer);
      case "bid": return who + " bids " + e.amount;
      case "pass": return who + " passes";
      case "auction_won": return who + (e.forced ? " is forced to bid " : " wins the auction at ") + e.amount;
      case "redeal": return "Everybody passed: the hand is dealt again";
      case "nest_taken": return who + " takes the nest (" + e.count + " cards)";
      case "trump": return who + " names " + SUITS[e.suit].name + " trump";
      case "buried": return who + " buries " + e.count + " cards";
      case "called": return [who + " calls ", cardSpan(e.card, e.hand)];
      case "partner": return "The partner is " + who;
      case "play": return [who + " plays ", cardSpan(e.card, e.hand)];
      case "trick": return who + " wins trick " + e.trick + " (+" + e.points + ")";
      case "scored":
        if (e.result.redeal) return "Void hand (redeal)";
        return "Hand scored: bidder " + seatLabel(view, e.result.bidder) + (e.result.made ? " made " : " was set on ") + e.result.bid + " (took " + e.result.bidding_total + ")";
      case "game_over": return gameOverText(view, e.result);
    }
    return e.type;
  }
  /* How a move came about: think time, the server's fallback, replies refused before it. */
  function moveText(move) {
    var parts = [fmt(move.think_ms) + " ms"];
    if (move.outcome === "auto_played") parts.push("auto-played by the server (the bot was late)");
    if (move.rejected && move.rejected.length) parts.push(move.rejected.length + " refused before: " + move.rejected.join("; "));
    return parts.join(" \u00b7 ");
  }
  function legalText(legal, hand) {
    if (legal.phase === "bid") {
      var bids = legal.bids, text = legal.pass ? "pass" : "";
      if (bids.length) text += (text ? ", " : "") + "bid " + bids[0] + (bids.length > 1 ? "\u2013" + bids[bids.length - 1] + " (" + bids.length + " amounts)" : "");
      return text;
    }
    if (legal.phase === "trump") return "trump " + legal.suits.join(" ");
    if (legal.phase === "bury") return ["bury " + legal.count + " of ", cardList(legal.cards, hand)];
    return [legal.phase + " ", cardList(legal.cards, hand)];
  }

  // The table, drawn as one SVG ----------------------------------------------------------------
  // Seats are placed from the bottom (position 0) clockwise; opts.bottom is the seat drawn at
  // the bottom (the followed seat). Wide screens get the whole felt; narrow ones a compact felt
  // (the trick and the seats' names) with the hands as text below it.
  function seatPoint(position, players, cx, cy, rx, ry) {
    var angle = Math.PI / 2 + (2 * Math.PI * position) / players;
    return [cx + rx * Math.cos(angle), cy + ry * Math.sin(angle)];
  }
  function drawTable(view, hand, st, opts) {
    if (opts.compact) return drawCompactTable(view, hand, st, opts);
    var rules = view.ruleset, players = rules.players, number = hand.number;
    var svg = sv("svg", { class: "felt", viewBox: "0 0 900 600", role: "img", "aria-label": "the table: hands, the trick and the trump" });
    var W = 40, H = W * 1.45;
    for (var seat = 0; seat < players; seat++) {
      var pos = (seat - opts.bottom + players) % players;
      var p = seatPoint(pos, players, 450, 300, 330, 225);
      var horizontal = Math.abs(p[1] - 300) > 120;
      var codes = visibleCards(hand, st, seat, opts);
      var n = codes ? codes.length : holdingCount(view, st, seat);
      var group = sv("g", { class: "hand", "data-seat": seat });
      var labelX, labelY, anchor;
      if (horizontal) {
        // A row: each card shows a strip 28 px wide, its corner code included.
        var stepX = Math.min(30, 580 / Math.max(1, n)), width = W + stepX * Math.max(0, n - 1);
        var x0 = p[0] - width / 2, y0 = p[1] - H / 2;
        for (var i = 0; i < n; i++) group.appendChild(codes ? cardFace(codes[i], number, x0 + i * stepX, y0, W, "in-hand") : cardBack(x0 + i * stepX, y0, W));
        labelX = p[0]; anchor = "middle"; labelY = p[1] > 300 ? y0 - 24 : y0 + H + 18;
      } else {
        // A column at the side: each card shows a strip 18 px tall with its corner code.
        var stepY = Math.min(18, 340 / Math.max(1, n)), height = H + stepY * Math.max(0, n - 1);
        var left = p[0] < 450, cx = left ? 24 : 876 - W, cy = 300 - height / 2 + 12;
        for (var j = 0; j < n; j++) group.appendChild(codes ? cardFace(codes[j], number, cx, cy + j * stepY, W, "in-hand") : cardBack(cx, cy + j * stepY, W));
        labelX = left ? 18 : 882; anchor = left ? "start" : "end"; labelY = cy - 22;
      }
      svg.appendChild(group);
      var sub = "seat " + seat + " \u00b7 side " + rules.sides[seat] + (seat === st.dealer ? " \u00b7 dealer" : "") + (seat === st.bidder ? " \u00b7 bid " + st.bid : "") + (seat === st.partner ? " \u00b7 partner" : "");
      svg.appendChild(sv("text", { x: labelX, y: labelY, "text-anchor": anchor, class: "seat-label" + (opts.toAct === seat ? " tolead" : ""), "data-seat-label": seat, text: seatName(view, seat) + (opts.toAct === seat ? " \u25c0 to act" : "") }));
      svg.appendChild(sv("text", { x: labelX, y: labelY + 15, "text-anchor": anchor, class: "seat-sub", text: sub + (opts.revealed ? " \u00b7 as dealt" : "") }));
      var last = lastBid(st, seat);
      if (last !== null && !st.trick.length && !st.tricks.length && !opts.revealed) {
        var q = seatPoint(pos, players, 450, 300, 170, 115);
        svg.appendChild(sv("text", { x: q[0], y: q[1], "text-anchor": "middle", class: "seat-act", text: last === "pass" ? "pass" : "bid " + last }));
      }
    }
    svg.appendChild(trickGroup(view, st, opts, number, 450, 300, 95, 70, 48));
    if (st.trump) {
      svg.appendChild(sv("text", { x: 842, y: 35, "text-anchor": "end", class: "seat-sub", text: "trump" }));
      svg.appendChild(sv("circle", { cx: 864, cy: 30, r: 14, fill: SUITS[st.trump].color, stroke: "#fff", "stroke-width": 2 }));
      svg.appendChild(sv("text", { x: 864, y: 35, "text-anchor": "middle", class: "trump-letter", text: st.trump }));
    }
    if (st.trickDone) {
      svg.appendChild(sv("text", { x: 450, y: 300 + 125, "text-anchor": "middle", class: "seat-act", text: "trick " + st.trickDone.trick + " \u2192 " + seatLabel(view, st.trickDone.seat) + " (+" + st.trickDone.points + ")" }));
    }
    return svg;
  }
  function lastBid(st, seat) {
    var last = null;
    st.auction.forEach(function (a) { if (a[0] === seat) last = a[1]; });
    return last;
  }
  function trickGroup(view, st, opts, number, cx, cy, rx, ry, w) {
    var players = view.ruleset.players, trick = sv("g", { id: "trick" });
    st.trick.forEach(function (entry, k) {
      var pos = (entry[0] - opts.bottom + players) % players;
      var q = seatPoint(pos, players, cx, cy, rx, ry);
      var face = cardFace(entry[1], number, q[0] - w / 2, q[1] - w * 0.72, w, "trick-card" + (k === 0 ? " led" : ""));
      face.setAttribute("data-seat", entry[0]);
      if (st.trickDone && st.trickDone.seat === entry[0]) {
        face.querySelector("rect").setAttribute("stroke", "#ffd54f");
        face.querySelector("rect").setAttribute("stroke-width", 4);
      }
      trick.appendChild(face);
    });
    return trick;
  }
  function drawCompactTable(view, hand, st, opts) {
    var players = view.ruleset.players;
    var svg = sv("svg", { class: "felt compact", viewBox: "0 0 380 300", role: "img", "aria-label": "the trick and the seats" });
    for (var seat = 0; seat < players; seat++) {
      var pos = (seat - opts.bottom + players) % players;
      var p = seatPoint(pos, players, 190, 150, 150, 128);
      var anchor = Math.abs(p[0] - 190) < 40 ? "middle" : p[0] < 190 ? "start" : "end";
      var x = anchor === "start" ? 6 : anchor === "end" ? 374 : p[0];
      var last = lastBid(st, seat);
      svg.appendChild(sv("text", { x: x, y: p[1] + 5, "text-anchor": anchor, class: "seat-label" + (opts.toAct === seat ? " tolead" : ""), "data-seat-label": seat, text: seatName(view, seat).slice(0, 14) + (opts.toAct === seat ? " \u25c0" : "") }));
      svg.appendChild(sv("text", { x: x, y: p[1] + 21, "text-anchor": anchor, class: "seat-sub", text: "seat " + seat + (seat === st.bidder ? " \u00b7 bid " + st.bid : last !== null && !st.trick.length && !st.tricks.length ? " \u00b7 " + (last === "pass" ? "pass" : "bid " + last) : "") }));
    }
    svg.appendChild(trickGroup(view, st, opts, hand.number, 190, 150, 58, 50, 50));
    if (st.trump) {
      svg.appendChild(sv("circle", { cx: 356, cy: 22, r: 14, fill: SUITS[st.trump].color, stroke: "#fff", "stroke-width": 2 }));
      svg.appendChild(sv("text", { x: 356, y: 27, "text-anchor": "middle", class: "trump-letter", text: st.trump }));
    }
    return svg;
  }
  /* The hands as text, one row per seat: face-up cards where the view may show them, a count
   * of face-down cards otherwise. The phone's view of the hands, and a readable list on any
   * screen. */
  function handsPanel(view, hand, st, opts) {
    var rows = view.seats.map(function (_, seat) {
      var codes = visibleCards(hand, st, seat, opts);
      return el("div", { class: "row hand-row", "data-seat": seat }, el("b", { text: seatLabel(view, seat) + ": " }),
        codes ? cardList(codes, hand.number) : el("span", { class: "muted", text: holdingCount(view, st, seat) + " cards face down" }));
    });
    var title = opts.revealed ? "Hands as dealt" : opts.faceUp ? "Hands now (face up)" : "Hands";
    return el("div", { class: "panel", id: "hands" }, el("h3", { text: title }), rows);
  }
  /* The deal of a finished hand as a table: each seat's cards by suit, the nest, the buried
   * and dead cards, and the auction. Only drawn when the hand's cards may be shown. */
  function dealTable(view, hand, st) {
    var r = hand.reveal, suits = ["B", "R", "Y", "G"];
    function bySuit(codes, suit) {
      return codes.filter(function (c) { return suitOf(c) === suit || (suit === "K" && suitOf(c) === "K"); });
    }
    var head = el("tr", {}, el("th", { scope: "col", text: "" }), suits.map(function (s) { return el("th", { scope: "col" }, suitChip(s)); }), el("th", { scope: "col", text: "Rook" }));
    function row(label, codes) {
      return el("tr", {}, el("th", { scope: "row", text: label }), suits.concat(["K"]).map(function (s) { return el("td", {}, cardList(bySuit(codes, s), hand.number)); }));
    }
    var body = view.seats.map(function (_, seat) { return row(seatLabel(view, seat), r.hands[seat]); });
    body.push(row("nest", r.nest), row("buried", r.buried));
    if (r.dead.length) body.push(row("dead", r.dead));
    var auction = st.auction.map(function (a) { return a[0] + ": " + a[1]; }).join(", ");
    return el("div", { class: "panel reveal", id: "deal" }, el("h3", { text: "The deal of hand " + hand.number }),
      el("div", { class: "scroll" }, el("table", { class: "data deal" }, el("caption", { class: "meta", text: "Each hand as dealt, by suit; the nest, the buried (and dead) cards." }), el("thead", {}, head), el("tbody", {}, body))),
      el("p", { class: "meta", text: "Bids: " + (auction || "none") }));
  }

  function infoPanel(view, hand, st, opts) {
    var rules = view.ruleset;
    var auction = el("div", { class: "auction" });
    st.auction.forEach(function (a) { append(auction, el("span", { text: a[0] + ": " + a[1] })); });
    if (!st.auction.length) append(auction, el("span", { class: "muted", text: "\u2014" }));
    var scores = el("span", {}, st.scores.map(function (v, side) { return el("span", { text: (side ? " \u00b7 " : "") + "side " + side + ": " + v }); }));
    var captured = st.captured.map(function (v, side) { return (side ? " \u00b7 " : "") + "side " + side + ": " + v; }).join("");
    var dl = el("dl", {},
      el("dt", { text: "hand" }), el("dd", { text: hand.number + " \u00b7 dealer " + seatLabel(view, st.dealer) }),
      el("dt", { text: "auction" }), el("dd", {}, auction),
      el("dt", { text: "bidder" }), el("dd", { text: st.bidder >= 0 ? seatLabel(view, st.bidder) + " at " + st.bid + (st.forced ? " (forced)" : "") : "\u2014" }),
      el("dt", { text: "trump" }), el("dd", {}, suitChip(st.trump)),
      st.called ? [el("dt", { text: "called" }), el("dd", {}, cardSpan(st.called, hand.number), st.partner >= 0 ? " \u2192 " + seatLabel(view, st.partner) : "")] : null,
      el("dt", { text: "tricks" }), el("dd", { text: (st.tricks.length + (st.trickDone ? 1 : 0)) + " won \u00b7 points " + captured }),
      el("dt", { text: "scores" }), el("dd", {}, scores, el("span", { class: "muted", text: " (target " + rules.target + ")" })));
    var panel = el("div", { class: "panel info" }, el("div", { class: "step-text", id: "step-text", "aria-live": "polite" }, stepText(view, st.step)));
    var move = st.step && st.step.move;
    if (move) {
      append(panel, el("div", { class: "row move", id: "move-info" }, "think " + moveText(move)));
      // The legal actions name the mover's cards: shown where that hand may be seen.
      if (opts.revealed || opts.faceUp || opts.perspective === move.seat) {
        append(panel, el("div", { class: "row", id: "legal" }, el("span", { class: "muted", text: "legal: " }), legalText(move.legal, hand.number)));
      }
    }
    append(panel, dl);
    if (st.result && !st.result.redeal) {
      append(panel, el("div", { class: "row" }, "Hand result: points " + st.result.points_per_side.join(" / ") + ", deltas " + st.result.score_deltas.map(signed).join(" / ")));
    }
    if (opts.revealed) {
      append(panel, el("div", { class: "panel reveal", id: "reveal" },
        el("div", { class: "row" }, el("b", { text: "Revealed \u2014 the hand is over" })),
        el("div", { class: "row" }, "nest: ", cardList(hand.reveal.nest, hand.number)),
        el("div", { class: "row" }, "buried: ", cardList(hand.reveal.buried, hand.number)),
        hand.reveal.dead.length ? el("div", { class: "row" }, "dead: ", cardList(hand.reveal.dead, hand.number)) : null));
    }
    // The completed tricks of this hand, newest last (and kept in view); a click opens one.
    var log = el("div", { class: "log", id: "trick-log" });
    var done = st.tricks.slice();
    if (st.trickDone) done.push({ cards: st.trick, winner: st.trickDone.seat, points: st.trickDone.points, step: st.trickDone.index });
    done.forEach(function (t, i) {
      var line = el("div", { class: i === done.length - 1 && st.trickDone ? "now" : "", "data-step": t.step }, "trick " + (i + 1) + ": ",
        t.cards.map(function (c) { return [c[0] + ":", cardSpan(c[1], hand.number), " "]; }), "\u2192 " + seatLabel(view, t.winner) + " (+" + t.points + ")");
      if (opts.onStep) { line.classList.add("link"); line.addEventListener("click", function () { opts.onStep(t.step); }); }
      append(log, line);
    });
    if (done.length) append(panel, el("h3", { text: "Tricks" }), log);
    return panel;
  }
  function keepLastInView(container) {
    if (container && container.lastChild) container.scrollTop = container.scrollHeight;
  }
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 640px)") : { matches: false };
  function onWidthChange(callback) {
    if (narrow.addEventListener) narrow.addEventListener("change", callback);
    else if (narrow.addListener) narrow.addListener(callback);
  }

  // Replay viewer ------------------------------------------------------------------------------
  function replayViewer(view) {
    var positions = [];
    view.hands.forEach(function (hand, h) { hand.steps.forEach(function (_, s) { positions.push([h, s]); }); });
    // perspective: -1 spectator (hands hidden until the hand is over), -2 every hand face up
    // (the game is over, so its cards are public), a seat: that seat's own cards.
    var state = { pos: 0, perspective: -1, timer: null };
    var home = LIVE && view.tournament_id ? { text: "tournament " + view.tournament_id, href: tournamentHref(view.tournament_id) } : { text: LIVE ? "dashboard" : "tournament", href: homeHref() };
    crumbs([home, { text: "replay " + view.game_id }]);
    clear(app);
    var result = view.result;
    var download = LIVE ? "/api/replays/" + encodeURIComponent(view.game_id) + "/file" : boot.download;
    var twinLink = view.twin ? el("a", { id: "twin-link", href: replayHref(view.twin), text: "duplicate twin " + view.twin }) : null;
    append(app, el("h1", { text: "Replay " + view.game_id }),
      el("p", { class: "meta" }, view.ruleset.name + " \u00b7 seed " + view.seed + " \u00b7 " + view.seats.map(function (s) { return s.seat + ": " + s.bot + (s.version ? " (" + s.version + ")" : ""); }).join(", ") +
        " \u00b7 final scores " + result.scores.join(" / ")),
      el("p", { class: "meta", id: "result-text", text: gameOverText(view, result) }),
      el("p", { class: "meta" }, download ? el("a", { id: "download-link", href: download, download: view.game_id + ".jsonl.gz", text: "download the replay file" }) : null,
        twinLink ? [" \u00b7 ", twinLink, " (the same deals, the sides swapped)"] : null));
    var slider = el("input", { type: "range", min: 0, max: Math.max(0, positions.length - 1), value: 0, id: "slider", "aria-label": "step", oninput: function () { go(Number(slider.value)); } });
    var counter = el("span", { class: "muted", id: "counter" });
    var perspective = el("select", { id: "perspective", "aria-label": "whose cards to show", onchange: function () { state.perspective = Number(perspective.value); perspective.blur(); render(); } },
      el("option", { value: -1, text: "spectator (hands hidden until each hand is over)" }),
      el("option", { value: -2, text: "all hands face up" }),
      view.seats.map(function (s) { return el("option", { value: s.seat, text: "follow seat " + s.seat + " (" + s.bot + ")" }); }));
    var speed = el("select", { id: "speed", "aria-label": "autoplay speed", onchange: function () { speed.blur(); if (state.timer) { stop(); play(); } } },
      [["2000", "slow"], ["900", "normal"], ["350", "fast"]].map(function (o) { return el("option", { value: o[0], text: o[1], selected: o[0] === "900" }); }));
    function button(label, title, action, id) { return el("button", { type: "button", title: title, "aria-label": title, onclick: action, id: id, text: label }); }
    var autoplay = button("\u25b6 play", "play / pause (space)", function () { if (state.timer) stop(); else play(); }, "autoplay");
    append(app, el("div", { class: "controls" },
      button("\u00ab", "first step (Home)", function () { go(0); }, "first"),
      button("\u21e4 hand", "previous hand (p)", function () { hand(-1); }, "prev-hand"),
      button("\u25c0", "step back (\u2190)", function () { go(state.pos - 1); }, "back"),
      button("\u25b6", "step forward (\u2192)", function () { go(state.pos + 1); }, "forward"),
      button("hand \u21e5", "next hand (n)", function () { hand(1); }, "next-hand"),
      button("\u00bb", "last step (End)", function () { go(positions.length - 1); }, "last"),
      autoplay, speed, slider, counter, perspective));
    var grid = el("div", { class: "grid" });
    var left = el("div", {}), right = el("div", {}), below = el("div", {});
    append(grid, left, right);
    append(app, grid, below, el("p", { class: "meta keys" }, "Keys: ", el("span", { class: "kbd", text: "\u2190" }), " ", el("span", { class: "kbd", text: "\u2192" }), " step, ",
      el("span", { class: "kbd", text: "Home" }), " ", el("span", { class: "kbd", text: "End" }), " first/last, ",
      el("span", { class: "kbd", text: "p" }), " ", el("span", { class: "kbd", text: "n" }), " previous/next hand, ", el("span", { class: "kbd", text: "space" }), " play/pause. Hidden cards (other hands, nest, buried, dead) are shown once their hand is over, or at any step in the face-up view."));

    function go(pos) {
      state.pos = Math.max(0, Math.min(positions.length - 1, pos));
      render();
    }
    function play() {
      if (state.pos >= positions.length - 1) go(0);
      autoplay.textContent = "\u275a\u275a pause";
      state.timer = setInterval(function () {
        if (state.pos >= positions.length - 1) { stop(); return; }
        go(state.pos + 1);
      }, Number(speed.value));
    }
    function stop() {
      clearInterval(state.timer); state.timer = null;
      autoplay.textContent = "\u25b6 play";
    }
    function hand(delta) {
      var h = positions[state.pos][0] + delta;
      if (h < 0) { go(0); return; }
      if (h >= view.hands.length) { go(positions.length - 1); return; }
      for (var i = 0; i < positions.length; i++) if (positions[i][0] === h) { go(i); return; }
    }
    function goStep(h, index) {
      for (var k = 0; k < positions.length; k++) if (positions[k][0] === h && positions[k][1] === index) { go(k); return; }
    }
    /* The move list of the hand, the decisions with their think time; a click opens a step.
     * It lists the steps up to the current one (a later play would show a card still hidden
     * in this view), or the whole hand where its cards may all be seen. */
    function moveList(h, current, whole, analysis) {
      var hv = view.hands[h], list = el("ol", { class: "log moves", id: "move-list", start: 1 });
      var plays = analysis && analysis.plays ? analysis.plays : [], played = 0;
      hv.steps.forEach(function (e, i) {
        var valued = e.type === "play" ? plays[played++] : null;
        if (i > current && !whole) return;
        var item = el("li", { class: "link" + (i === current ? " now" : ""), "data-step": i }, stepText(view, e), e.move ? el("span", { class: "muted", text: " \u00b7 " + fmt(e.move.think_ms) + " ms" + (e.move.outcome === "auto_played" ? " \u00b7 auto-played" : "") }) : null,
          valued && valued.seat === state.perspective && valued.card === e.card ? costMark(valued, analysis.marks) : null);
        item.addEventListener("click", function () { goStep(h, i); });
        append(list, item);
      });
      return el("div", { class: "panel" }, el("h3", { text: "Moves of hand " + hv.number }), list);
    }
    /* Double-dummy analysis (a dashboard's replays only): fetched a hand at a time once a seat
     * is followed; the server answers it only where it serves the replay itself. */
    var analyses = {}, pars = {};
    function handAnswer(answers, handView, route) {
      var key = handView.number;
      if (answers[key] === undefined) {
        answers[key] = { loading: true };
        getJSON("/api/replays/" + encodeURIComponent(view.game_id) + "/" + route + "?hand=" + key).then(
          function (data) { answers[key] = data; render(); },
          function (error) { answers[key] = { error: String(error.message || error) }; render(); });
      }
      return answers[key];
    }
    function analysisOf(handView) {
      if (!LIVE || state.perspective < 0) return null;
      return handAnswer(analyses, handView, "analysis");
    }
    /* The hand's par (each seat's best contract and the bidding side's regrets), fetched once its
     * analysis is in: the dashboard solves one at a time. */
    function parOf(handView, analysis) {
      if (!analysis || analysis.loading || analysis.error || analysis.skipped) return null;
      return handAnswer(pars, handView, "par");
    }
    function parBlock(par) {
      if (!par) return null;
      if (par.loading) return el("p", { class: "muted", text: "working out the par\u2026" });
      if (par.error) return el("p", { class: "muted", id: "dd-par-error", text: "par: " + par.error });
      if (par.par === null) return el("p", { class: "muted", id: "dd-par-none", text: "No par: " + par.reason + "." });
      var block = el("div", { id: "dd-par", title: "each contract solved under " + par.node_limit + " nodes; a..b: bounds" });
      par.lines.forEach(function (line) { append(block, el("p", { class: "dd-par-line", text: line })); });
      return block;
    }
    function costMark(play, marks) {
      if (play.cost === null) return el("span", { class: "dd-mark dd-unsolved muted", "data-cost": "", title: "not solved under the node limit", text: " \u00b7 ?" });
      var kind = play.cost >= marks.blunder ? ["??", "blunder"] : play.cost >= marks.mistake ? ["?", "mistake"] : play.cost >= marks.inaccuracy ? ["?!", "inaccuracy"] : null;
      if (!kind) return el("span", { class: "dd-mark dd-best muted", "data-cost": 0, text: " \u00b7 0" });
      return el("span", { class: "dd-mark dd-" + kind[1], "data-cost": play.cost, title: kind[1] + ": " + play.card + " cost " + play.cost + " points" + (play.best ? "; " + play.best + " lost none" : ""),
        text: " " + kind[0] + " \u2212" + play.cost + (play.best ? " (" + play.best + ")" : "") });
    }
    function analysisPanel(analysis, par) {
      var body;
      if (analysis.loading) body = el("p", { class: "muted", text: "solving\u2026" });
      else if (analysis.error) body = el("p", { class: "muted", id: "dd-error", text: analysis.error });
      else if (analysis.skipped) body = el("p", { class: "muted", text: analysis.skipped });
      else {
        var mine = 0, count = { blunder: 0, mistake: 0, inaccuracy: 0 };
        analysis.plays.forEach(function (p) {
          if (p.seat !== state.perspective || !p.cost) return;
          mine += p.cost;
          if (p.cost >= analysis.marks.blunder) count.blunder++; else if (p.cost >= analysis.marks.mistake) count.mistake++; else if (p.cost >= analysis.marks.inaccuracy) count.inaccuracy++;
        });
        var dd = analysis.dd_value === null ? "not solved from the first card (under " + analysis.node_limit + " nodes a position)" : analysis.dd_value + (analysis.makeable ? " (makeable against " : " (not makeable against ") + analysis.bid + ")";
        body = el("p", { id: "dd-summary" }, "Double-dummy: " + dd + "; taken " + analysis.taken + ". Seat " + state.perspective + "'s cards cost " + mine + " points: " +
          count.blunder + " blunders (??), " + count.mistake + " mistakes (?), " + count.inaccuracy + " inaccuracies (?!).");
      }
      return el("div", { class: "panel", id: "dd-panel" }, el("h3", { text: "Double-dummy analysis" }), body, parBlock(par));
    }
    function render() {
      if (!positions.length) { clear(left); append(left, el("p", { text: "No hand was dealt." })); return; }
      var at = positions[state.pos], handView = view.hands[at[0]], index = at[1];
      var st = reduceHand(handView, index, view);
      var from = revealFrom(handView);
      var revealed = from >= 0 && index >= from;
      var opts = {
        revealed: revealed, perspective: state.perspective, faceUp: state.perspective === -2 && !!handView.reveal,
        toAct: -1, bottom: state.perspective >= 0 ? state.perspective : 0, compact: narrow.matches,
        onStep: function (i) { goStep(at[0], i); }
      };
      var listScroll = document.getElementById("move-list");
      clear(left); clear(right); clear(below);
      append(left, drawTable(view, handView, st, opts), handsPanel(view, handView, st, opts));
      var analysis = analysisOf(handView);
      append(right, infoPanel(view, handView, st, opts), movePanel(view, handView, index, revealed, state.perspective), moveList(at[0], index, revealed || opts.faceUp, analysis), analysis ? analysisPanel(analysis, parOf(handView, analysis)) : null);
      if (revealed || opts.faceUp) append(below, dealTable(view, handView, st));
      keepLastInView(document.getElementById("trick-log"));
      var list = document.getElementById("move-list"), now = list && list.querySelector(".now");
      if (now) list.scrollTop = Math.max(0, now.offsetTop - list.offsetTop - list.clientHeight / 2);
      else if (listScroll) list.scrollTop = 0;
      slider.value = state.pos;
      counter.textContent = "hand " + handView.number + " \u00b7 step " + (index + 1) + "/" + handView.steps.length;
      if (twinLink) twinLink.setAttribute("href", replayHref(view.twin) + "#hand=" + handView.number);
      var seatParam = state.perspective === -2 ? "&seat=all" : state.perspective >= 0 ? "&seat=" + state.perspective : "";
      var hash = "#hand=" + handView.number + (st.step && st.step.type === "trick" ? "&trick=" + st.step.trick : "&step=" + index) + seatParam;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    function fromHash() {
      var params = {};
      location.hash.replace(/^#/, "").split("&").forEach(function (kv) { var p = kv.split("="); if (p[0]) params[p[0]] = decodeURIComponent(p[1] || ""); });
      if (params.seat !== undefined) {
        state.perspective = params.seat === "all" ? -2 : Number(params.seat);
        if (!(state.perspective >= -2 && state.perspective < view.seats.length)) state.perspective = -1;
        perspective.value = String(state.perspective);
      }
      if (params.hand === undefined) return false;
      var h = -1;
      view.hands.forEach(function (hv, i) { if (String(hv.number) === params.hand) h = i; });
      if (h < 0) return false;
      var target = 0;
      var steps = view.hands[h].steps;
      if (params.trick !== undefined) {
        for (var i = 0; i < steps.length; i++) if (steps[i].type === "trick" && String(steps[i].trick) === params.trick) { target = i; break; }
      } else if (params.step !== undefined) target = Math.max(0, Math.min(steps.length - 1, Number(params.step) || 0));
      else if (params.move !== undefined) target = moveStep(steps, Number(params.move));
      for (var k = 0; k < positions.length; k++) if (positions[k][0] === h && positions[k][1] === target) { state.pos = k; return true; }
      return false;
    }
    document.addEventListener("keydown", function (event) {
      var tag = event.target && event.target.tagName;
      // An open select keeps its own keys; the range slider its arrows (it steps by itself).
      if (tag === "SELECT" || (tag === "INPUT" && event.target.type !== "range")) return;
      if (tag === "INPUT" && (event.key === "ArrowRight" || event.key === "ArrowLeft" || event.key === "ArrowUp" || event.key === "ArrowDown")) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var handled = true;
      if (event.key === "ArrowRight") go(state.pos + 1);
      else if (event.key === "ArrowLeft") go(state.pos - 1);
      else if (event.key === "Home") go(0);
      else if (event.key === "End") go(positions.length - 1);
      else if (event.key === "n") hand(1);
      else if (event.key === "p") hand(-1);
      else if (event.key === " " && tag !== "BUTTON") { if (state.timer) stop(); else play(); }
      else handled = false;
      if (handled) event.preventDefault();
    });
    window.addEventListener("hashchange", function () { if (fromHash()) render(); });
    onWidthChange(render);
    fromHash();
    render();
  }

  // Live table ---------------------------------------------------------------------------------
  /* A banner that says the page has stopped updating (the stream or the server is gone). */
  function staleBanner(show, text) {
    var banner = document.getElementById("stale-banner");
    if (!show) { if (banner) banner.remove(); return; }
    if (!banner) {
      banner = el("div", { id: "stale-banner", class: "banner", role: "alert" });
      app.insertBefore(banner, app.firstChild);
    }
    banner.textContent = text;
  }
  function seconds(ms) { return (ms / 1000).toFixed(1) + " s"; }
  function clocksPanel(view) {
    var clock = view.clock;
    if (!clock) return null;
    var rows = view.seats.map(function (s) {
      var acting = clock.to_act === s.seat && view.status === "PLAYING";
      return el("tr", { "data-seat": s.seat, class: acting ? "acting" : "" }, el("th", { scope: "row", text: seatLabel(view, s.seat) }),
        el("td", { class: "n", text: seconds(clock.bank_ms[s.seat] || 0) }),
        el("td", { class: "n clock-left", text: acting && clock.ms_left !== null ? seconds(clock.ms_left) : "" }));
    });
    return el("div", { class: "panel", id: "clocks" }, el("h3", { text: "Clocks (" + seconds(clock.action_ms) + " an action)" }),
      el("table", { class: "data" }, el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "seat" }), el("th", { scope: "col", text: "bank" }), el("th", { scope: "col", text: "left now" }))), el("tbody", {}, rows)));
  }
  function liveTable(id) {
    crumbs([{ text: "dashboard", href: "/" }, { text: "table " + id }]);
    clear(app);
    var head = el("div", { id: "table-head" }), grid = el("div", { class: "grid" });
    var left = el("div", {}), right = el("div", {}), previous = el("div", { id: "previous-hand" });
    append(grid, left, right);
    append(app, head, grid, previous);
    var last = null, received = 0;
    function render(view) {
      last = view; received = Date.now();
      clear(head); clear(left); clear(right); clear(previous);
      var toAct = view.status === "PLAYING" ? view.current_player : -1;
      append(head, el("h1", {}, "Table " + view.table_id + " ", el("span", { class: "badge " + view.status, id: "status", text: view.status })),
        el("p", { class: "meta" }, view.ruleset.name + " \u00b7 " + view.seats.map(function (s) { return s.seat + ": " + s.bot; }).join(", ") + " \u00b7 scores " + view.scores.join(" / "),
          view.tournament_id ? [" \u00b7 tournament ", el("a", { href: tournamentHref(view.tournament_id), id: "tournament-link", text: view.tournament_id })] : null,
          view.status === "FINISHED" ? [" \u00b7 ", el("a", { href: replayHref(view.table_id), id: "replay-link", text: "replay" })] : null),
        el("p", { class: "to-act", id: "to-act", "aria-live": "polite", text: toAct >= 0 ? "To act: " + seatLabel(view, toAct) : view.status === "FINISHED" ? (view.result ? gameOverText(view, view.result) : "Game over") : "Waiting" }));
      var hand = view.hand;
      if (!hand) { append(left, el("p", { class: "muted", text: "Waiting for the bots to sit down\u2026" })); return; }
      var index = hand.steps.length - 1;
      var st = reduceHand(hand, index, view);
      var from = revealFrom(hand);
      // A live hand has no reveal until it is scored: no face-up view, no followed seat.
      var opts = { revealed: from >= 0 && index >= from, perspective: -1, faceUp: false, toAct: toAct, bottom: 0, compact: narrow.matches };
      append(left, drawTable(view, hand, st, opts), handsPanel(view, hand, st, opts));
      append(right, clocksPanel(view), infoPanel(view, hand, st, opts));
      keepLastInView(document.getElementById("trick-log"));
      var prev = view.previous_hand;
      if (prev && prev.reveal) {
        var r = prev.result, pst = reduceHand(prev, prev.steps.length - 1, view);
        append(previous, el("div", { class: "panel reveal" }, el("h2", { text: "Last hand (" + prev.number + "), revealed" }),
          r && !r.redeal ? el("p", { text: "bidder " + seatLabel(view, r.bidder) + " at " + r.bid + (r.made ? ", made" : ", set") + " \u00b7 deltas " + r.score_deltas.map(signed).join(" / ") + " \u00b7 scores " + r.scores_after.join(" / ") }) : el("p", { text: "void hand" })),
          dealTable(view, prev, pst));
      }
    }
    // The clock of the seat to act counts down between updates.
    setInterval(function () {
      if (!last || !last.clock || last.clock.ms_left === null || last.status !== "PLAYING") return;
      var cell = document.querySelector("#clocks tr.acting .clock-left");
      if (cell) cell.textContent = seconds(Math.max(0, last.clock.ms_left - (Date.now() - received)));
    }, 200);
    onWidthChange(function () { if (last) render(last); });
    // States arrive with every event (a fast game: dozens a second); the page draws the newest
    // at most every 150 ms.
    var pending = null, drawTimer = null;
    function later(view) {
      pending = view;
      if (drawTimer) return;
      drawTimer = setTimeout(function () { drawTimer = null; render(pending); }, 150);
    }
    var url = "/api/tables/" + encodeURIComponent(id);
    var lost = "The connection to the server is lost: this page is not updating (retrying\u2026).";
    getJSON(url).then(function (view) {
      render(view);
      if (view.status === "FINISHED") return;
      if (window.EventSource) {
        var source = new EventSource(url + "/events");
        source.addEventListener("state", function (message) { staleBanner(false); later(JSON.parse(message.data)); });
        source.addEventListener("end", function () { source.close(); getJSON(url).then(later); });
        source.addEventListener("error", function () { if (!last || last.status !== "FINISHED") staleBanner(true, lost); });
      } else {
        var timer = setInterval(function () {
          getJSON(url).then(function (v) { staleBanner(false); render(v); if (v.status === "FINISHED") clearInterval(timer); })
            .catch(function () { staleBanner(true, lost); });
        }, 500);
      }
    }).catch(showError);
  }

  // Tournament ---------------------------------------------------------------------------------
  /* End labels of the chart's lines, at least `gap` apart (lines that end close together). */
  function spreadLabels(ys, gap, low, high) {
    var order = ys.map(function (_, i) { return i; }).sort(function (a, b) { return ys[a] - ys[b]; });
    var placed = ys.slice(), previous = low - gap;
    order.forEach(function (i) { placed[i] = Math.max(ys[i], previous + gap); previous = placed[i]; });
    var overflow = previous - high;
    if (overflow > 0) order.forEach(function (i) { placed[i] = Math.max(low, placed[i] - overflow); });
    return placed;
  }
  function niceTicks(low, high) {
    var raw = (high - low) / 4, magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * magnitude; }).filter(function (v) { return v >= raw; })[0];
    var ticks = [];
    for (var v = Math.ceil(low / step) * step; v <= high + 1e-9; v += step) ticks.push(v);
    return ticks;
  }
  /* The leaderboard's Elo (Bradley–Terry) after each number of games: its last point is the
   * leaderboard's. Scales to its container; each line ends in a label with its value. */
  function ratingChart(t) {
    var names = t.standings.map(function (s) { return s.bot; });
    var history = t.history;
    if (!history.length) return el("p", { class: "muted", text: "No rated games yet." });
    var width = 760, height = 300, left = 50, right = 170, top = 15, bottom = 44;
    var values = [0];
    history.forEach(function (p) { names.forEach(function (n) { if (p.elo[n] !== undefined) values.push(p.elo[n]); }); });
    var low = Math.min.apply(null, values), high = Math.max.apply(null, values);
    if (high - low < 20) { low -= 10; high += 10; }
    var pw = width - left - right, ph = height - top - bottom, n = history.length;
    function x(i) { return left + (pw * i) / Math.max(1, n - 1); }
    function y(v) { return top + (ph * (high - v)) / (high - low); }
    var svg = sv("svg", { class: "chart", id: "rating-chart", viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "Elo of each bot after each game, as in the leaderboard" },
      sv("rect", { x: left, y: top, width: pw, height: ph, fill: "#fff", stroke: "#ccc" }),
      sv("line", { x1: left, x2: left + pw, y1: y(0), y2: y(0), stroke: "#999", "stroke-dasharray": "4 3" }));
    niceTicks(low, high).forEach(function (v) { svg.appendChild(sv("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", text: signed(v) })); });
    [0, Math.floor(n / 2), n - 1].filter(function (i, k, all) { return all.indexOf(i) === k; }).forEach(function (i) {
      svg.appendChild(sv("text", { x: x(i), y: top + ph + 14, "text-anchor": "middle", text: history[i].game + 1 }));
    });
    svg.appendChild(sv("text", { x: left + pw / 2, y: height - 6, "text-anchor": "middle", text: "Elo (Bradley\u2013Terry, as in the leaderboard) after each number of games" }));
    var ends = names.map(function (name) { return y(history[n - 1].elo[name] || 0) + 4; });
    var labels = spreadLabels(ends, 14, top + 8, top + ph);
    names.forEach(function (name, k) {
      var colour = PALETTE[k % PALETTE.length], final = history[n - 1].elo[name] || 0;
      var points = history.map(function (p, i) { return x(i).toFixed(1) + "," + y(p.elo[name] || 0).toFixed(1); }).join(" ");
      svg.appendChild(sv("polyline", { fill: "none", stroke: colour, "stroke-width": 1.8, points: points, "data-bot": name, "data-elo": final.toFixed(1) },
        sv("title", { text: name + ": " + signed(final) })));
      svg.appendChild(sv("text", { x: left + pw + 6, y: labels[k], fill: colour, class: "chart-label", "data-bot": name, text: (name.length > 18 ? name.slice(0, 17) + "\u2026" : name) + " " + signed(final) }));
    });
    return svg;
  }
  function tournamentView(t) {
    // A rebuild keeps the sideways scroll of every table (a phone reading the leaderboard).
    var scrolled = Array.prototype.map.call(app.querySelectorAll(".scroll"), function (n) { return n.scrollLeft; });
    clear(app);
    crumbs(LIVE ? [{ text: "dashboard", href: "/" }, { text: "tournament " + t.tournament.name }] : [{ text: "tournament " + t.tournament.name }]);
    var p = t.progress, pct = p.total ? (100 * p.done) / p.total : 0;
    append(app, el("h1", {}, t.tournament.name + " ", el("span", { class: "badge " + p.status, id: "status", text: p.status })),
      el("p", { class: "meta" }, (t.config.format || "") + " \u00b7 ruleset " + ((t.config.ruleset && t.config.ruleset.name) || "") + " \u00b7 " + t.games + " games recorded" + (t.aborted ? " (" + t.aborted + " aborted)" : "")),
      el("div", { class: "panel" }, el("div", { id: "progress-text", text: "progress: " + p.done + " / " + p.total + " games (" + fmt(pct) + " %)" }),
        el("div", { class: "progress" }, el("div", { style: "width:" + pct.toFixed(1) + "%" }))),
      !LIVE && boot.report ? el("p", { class: "meta" }, "The arena's report of this run: ", el("a", { id: "report-link", href: boot.report, text: "report.html" })) : null);
    if (t.live_tables && t.live_tables.length) {
      append(app, el("h2", { text: "Now playing" }), el("ul", { id: "now-playing" }, t.live_tables.map(function (table) {
        return el("li", { "data-table": table.table_id }, el("a", { href: tableHref(table.table_id), text: table.table_id }),
          " \u00b7 " + table.seats.map(function (s) { return s.bot; }).join(", ") + " \u00b7 hand " + table.hand_number + " \u00b7 scores " + table.scores.join(" / "));
      })));
    }
    if (t.sprt) {
      append(app, el("div", { class: "panel" }, "SPRT: " + (t.sprt.decision || "undecided") + " \u00b7 LLR " + fmt(t.sprt.llr, 2) + " in (" + fmt(t.sprt.lower_bound, 2) + ", " + fmt(t.sprt.upper_bound, 2) + ") \u00b7 Elo " + signed(t.sprt.elo) + (t.sprt.elo_error !== null ? " \u00b1 " + fmt(t.sprt.elo_error) : "")));
    }
    var head = ["#", "bot", "Elo", "\u00b1", "95 % interval", "LOS", "games", "W", "L", "D", "points", "think ms", "timeouts", "crashes", "illegal", "fallbacks"];
    // A language model's ledger beside its strength (tokens, cost, latency, invalid replies, durability).
    var ledger = t.standings.some(function (s) { return s.llm_cost_usd !== null && s.llm_cost_usd !== undefined; });
    if (ledger) head = head.concat(["tokens", "$", "latency ms", "invalid", "invalid rate", "durability"]);
    function ledgerCells(s) {
      if (!ledger) return [];
      if (s.llm_cost_usd === null || s.llm_cost_usd === undefined) return [0, 1, 2, 3, 4, 5].map(function () { return el("td", {}); });
      return [el("td", { class: "n ledger-tokens", text: s.llm_prompt_tokens + "/" + s.llm_completion_tokens }),
        el("td", { class: "n ledger-cost", text: s.llm_cost_usd.toFixed(4) }), el("td", { class: "n", text: fmt(s.llm_mean_latency_ms) }),
        el("td", { class: "n ledger-invalid", text: s.llm_invalid_replies }), el("td", { class: "n", text: fmt(100 * s.llm_invalid_reply_rate, 1) + "%" }),
        el("td", { class: "n ledger-durability", text: fmt(s.llm_durability, 1) })];
    }
    var rows = t.standings.map(function (s) {
      return el("tr", { "data-bot": s.bot },
        el("td", { class: "n", text: s.rank }), el("td", { class: "bot" }, s.bot, s.version ? el("span", { class: "muted version", text: " (" + s.version + ")" }) : null),
        el("td", { class: "n", text: signed(s.elo) }), el("td", { class: "n", text: fmt(s.elo_error) }),
        el("td", { class: "n", text: "[" + signed(s.elo_lower) + ", " + signed(s.elo_upper) + "]" }),
        el("td", { class: "n", title: "likelihood of superiority over the next bot", text: s.los_next === null || s.los_next === undefined ? "" : fmt(100 * s.los_next) + "%" }),
        el("td", { class: "n", text: s.games }), el("td", { class: "n", text: s.wins }), el("td", { class: "n", text: s.losses }), el("td", { class: "n", text: s.draws }),
        el("td", { class: "n", text: signed(s.point_difference) }), el("td", { class: "n", text: fmt(s.think_ms_mean, 1) }),
        el("td", { class: "n", text: s.timeouts }), el("td", { class: "n", text: s.crashes }), el("td", { class: "n", text: s.illegal_replies }), fallbackCell(s), ledgerCells(s));
    });
    append(app, el("h2", { text: "Leaderboard" }), el("div", { class: "scroll" }, el("table", { class: "data", id: "leaderboard" },
      el("thead", {}, el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))), el("tbody", {}, rows))),
      el("p", { class: "meta", text: "Elo: Bradley\u2013Terry maximum likelihood over all games, field mean 0, with a bootstrap interval over duplicate groups. LOS: likelihood that a bot is stronger than the next." }), incidentsPanel(t));
    var names = t.standings.map(function (s) { return s.bot; });
    var cross = el("table", { class: "data", id: "crosstable" }, el("tr", {}, el("th", {}), names.map(function (n) { return el("th", { text: n }); })),
      names.map(function (a) {
        return el("tr", {}, el("th", { text: a }), names.map(function (b) {
          if (a === b) return el("td", { class: "n muted", text: "\u2014" });
          var e = (t.crosstable[a] || {})[b];
          return e ? el("td", { class: "n", title: e.wins + " W, " + e.losses + " L, " + e.draws + " D", text: e.points + "/" + e.games }) : el("td", {});
        }));
      }));
    append(app, el("h2", { text: "Crosstable" }), el("p", { class: "meta", text: "Points of the row bot against the column bot, out of the games they met in." }), el("div", { class: "scroll" }, cross));
    append(app, el("h2", { text: "Rating history" }), el("div", { class: "panel scroll" }, ratingChart(t)));
    var games = t.game_list.slice().reverse();
    var rules = t.config.ruleset || {};
    var fixedPairs = rules.partnership === "FIXED" && rules.players === 4;  // seat s on side s % 2
    function winnersText(g) {
      if (!g.winners.length) return "draw";
      if (!fixedPairs) return "side " + g.winners.join(", ");
      return g.winners.map(function (side) {
        var bots = g.seats.filter(function (_, seat) { return seat % 2 === side; });
        return "side " + side + " (" + bots.filter(function (b, i) { return bots.indexOf(b) === i; }).join(", ") + ")";
      }).join(", ");
    }
    function replayable(id) { return LIVE || t.game_list.some(function (g) { return g.game_id === id && g.replay_page; }); }
    append(app, el("h2", { text: "Games" }), el("div", { class: "scroll" }, el("table", { class: "data", id: "games" },
      el("thead", {}, el("tr", {}, ["", "#", "game", "seats", "scores", "winners", "ended", "hands", "seconds", "twin"].map(function (h) { return el("th", { scope: "col", text: h }); }))),
      el("tbody", {}, games.map(function (g) {
        var link = g.has_replay && (LIVE || g.replay_page) ? el("a", { href: replayHref(g.game_id), class: "replay-link", text: "replay" }) : "";
        var twin = g.twin && replayable(g.twin) ? el("a", { href: replayHref(g.twin), class: "twin-link", text: g.twin }) : "";
        return el("tr", { "data-game": g.game_id }, el("td", {}, link), el("td", { class: "n", text: g.index }), el("td", { text: g.game_id }), el("td", { text: g.seats.join(", ") }),
          el("td", { class: "n", text: g.scores.join(" / ") }), el("td", { text: winnersText(g) }),
          el("td", { title: g.detail || "", text: g.termination.toLowerCase().replace(/_/g, " ") }), el("td", { class: "n", text: g.hands }), el("td", { class: "n", text: fmt(g.duration_s, 1) }), el("td", {}, twin));
      })))), games.length ? null : el("p", { class: "muted", text: "No games recorded yet." }));
    Array.prototype.forEach.call(app.querySelectorAll(".scroll"), function (n, i) { if (scrolled[i]) n.scrollLeft = scrolled[i]; });
  }
  function liveTournament(key) {
    var url = "/api/tournaments/" + encodeURIComponent(key);
    function load() {
      getJSON(url).then(function (t) {
        tournamentView(t);
        staleBanner(false);
        if (t.progress.status === "running") setTimeout(load, 2000);
      }).catch(function (error) {
        // Keep what was shown; say that it is no longer updating, and try again.
        if (!document.getElementById("leaderboard")) { showError(error); return; }
        staleBanner(true, "The server does not answer (" + error.message + "): this page is not updating (retrying\u2026).");
        setTimeout(load, 2000);
      });
    }
    load();
  }

  // Dashboard ----------------------------------------------------------------------------------
  function dashboard() {
    crumbs([{ text: "dashboard" }]);
    clear(app);
    var tournaments = el("div", { id: "tournaments" }), tables = el("div", { id: "tables" }), finished = el("div", { id: "finished" });
    append(app, el("h1", { text: "Dashboard" }),
      boot.play ? el("p", { class: "panel" }, el("a", { href: "/play", id: "play-link", text: "Play a game yourself" }), " against the bots of this server (or watch the tables below).") : null,
      el("h2", { text: "Tournaments" }), tournaments, el("h2", { text: "Live tables" }), tables,
      el("h2", { text: "Recently finished" }), finished);
    function lost(error) { staleBanner(true, "The server does not answer (" + error.message + "): this page is not updating (retrying\u2026)."); }
    function tableRows(list, id) {
      return el("div", { class: "scroll" }, el("table", { class: "data", id: id }, el("thead", {}, el("tr", {}, ["table", "status", "tournament", "ruleset", "seats", "hand", "scores", ""].map(function (h) { return el("th", { scope: "col", text: h }); }))),
        el("tbody", {}, list.map(function (t) {
          return el("tr", { "data-table": t.table_id }, el("td", {}, el("a", { href: tableHref(t.table_id), text: t.table_id })), el("td", {}, el("span", { class: "badge " + t.status, text: t.status })),
            el("td", {}, t.tournament_id ? el("a", { href: tournamentHref(t.tournament_id), text: t.tournament_id }) : ""),
            el("td", { text: t.ruleset }), el("td", { text: t.seats.map(function (s) { return s.bot; }).join(", ") }), el("td", { class: "n", text: t.hand_number }),
            el("td", { class: "n", text: t.scores.join(" / ") }), el("td", {}, t.status === "FINISHED" ? el("a", { href: replayHref(t.table_id), text: "replay" }) : ""));
        }))));
    }
    function load() {
      getJSON("/api/tournaments").then(function (body) {
        staleBanner(false);
        clear(tournaments);
        if (!body.tournaments.length) { append(tournaments, el("p", { class: "muted", text: "No tournaments yet: create one with ArenaService CreateTournament (docs/arena.md), or show arena run directories with --web-runs." })); return; }
        append(tournaments, el("div", { class: "scroll" }, el("table", { class: "data" }, el("tr", {}, ["tournament", "status", "format", "bots", "progress"].map(function (h) { return el("th", { text: h }); })),
          body.tournaments.map(function (t) {
            return el("tr", {}, el("td", {}, el("a", { href: tournamentHref(t.key), text: t.name })), el("td", {}, el("span", { class: "badge " + t.status, text: t.status })),
              el("td", { text: t.format }), el("td", { text: t.bots.join(", ") }), el("td", { class: "n", text: t.done + " / " + t.total }));
          }))));
      }).catch(lost);
      getJSON("/api/tables").then(function (body) {
        // Live tables: those being played; finished ones move to "Recently finished" (newest
        // first, the last ten).
        var live = body.tables.filter(function (t) { return t.status !== "FINISHED"; });
        var done = body.tables.filter(function (t) { return t.status === "FINISHED"; }).slice(0, 10);
        clear(tables); clear(finished);
        append(tables, live.length ? tableRows(live, "tables-list") : el("p", { class: "muted", text: "No table is being played." }));
        append(finished, done.length ? tableRows(done, "finished-list") : el("p", { class: "muted", text: "None." }));
      }).catch(lost);
    }
    load();
    setInterval(load, 2000);
  }

  // Moves: think time, incident and note of the move at a step ----------------------------------
  // The incident's kind shows at its move; the note and the details only once the hand is scored
  // (a note may describe the bot's own cards), as the hidden cards.
  function moveStep(steps, move) {
    for (var i = 0; i < steps.length; i++) if (steps[i].move && steps[i].move.index === move) return i;
    return 0;
  }
  var INCIDENT_WORDS = { fallback: "SDK fallback (the bot's code failed)", auto_played: "auto-played (late)", rejected: "after rejected replies" };
  function incidentLine(incident, detailed) {
    return "\u26a0 " + (INCIDENT_WORDS[incident.kind] || incident.kind) + (detailed ? ": " + incident.detail : "");
  }
  function noteNode(note, id) {
    var values = Object.keys(note.values).map(function (k) { return k + "=" + note.values[k]; }).join(", ");
    return el("div", { class: "note", id: id }, el("span", { class: "note-text", text: "note: " + note.text }), values ? el("span", { class: "muted note-values", text: " (" + values + ")" }) : "");
  }
  // At a move: its think time and incident; its note only to the seat that wrote it (following
  // that seat). Once the hand is scored: every move of the hand that has a note or an incident.
  function movePanel(view, hand, index, revealed, perspective) {
    var panel = el("div", { class: "panel", id: "move-panel" });
    if (revealed) {
      var rows = hand.steps.filter(function (e) { return e.move && (e.move.note || e.move.incident); }).map(function (e) {
        var m = e.move;
        return el("li", { "data-move": m.index, "data-seat": m.seat }, "move " + m.index + " \u00b7 " + seatLabel(view, m.seat) + " \u00b7 ", stepText(view, e), " ",
          m.incident ? el("span", { class: "incident " + m.incident.kind, text: incidentLine(m.incident, true) }) : "", m.note ? noteNode(m.note, "") : "");
      });
      append(panel, el("h3", { text: "Notes and incidents of hand " + hand.number }),
        rows.length ? el("ol", { id: "hand-notes" }, rows) : el("p", { class: "muted", id: "hand-notes-none", text: "none" }));
      return panel;
    }
    var step = hand.steps[index], move = step && step.move;
    if (!move) { append(panel, el("span", { class: "muted", text: "not a move" })); return panel; }
    append(panel, el("div", { id: "move-where" }, "move " + move.index + " of hand " + hand.number + " \u00b7 " + seatLabel(view, move.seat) + " \u00b7 think " + move.think_ms + " ms"));
    var incident = move.incident;
    append(panel, el("div", { id: "move-incident", class: incident ? "incident " + incident.kind : "muted", "data-kind": incident ? incident.kind : "", text: incident ? incidentLine(incident, false) : "the bot's own reply" }));
    if (move.note) {
      append(panel, perspective === move.seat ? noteNode(move.note, "move-note")
        : el("div", { class: "muted", id: "move-note-hidden", text: "a note: shown once the hand is scored (or following seat " + move.seat + ")" }));
    }
    return panel;
  }

  // Move incidents of a tournament: each bot's fallbacks, auto-plays and rejected replies, each
  // linked to its move in the replay viewer; the leaderboard's fallback count links here.
  function fallbackCell(s) {
    var n = s.fallbacks || 0;
    return el("td", { class: "n" }, n ? el("a", { href: "#incidents-" + encodeURIComponent(s.bot), text: String(n) }) : "0");
  }
  function incidentsPanel(t) {
    var list = t.move_incidents || [];
    var panel = el("div", { id: "move-incidents" });
    if (!list.length) return panel;
    var bots = [];
    list.forEach(function (i) { if (bots.indexOf(i.bot) < 0) bots.push(i.bot); });
    append(panel, el("h2", { text: "Incidents by move" }), el("p", { class: "meta", text: "Moves that were not the bot's own reply in time, in games whose replays are public (rookery arena incidents lists all)." }));
    bots.forEach(function (bot) {
      var mine = list.filter(function (i) { return i.bot === bot; });
      append(panel, el("h3", { id: "incidents-" + encodeURIComponent(bot), text: bot }), el("ul", { class: "incidents", "data-bot": bot }, mine.map(function (i) {
        return el("li", { "data-kind": i.kind }, el("a", { href: replayHref(i.game_id) + "#hand=" + i.hand + "&move=" + i.move, text: "game " + i.game_id + " hand " + i.hand + " move " + i.move }),
          " \u00b7 seat " + i.seat + " \u00b7 " + (INCIDENT_WORDS[i.kind] || i.kind) + ": " + i.detail);
      })));
    });
    return panel;
  }

  // Boot ---------------------------------------------------------------------------------------
  try {
    if (boot.view === "replay") {
      if (DATA) replayViewer(DATA);
      else getJSON("/api/replays/" + encodeURIComponent(boot.id)).then(replayViewer).catch(showError);
    } else if (boot.view === "table") liveTable(boot.id);
    else if (boot.view === "tournament") { if (DATA) tournamentView(DATA); else liveTournament(boot.id); }
    else dashboard();
  } catch (error) { showError(error); }
})();
