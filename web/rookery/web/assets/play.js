// The human seat's page: the setup form (/play) and the seat (/play/<seat>).
// It draws only what the server sent this seat (GET /api/play/<seat>, its event stream) and offers
// only the legal actions of the open request; the server decides every action anyway.
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("rookery-boot").textContent);
  const root = document.getElementById("play");
  const SUITS = { B: "black", R: "red", Y: "yellow", G: "green" };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const suitOf = (card) => (card.startsWith("ROOK") ? "K" : card[0]);
  const cardText = (card) => el("span", { class: "c " + suitOf(card), "data-card": card }, card);

  async function api(path, options) {
    const response = await fetch(path, options);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  }

  // Setup ---------------------------------------------------------------------------------------

  async function setup() {
    const choices = await api("/api/play");
    const bots = [...choices.reference_bots, ...choices.connected_bots];
    const form = el("form", { class: "setup panel", id: "setup" });
    const preset = el("select", { name: "preset", id: "preset" },
      Object.keys(choices.presets).map((name) => el("option", { value: name }, name)));
    const seatsBox = el("div", { id: "seat-choices" });
    const drawSeats = () => {
      const players = choices.presets[preset.value];
      seatsBox.replaceChildren(...Array.from({ length: players }, (_, seat) =>
        el("label", {}, `seat ${seat}: `,
          el("select", { name: `bot-${seat}`, id: `bot-${seat}` },
            el("option", { value: "" }, "you"),
            bots.map((name) => el("option", { value: name, selected: name === bots[0] && seat !== 0 }, name))))));
    };
    preset.addEventListener("change", drawSeats);
    const error = el("p", { class: "error", id: "setup-error" });
    form.append(...[
      el("h1", {}, "Take a seat"),
      el("p", { class: "meta" }, "Play against bots of your choice on the same server and rules as every bot. ",
        "Pick your seat by leaving it as \"you\"."),
      el("label", {}, "your name ", el("input", { name: "name", id: "name", value: "human", maxlength: 40 })),
      choices.token_mode ? el("label", {}, "your token ", el("input", { name: "token", id: "token", type: "password" })) : null,
      el("label", {}, "rules ", preset),
      el("label", {}, "target (empty: the preset's) ", el("input", { name: "target", id: "target", type: "number", min: 50, step: 10 })),
      el("label", {}, "seconds per action ", el("input", { name: "action_s", id: "action_s", type: "number", min: 1, value: choices.action_s })),
      choices.token_mode ? null : el("label", {}, "seed (empty: a secret one; the same seed deals the same cards, to compare with a bot on the same deals) ",
        el("input", { name: "seed", id: "seed", type: "number", min: 0 })),
      seatsBox,
      el("div", { class: "actions" }, el("button", { type: "submit", id: "start" }, "Start the game")),
      error].filter(Boolean));
    drawSeats();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const players = choices.presets[preset.value];
      const picks = Array.from({ length: players }, (_, seat) => form.querySelector(`#bot-${seat}`).value);
      const mine = picks.indexOf("");
      if (mine < 0 || picks.lastIndexOf("") !== mine) {
        error.textContent = "Leave exactly one seat as \"you\".";
        return;
      }
      const body = {
        preset: preset.value, seat: mine, bots: picks.map((p) => p || "you"),
        name: form.querySelector("#name").value,
        token: choices.token_mode ? form.querySelector("#token").value : "",
        target: form.querySelector("#target").value, action_s: form.querySelector("#action_s").value,
        seed: choices.token_mode ? "" : form.querySelector("#seed").value,
      };
      form.querySelector("#start").disabled = true;
      error.textContent = "Starting: the bots are taking their seats…";
      try {
        const seat = await api("/api/play", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
        });
        localStorage.setItem("rookery-seat-" + seat.seat_id, seat.secret);
        location.assign(seat.url);
      } catch (failure) {
        error.textContent = failure.message;
        form.querySelector("#start").disabled = false;
      }
    });
    const resume = el("div", { id: "resume" });
    root.replaceChildren(resume, form);
    resumable(resume);
  }

  // The seats this browser holds whose game is still on: offered to go back to.
  async function resumable(box) {
    const ids = Object.keys(localStorage).filter((k) => k.startsWith("rookery-seat-")).map((k) => k.slice(13));
    const open = [];
    for (const id of ids) {
      try {
        const view = await api(`/api/play/${id}`, { headers: { "X-Rookery-Seat": localStorage.getItem("rookery-seat-" + id) } });
        if (view.status === "playing" || view.status === "waiting") open.push([id, view]);
      } catch (failure) {
        localStorage.removeItem("rookery-seat-" + id);  // over and forgotten by the server
      }
    }
    if (!open.length) return;
    box.replaceChildren(el("div", { class: "panel" }, el("strong", {}, "Your game is still on: "),
      open.map(([id, view], i) => [i ? " · " : "", el("a", { href: `/play/${id}`, class: "resume-link" },
        `${view.ruleset ? view.ruleset.name : "a game"}, hand ${view.hand_number + 1}`)])));
  }

  // The seat ------------------------------------------------------------------------------------

  const seatId = boot.seat_id;
  // The seat's key lives in the browser (localStorage): a new tab, or the page reopened after
  // closing it, resumes the seat.
  const secret = localStorage.getItem("rookery-seat-" + seatId) || "";
  let state = null;
  let picked = new Set();
  let focus = 0;
  let sending = false;
  let shownAt = 0;
  let announced = "";
  let announcedAuto = -1;
  let lateNotice = "";

  const mySide = () => (state.ruleset ? state.ruleset.sides[state.seat] : -1);
  const sideOf = (seat) => (state.ruleset ? state.ruleset.sides[seat] : seat);
  const isPartnership = () => state.ruleset && state.ruleset.num_sides < state.ruleset.players;

  function seatName(seat) {
    const info = state.seats[seat];
    return seat === state.seat ? "you" : info ? info.name : `seat ${seat + 1}`;
  }

  const isCalled = () => state.ruleset && state.ruleset.parameters && state.ruleset.parameters.partnership === "CALLED";

  // Who a seat is to you: "your partner", "opponent", or, with a called partner, the hand's teams
  // as far as you know them.
  function roleOf(seat) {
    if (seat === state.seat) return "you";
    if (isPartnership()) return sideOf(seat) === mySide() ? "your partner" : "opponent";
    if (!isCalled()) return "opponent";
    const won = state.steps.find((s) => s.type === "auction_won");
    if (!won) return "player";
    const partner = state.steps.find((s) => s.type === "partner");
    const called = state.steps.find((s) => s.type === "called");
    const holdsCalled = called && (state.hand.includes(called.card) ||
      state.steps.some((s) => s.type === "play" && s.seat === state.seat && s.card === called.card));
    const team = [won.seat, ...(partner ? [partner.seat] : holdsCalled ? [state.seat] : [])];
    if (team.includes(state.seat)) return team.includes(seat) ? (partner ? "your partner" : "your partner (secret)") : "opponent";
    if (seat === won.seat) return "bidder (against you)";
    return partner ? (seat === partner.seat ? "bidder's partner" : "with you") : "player";
  }

  function sideName(side) {
    if (side === mySide()) return "your side";
    const seats = state.seats.filter((info) => sideOf(info.seat) === side).map((info) => info.name);
    return seats.join(" & ") || `side ${side + 1}`;
  }

  function describe(step) {
    const who = step.seat !== undefined ? seatName(step.seat) : "";
    const you = step.seat === state.seat;
    const verb = (word, own) => (you ? own || word.replace(/s$/, "") : word);
    const auto = step.auto ? [" ", el("span", { class: "auto", title: "you were out of time: the server chose this move" }, "(played by the server: out of time)")] : [];
    switch (step.type) {
      case "dealt": return [`hand ${step.hand + 1} dealt by ${seatName(step.dealer)}`];
      case "bid": return [`${who} ${verb("bids")} ${step.amount}`, ...auto];
      case "pass": return [`${who} ${verb("passes", "pass")}`, ...auto];
      case "auction_won": return [`${who} ${verb("wins", "win")} the auction at ${step.amount}${step.forced ? " (forced: everyone else passed)" : ""}`];
      case "redeal": case "hand_redealt": return ["everyone passed: the cards are dealt again"];
      case "nest_taken": return [`${who} ${verb("takes", "take")} the nest (${step.count} cards)`];
      case "trump": return [`${who} ${verb("names", "name")} ${SUITS[step.suit] || step.suit} trump`, ...auto];
      case "buried": return [`${who} ${verb("buries", "bury")} ${step.count} cards`, ...auto];
      case "called": return [`${who} ${verb("calls", "call")} `, cardText(step.card), " (its holder is the partner)", ...auto];
      case "partner": return [`${who} ${verb("is", "are")} the called partner`];
      case "play": return [`${who} ${verb("plays", "play")} `, cardText(step.card), ...auto];
      case "trick": return [`trick ${step.trick} to ${who} (${step.points} points)`];
      case "scored": return [handWords(step.result)];
      case "game_over": return ["the game is over"];
      default: return [step.type];
    }
  }

  // A scored hand in plain words: who bid what, made or set, and what it did to the scores.
  function handWords(r) {
    if (r.redeal) return "nobody bid: the hand is dealt again";
    const bidder = r.bidder === state.seat ? "You" : seatName(r.bidder);
    const mine = r.bidder === state.seat || (isPartnership() && sideOf(r.bidder) === mySide());
    const made = r.made ? `made it (${r.bidding_total} points)` :
      `${mine ? (r.bidder === state.seat ? "you were" : "your side was") : "was"} set: only ${r.bidding_total} points`;
    const delta = r.score_deltas[mySide()];
    const sign = delta > 0 ? "+" : "";
    return `${bidder} bid ${r.bid} and ${made}. Your side ${sign}${delta}, now ${r.scores_after[mySide()]}` +
      ` (${r.scores_after.map((v, side) => (side === mySide() ? null : `${sideName(side)} ${v}`)).filter(Boolean).join(", ")}).`;
  }

  function tricks(steps) {
    // The current trick's plays, and the last completed trick of these steps with its winner.
    const current = [];
    let last = null;
    for (const step of steps || state.steps) {
      if (step.type === "play") current.push(step);
      else if (step.type === "trick") last = { plays: current.splice(0), winner: step.seat, points: step.points, trick: step.trick };
    }
    return { current, last };
  }

  function auction() {
    return state.steps.filter((s) => s.type === "bid" || s.type === "pass");
  }

  function send(action) {
    if (!state.request || sending) return;
    sending = true;
    api(`/api/play/${seatId}/action`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Rookery-Seat": secret },
      body: JSON.stringify({ request_id: state.request.request_id, action }),
    }).catch((failure) => { document.getElementById("notice").textContent = failure.message; })
      .finally(() => { sending = false; });
    picked = new Set();
  }

  function legalCards() {
    const offer = state.request ? state.request.offer : null;
    return offer && (offer.phase === "PLAY" || offer.phase === "BURY") ? offer.cards : [];
  }

  function actionsPanel() {
    const request = state.request;
    if (!request) {
      const turn = state.turn;
      const text = state.status !== "playing" ? "" : turn && turn.seat !== state.seat ?
        `${seatName(turn.seat)} is to act…` : "waiting for the table…";
      return el("div", { class: "actions", id: "actions" }, el("span", { class: "muted" }, text));
    }
    const offer = request.offer;
    const box = el("div", { class: "actions", id: "actions", "data-phase": offer.phase, "data-request": request.request_id });
    if (offer.phase === "BIDDING") {
      const select = el("select", { id: "bid-amount", "aria-label": "bid amount" }, offer.bids.map((b) => el("option", { value: b }, b)));
      box.append(
        el("span", {}, "Your bid: "),
        offer.bids.length ? select : null,
        offer.bids.length ? el("button", { id: "bid", onclick: () => send(`bid ${select.value}`) }, "Bid ", el("span", { class: "kbd" }, "b")) : null,
        offer.can_pass ? el("button", { id: "pass", onclick: () => send("pass") }, "Pass ", el("span", { class: "kbd" }, "p")) : null);
    } else if (offer.phase === "NAME_TRUMP") {
      box.append(el("span", {}, "Name trump: "), ...offer.suits.map((suit) =>
        el("button", { id: `trump-${suit}`, "data-suit": suit, onclick: () => send(`trump ${suit}`) },
          SUITS[suit], " ", el("span", { class: "kbd" }, suit.toLowerCase()))));
    } else if (offer.phase === "BURY") {
      const ready = picked.size === offer.count;
      box.append(
        el("span", { id: "bury-count" }, `Bury ${offer.count} cards: ${picked.size} chosen. `),
        el("button", { id: "bury-confirm", disabled: !ready, onclick: () => send(`bury ${[...picked].join(" ")}`) },
          "Confirm the bury ", el("span", { class: "kbd" }, "Enter")));
    } else if (offer.phase === "CALL") {
      const select = el("select", { id: "call-card", "aria-label": "card to call" }, offer.cards.map((c) => el("option", { value: c }, c)));
      box.append(el("span", {}, "Call a card (its holder becomes your partner): "), select,
        el("button", { id: "call", onclick: () => send(`call ${select.value}`) }, "Call ", el("span", { class: "kbd" }, "c")));
    } else if (offer.phase === "PLAY") {
      box.append(el("span", {}, "Your turn: click a card, or ← → and Enter."));
    }
    return box;
  }

  function handPanel() {
    const legal = new Set(legalCards());
    const phase = state.request ? state.request.offer.phase : "";
    const choosing = phase === "PLAY" || phase === "BURY";
    const order = state.hand.filter((c) => legal.has(c));
    if (focus >= order.length) focus = 0;
    return el("div", { class: "hand", id: "hand", "aria-label": "your hand" }, state.hand.map((card) => {
      const isLegal = legal.has(card);
      const classes = ["card", suitOf(card), isLegal ? "legal" : "", choosing && !isLegal ? "unplayable" : "",
        picked.has(card) ? "picked" : "", isLegal && order[focus] === card ? "focus" : ""].filter(Boolean).join(" ");
      return el("button", {
        class: classes, "data-card": card, "data-hand": state.hand_number, disabled: !isLegal,
        onclick: () => choose(card, phase),
      }, card);
    }));
  }

  function choose(card, phase) {
    if (phase === "PLAY") send(`play ${card}`);
    else if (phase === "BURY") {
      if (picked.has(card)) picked.delete(card);
      else if (picked.size < state.request.offer.count) picked.add(card);
      draw();
    }
  }

  const secondsText = (ms) => `${Math.ceil(Math.max(0, ms) / 1000)} s`;

  // Your clock: the action's time, then the bank, both running.
  function myClockText() {
    if (!state.request) return "";
    const elapsed = Date.now() - shownAt;
    const left = state.request.ms_left - elapsed;
    if (left > 0) return `${secondsText(left)} + bank ${secondsText(state.request.bank_ms)}`;
    const bank = state.request.bank_ms + left;
    return bank > 0 ? `bank ${secondsText(bank)}` : "out of time: the server plays for you";
  }

  function turnClockText() {
    const turn = state.turn;
    if (!turn) return "";
    if (turn.seat === state.seat && state.request) {
      const left = state.request.ms_left - (Date.now() - shownAt);
      return left > 0 ? secondsText(left) : `bank ${secondsText(state.request.bank_ms + left)}`;
    }
    return turn.ms_left === null || turn.ms_left === undefined ? "" : secondsText(turn.ms_left - (Date.now() - shownAt));
  }

  function turnText() {
    if (state.status === "finished") return "The game is over.";
    if (state.status !== "playing") return state.status === "failed" ? "The seat stopped." : "Waiting for the bots to take their seats…";
    if (state.request) {
      const phase = state.request.offer.phase;
      const what = { BIDDING: "bid or pass", NAME_TRUMP: "name trump", BURY: "bury cards", CALL: "call a card", PLAY: "play a card" }[phase] || "act";
      return `Your turn: ${what}.`;
    }
    if (state.turn) return `${seatName(state.turn.seat)} (${roleOf(state.turn.seat)}) is to act.`;
    return "Waiting…";
  }

  // The felt: the seats around it (you at the bottom), the trick in the middle, the last trick.
  function felt() {
    const n = state.seats.length || (state.ruleset ? state.ruleset.players : 4);
    const { current, last } = tricks();
    const toAct = state.turn ? state.turn.seat : -1;
    const bids = new Map();
    for (const s of auction()) bids.set(s.seat, s.type === "bid" ? `bid ${s.amount}` : "passed");
    const won = state.steps.find((s) => s.type === "auction_won");
    const spot = (seat, rx, ry) => {
      const angle = Math.PI / 2 + (2 * Math.PI * (seat - state.seat)) / n;
      return { left: 50 + rx * Math.cos(angle), top: 50 + ry * Math.sin(angle) };
    };
    const place = (pos) => `left:${Math.min(84, Math.max(16, pos.left)).toFixed(1)}%;top:${pos.top.toFixed(1)}%`;
    const seats = state.seats.map((info) => {
      const acting = info.seat === toAct;
      const role = roleOf(info.seat);
      return el("div", {
        class: `fseat${info.seat === state.seat ? " me" : ""}${acting ? " toact" : ""}${role === "your partner" ? " partner" : ""}`,
        style: place(spot(info.seat, 40, 37)), "data-seat": info.seat, "aria-current": acting ? "true" : null,
      },
        el("div", { class: "fname", title: info.name }, info.seat === state.seat ? "you" : info.name),
        el("div", { class: "frole" }, [info.seat === state.seat ? "" : role, info.seat === state.dealer ? "dealer" : "",
          won && won.seat === info.seat ? `bidder: ${won.amount}` : !won && bids.has(info.seat) ? bids.get(info.seat) : ""]
          .filter(Boolean).join(" · ")),
        acting ? el("div", { class: "fclock", id: "turn-clock" }, "to act ", el("span", { class: "turn-clock" }, turnClockText())) : null);
    });
    const showing = current.length ? current : last ? last.plays : [];
    const trickCards = showing.map((p) => el("div", { class: `tcard${current.length ? "" : " done"}`, style: place(spot(p.seat, 25, 19)) },
      cardText(p.card)));
    const caption = !current.length && last ?
      el("div", { class: "tcaption", id: "trick-caption" }, `trick ${last.trick} to ${seatName(last.winner)} (${last.points} points)`) : null;
    // Before this hand's first trick is over, the last trick of the hand before (it is public).
    const before = !last && state.previous && state.previous.steps ? tricks(state.previous.steps).last : null;
    const shown = last || before;
    const lastBox = shown ? el("div", { class: `lasttrick${before ? " previous-hand" : ""}`, id: "last-trick" },
      el("div", { class: "ltitle" }, `last trick${before ? ` of hand ${state.previous.number + 1}` : ""}: ${seatName(shown.winner)}, ${shown.points} points`),
      el("div", {}, shown.plays.map((p) => el("span", { class: "lplay", title: seatName(p.seat) }, cardText(p.card))))) : null;
    return el("div", { class: `felt-html${n >= 5 ? " many" : ""}`, id: "felt", role: "group", "aria-label": "the table" },
      el("div", { class: "felt-area" }, ...seats, el("div", { class: "trick", id: "trick" }, ...trickCards), caption), lastBox);
  }

  // Contract, trump, partner, points taken and scores: always on screen.
  function infoBar() {
    const won = state.steps.find((s) => s.type === "auction_won");
    const trump = state.steps.find((s) => s.type === "trump");
    const called = state.steps.find((s) => s.type === "called");
    const partner = state.steps.find((s) => s.type === "partner");
    const rules = state.ruleset;
    const taken = new Map();
    for (const s of state.steps) if (s.type === "trick") taken.set(sideOf(s.seat), (taken.get(sideOf(s.seat)) || 0) + s.points);
    const sides = rules ? [...Array(rules.num_sides).keys()] : [];
    const ordered = sides.includes(mySide()) ? [mySide(), ...sides.filter((s) => s !== mySide())] : sides;
    return el("div", { class: "infobar", id: "infobar" },
      el("span", { class: "item", id: "contract" }, el("span", { class: "k" }, "contract "),
        won ? `${won.seat === state.seat ? "you" : seatName(won.seat)} ${won.seat === state.seat ? "bid" : "bids"} ${won.amount}${won.seat !== state.seat && isPartnership() && sideOf(won.seat) === mySide() ? " (your side)" : ""}` : "in the auction"),
      el("span", { class: "item", id: "trump" }, el("span", { class: "k" }, "trump "), trump ? el("span", { class: `suit ${trump.suit}` }, SUITS[trump.suit]) : "—"),
      called ? el("span", { class: "item", id: "called" }, el("span", { class: "k" }, "partner "),
        partner ? `${seatName(partner.seat)} (`: "holder of ", cardText(called.card), partner ? ")" : "") : null,
      el("span", { class: "item", id: "taken" }, el("span", { class: "k" }, "points this hand "),
        ordered.map((side) => `${sideName(side)} ${taken.get(side) || 0}`).join(" · ")),
      el("span", { class: "item", id: "scores" }, el("span", { class: "k" }, `score (to ${rules ? rules.target : "?"}) `),
        ordered.map((side) => `${sideName(side)} ${state.scores[side] ?? 0}`).join(" · ")),
      state.buried.length ? el("span", { class: "item", id: "buried" }, el("span", { class: "k" }, "you buried "), state.buried.map(cardText)) : null,
      state.nest.length && !state.buried.length ? el("span", { class: "item", id: "nest" }, el("span", { class: "k" }, "the nest "), state.nest.map(cardText)) : null);
  }

  // The auction as a grid: a column per seat, a row per round.
  function auctionGrid() {
    const n = state.seats.length;
    const dealt = state.steps.find((s) => s.type === "dealt");
    const first = dealt ? (dealt.dealer + 1) % n : 0;
    const columns = [...Array(n).keys()].map((i) => (first + i) % n);
    const rows = [];
    let row = new Array(n).fill("");
    let index = 0;
    for (const s of auction()) {
      let col = columns.indexOf(s.seat);
      while (index % n > col) { rows.push(row); row = new Array(n).fill(""); index = Math.ceil(index / n) * n; }
      index = Math.floor(index / n) * n + col;
      row[col] = s.type === "bid" ? String(s.amount) : "pass";
      index += 1;
      if (index % n === 0) { rows.push(row); row = new Array(n).fill(""); }
    }
    if (row.some(Boolean)) rows.push(row);
    return el("table", { class: "data auction-grid", id: "auction" },
      el("thead", {}, el("tr", {}, columns.map((seat) => el("th", { class: seat === state.seat ? "me" : "", title: seatName(seat) }, seatName(seat))))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell))))));
  }

  function resultPanel() {
    const r = state.result;
    const mine = mySide();
    const won = r.winners.includes(mine);
    const late = r.reason_name === "FORFEIT_STRIKES" || r.reason_name === "FORFEIT_TIMEOUT" || r.reason_name === "FORFEIT_DISCONNECT";
    const why = {
      TARGET_REACHED: `${won ? "your side" : r.winners.map(sideName).join(" and ")} reached ${state.ruleset ? state.ruleset.target : "the target"} first`,
      MAX_HANDS: "the hand limit was reached",
      ABORTED: "the game was stopped",
    }[r.reason_name] || (late ? (won ? "another seat was out of time too often and forfeited" :
      "you were out of time too often: the server played for you and then forfeited the game") : r.reason_name.toLowerCase().replace(/_/g, " "));
    const sides = [...r.scores.keys()];
    const scores = [mine, ...sides.filter((side) => side !== mine)].filter((side) => side in r.scores)
      .map((side) => `${sideName(side)} ${r.scores[side]}`).join(" · ");
    return el("div", { class: "panel", id: "result", "data-reason": r.reason_name },
      el("strong", { class: won ? "win" : "" }, won ? "You won! " : r.reason_name === "ABORTED" ? "No result. " : "You lost. "),
      `${/^[a-z]/.test(why) && !r.winners.some((side) => why.startsWith(sideName(side))) ? why[0].toUpperCase() + why.slice(1) : why}. ` +
        `Final score: ${scores}; ${r.hands_played} hands. `,
      el("a", { href: `${state.replay}#seat=${state.seat}`, id: "replay-link" }, "your replay (your cards face up)"), " · ", el("a", { href: "/play" }, "play again"),
      comparePanel());
  }

  function draw() {
    if (!state) return;
    const log = document.getElementById("log");
    const pinned = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    const rules = state.ruleset;
    const status = el("p", { class: "meta", id: "status", "data-status": state.status, "data-hand": state.hand_number,
      "data-plays": state.steps.filter((s) => s.type === "play").length,
      "data-over": state.steps.some((s) => s.type === "scored" || s.type === "game_over") ? 1 : 0 },
      rules ? `${rules.name}, hand ${state.hand_number + 1}: the bidder's side must take at least its bid in card points ` +
        "(5s count 5, 10s and 14s count 10, the Rook 20; the bidder's side adds the buried cards), or loses its bid." : "");
    const turn = el("div", { class: `turn${state.request ? " mine" : ""}`, id: "turn" }, turnText(),
      state.request ? el("span", { class: "clock", id: "clock" }, " ", myClockText()) : null);
    const dock = el("div", { class: "dock", id: "dock" }, turn, handPanel(), actionsPanel(),
      el("p", { class: "error", id: "notice" }, (state.rejected || "").replace(/\bseat (\d+)\b/g, (_, n) => seatName(Number(n)))));
    const side = el("aside", { class: "side" },
      el("h2", {}, "Auction"), auctionGrid(),
      el("h2", {}, "This hand"),
      el("div", { class: "log panel", id: "log", "aria-label": "what happened this hand" },
        state.steps.map((s) => el("div", { "data-seq": s.seq, class: s.auto ? "auto-step" : null }, describe(s)))),
      el("p", { class: "muted keys" }, "Keys: ", el("span", { class: "kbd" }, "←"), el("span", { class: "kbd" }, "→"), " choose a card, ",
        el("span", { class: "kbd" }, "Enter"), " play it (or, burying, pick it; Enter again with all picked confirms), ",
        el("span", { class: "kbd" }, "p"), " pass, ", el("span", { class: "kbd" }, "b"), " bid, ",
        el("span", { class: "kbd" }, "b r y g"), " trump (when naming it), ", el("span", { class: "kbd" }, "c"), " call."));
    const children = [
      state.result ? resultPanel() : null,
      state.error ? el("p", { class: "error", id: "failure" }, state.error) : null,
      el("div", { class: "seatpage" }, el("div", { class: "main-col" }, status, infoBar(), felt(), dock), side),
    ];
    if (state.previous && state.previous.result) {
      const r = state.previous.result;
      children.push(el("div", { class: "panel reveal", id: "previous" },
        el("strong", {}, `Hand ${state.previous.number + 1}: `, handWords(r)),
        r.reveal.hands.map((hand, seat) => el("div", { class: "row" }, `${seatName(seat)}: `, hand.map(cardText))),
        el("div", { class: "row" }, "nest: ", r.reveal.nest.map(cardText))));
    }
    root.replaceChildren(...children.filter(Boolean));
    const newLog = document.getElementById("log");
    if (newLog && (pinned || !log)) newLog.scrollTop = newLog.scrollHeight;
    else if (newLog && log) newLog.scrollTop = log.scrollTop;
    announce();
  }

  // The live region (outside the redrawn page): says once what changed for you.
  function announce() {
    const region = document.getElementById("announce");
    if (!region) return;
    let text = "";
    const auto = [...state.steps].reverse().find((s) => s.auto);
    const late = Boolean(auto && auto.seq > announcedAuto);
    if (late) {
      announcedAuto = auto.seq;
      lateNotice = "You were out of time: the server played for you. ";  // said again with your next turn
    }
    if (state.result) text = state.result.winners.includes(mySide()) ? "The game is over: you won." : "The game is over: you lost.";
    else if (state.request) text = turnText();
    else if (state.previous && state.previous.result && state.steps.length <= 1) text = `Hand ${state.previous.number + 1} is over. ${handWords(state.previous.result)}`;
    const key = state.request ? `r${state.request.request_id}` : text;
    if (late || (text && key !== announced)) {
      announced = key;
      region.textContent = lateNotice + text;
      if (state.request || state.result) lateNotice = "";
    }
  }

  let compareBots = null;
  const comparisons = [];

  function comparePanel() {
    if (compareBots === null) {
      compareBots = [];
      api("/api/play").then((choices) => {
        compareBots = [...choices.reference_bots, ...choices.connected_bots];
        draw();
      });
      return null;
    }
    if (!compareBots.length) return null;
    const select = el("select", { id: "compare-bot" }, compareBots.map((name) => el("option", { value: name }, name)));
    const compare = async () => {
      try {
        comparisons.push(await api(`/api/play/${seatId}/compare`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Rookery-Seat": secret },
          body: JSON.stringify({ bot: select.value }),
        }));
      } catch (failure) {
        comparisons.push({ error: failure.message });
      }
      draw();
    };
    return el("div", { id: "compare" },
      "The same deals with ", select, " in your seat: ",
      el("button", { id: "compare-start", onclick: compare }, "play them"),
      comparisons.map((c, i) => c.error ? el("div", { class: "error" }, c.error) :
        el("div", {}, el("a", { href: c.url, id: `compare-link-${i}` }, `watch ${c.bot} play your deals`),
          " (then its replay: ", el("a", { href: `/replays/${c.table_id}` }, c.table_id), ")")));
  }

  function update(next) {
    if (state && next.request && state.request && next.request.request_id !== state.request.request_id) picked = new Set();
    if (!next.request) picked = new Set();
    state = next;
    shownAt = Date.now();
    draw();
  }

  function keys(event) {
    if (!state || !state.request || event.target.tagName === "INPUT") return;
    const offer = state.request.offer;
    const legal = state.hand.filter((c) => legalCards().includes(c));
    const key = event.key;
    if ((offer.phase === "PLAY" || offer.phase === "BURY") && (key === "ArrowRight" || key === "ArrowLeft")) {
      focus = (focus + (key === "ArrowRight" ? 1 : legal.length - 1)) % Math.max(1, legal.length);
      draw();
      event.preventDefault();
    } else if (key === "Enter" && offer.phase === "PLAY" && legal.length) {
      send(`play ${legal[focus]}`);
      event.preventDefault();
    } else if (key === "Enter" && offer.phase === "BURY") {
      if (picked.size === offer.count) send(`bury ${[...picked].join(" ")}`);
      else if (legal.length) choose(legal[focus], "BURY");
      event.preventDefault();
    } else if (offer.phase === "BIDDING" && key === "p" && offer.can_pass) send("pass");
    else if (offer.phase === "BIDDING" && key === "b" && offer.bids.length) send(`bid ${document.getElementById("bid-amount").value}`);
    else if (offer.phase === "NAME_TRUMP" && offer.suits.includes(key.toUpperCase())) send(`trump ${key.toUpperCase()}`);
    else if (offer.phase === "CALL" && key === "c") send(`call ${document.getElementById("call-card").value}`);
  }

  async function seat() {
    if (!secret) {
      root.replaceChildren(el("p", { class: "error" }, "This seat is not yours (its key is kept in the browser that opened it)."));
      return;
    }
    const region = el("div", { id: "announce", class: "sr-only", "aria-live": "assertive", role: "status" });
    root.after(region);
    document.addEventListener("keydown", keys);
    update(await api(`/api/play/${seatId}`, { headers: { "X-Rookery-Seat": secret } }));
    const stream = new EventSource(`/api/play/${seatId}/events?key=${encodeURIComponent(secret)}`);
    stream.addEventListener("state", (event) => update(JSON.parse(event.data)));
    stream.addEventListener("end", () => stream.close());
    setInterval(() => {
      if (!state) return;
      const clock = document.getElementById("clock");
      if (clock && state.request) clock.textContent = " " + myClockText();
      for (const node of document.querySelectorAll(".turn-clock")) node.textContent = turnClockText();
    }, 250);
  }

  (boot.view === "setup" ? setup() : seat()).catch((failure) => {
    root.replaceChildren(el("p", { class: "error" }, failure.message));
  });
})();
