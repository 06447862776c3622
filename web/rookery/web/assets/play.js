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
    for (const child of children.flat()) {
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
    form.append(
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
      error);
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
        sessionStorage.setItem("rookery-seat-" + seat.seat_id, seat.secret);
        location.assign(seat.url);
      } catch (failure) {
        error.textContent = failure.message;
        form.querySelector("#start").disabled = false;
      }
    });
    root.replaceChildren(form);
  }

  // The seat ------------------------------------------------------------------------------------

  const seatId = boot.seat_id;
  const secret = sessionStorage.getItem("rookery-seat-" + seatId) || "";
  let state = null;
  let picked = new Set();
  let focus = 0;
  let sending = false;
  let shownAt = 0;

  function seatName(seat) {
    const info = state.seats[seat];
    return seat === state.seat ? "you" : info ? info.name : `seat ${seat}`;
  }

  function describe(step) {
    const who = step.seat !== undefined ? seatName(step.seat) : "";
    const you = step.seat === state.seat;
    const verb = (word, own) => (you ? own || word.replace(/s$/, "") : word);
    switch (step.type) {
      case "dealt": return [`hand ${step.hand + 1} dealt by ${seatName(step.dealer)}`];
      case "bid": return [`${who} ${verb("bids")} ${step.amount}`];
      case "pass": return [`${who} ${verb("passes", "pass")}`];
      case "auction_won": return [`${who} ${verb("wins")} the auction at ${step.amount}${step.forced ? " (forced)" : ""}`];
      case "redeal": return ["everyone passed: redeal"];
      case "nest_taken": return [`${who} ${verb("takes")} the nest (${step.count} cards)`];
      case "trump": return [`${who} ${verb("names")} ${SUITS[step.suit] || step.suit} trump`];
      case "buried": return [`${who} ${verb("buries", "bury")} ${step.count} cards`];
      case "called": return [`${who} ${verb("calls")} `, cardText(step.card)];
      case "partner": return [`${who} ${verb("is", "are")} the called partner`];
      case "play": return [`${who} ${verb("plays")} `, cardText(step.card)];
      case "trick": return [`trick ${step.trick} to ${who} (${step.points} points)`];
      case "scored": return [`hand scored: ${step.result.score_deltas.join(" / ")} → ${step.result.scores_after.join(" / ")}`];
      case "game_over": return ["game over"];
      default: return [step.type];
    }
  }

  function currentTrick() {
    const plays = [];
    for (const step of state.steps) {
      if (step.type === "play") plays.push(step);
      else if (step.type === "trick") plays.length = 0;
    }
    return plays;
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
      const toAct = state.status === "playing" ? "waiting for the other seats…" : "";
      return el("div", { class: "actions", id: "actions" }, el("span", { class: "muted" }, toAct));
    }
    const offer = request.offer;
    const box = el("div", { class: "actions", id: "actions", "data-phase": offer.phase, "data-request": request.request_id });
    if (offer.phase === "BIDDING") {
      const select = el("select", { id: "bid-amount" }, offer.bids.map((b) => el("option", { value: b }, b)));
      box.append(
        offer.bids.length ? el("button", { id: "bid", onclick: () => send(`bid ${select.value}`) }, "Bid ", el("span", { class: "kbd" }, "b")) : null,
        offer.bids.length ? select : null,
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
      const select = el("select", { id: "call-card" }, offer.cards.map((c) => el("option", { value: c }, c)));
      box.append(el("span", {}, "Call a card: "), select,
        el("button", { id: "call", onclick: () => send(`call ${select.value}`) }, "Call ", el("span", { class: "kbd" }, "c")));
    } else if (offer.phase === "PLAY") {
      box.append(el("span", {}, "Your turn: click a card, or ← → and Enter."));
    }
    return box;
  }

  function handPanel() {
    const legal = new Set(legalCards());
    const phase = state.request ? state.request.offer.phase : "";
    const order = state.hand.filter((c) => legal.has(c));
    if (focus >= order.length) focus = 0;
    return el("div", { class: "hand", id: "hand" }, state.hand.map((card) => {
      const isLegal = legal.has(card);
      const classes = ["card", suitOf(card), isLegal ? "legal" : "", picked.has(card) ? "picked" : "",
        isLegal && order[focus] === card ? "focus" : ""].filter(Boolean).join(" ");
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

  function clockText() {
    if (!state.request) return "";
    const left = Math.max(0, state.request.ms_left - (Date.now() - shownAt));
    return `${(left / 1000).toFixed(0)} s (bank ${(state.request.bank_ms / 1000).toFixed(0)} s)`;
  }

  function draw() {
    if (!state) return;
    const trick = currentTrick();
    const won = state.steps.find((s) => s.type === "auction_won");
    const trump = state.steps.find((s) => s.type === "trump");
    const called = state.steps.find((s) => s.type === "called");
    const toAct = state.request ? state.seat : -1;
    const seats = el("div", { class: "seats", id: "seats" }, state.seats.map((info) =>
      el("div", { class: `seatbox${info.seat === state.seat ? " me" : ""}${info.seat === toAct ? " toact" : ""}`, "data-seat": info.seat },
        el("strong", {}, `seat ${info.seat}: ${info.seat === state.seat ? "you (" + info.name + ")" : info.name}`),
        el("div", { class: "muted" }, `side ${info.side}`))));
    const rules = state.ruleset;
    const children = [
      el("h1", {}, `${rules ? rules.name : ""} — seat ${state.seat}`),
      el("p", { class: "meta", id: "status", "data-status": state.status, "data-hand": state.hand_number,
        "data-plays": state.steps.filter((s) => s.type === "play").length,
        "data-over": state.steps.some((s) => s.type === "scored" || s.type === "game_over") ? 1 : 0 },
        state.status === "playing" ? `hand ${state.hand_number + 1}; scores ${state.scores.join(" / ")} (first to ${rules ? rules.target : "?"})` :
        state.status === "finished" ? "game over" : state.status === "failed" ? "" : "waiting for the bots to take their seats…"),
      state.error ? el("p", { class: "error", id: "failure" }, state.error) : null,
      seats,
      el("div", { class: "panel info" }, el("dl", {},
        el("dt", {}, "auction"), el("dd", { class: "auction", id: "auction" }, auction().map((s) =>
          el("span", {}, `${seatName(s.seat)}: ${s.type === "bid" ? s.amount : "pass"}`))),
        el("dt", {}, "contract"), el("dd", { id: "contract" }, won ? `${seatName(won.seat)} at ${won.amount}` : "—"),
        el("dt", {}, "trump"), el("dd", { id: "trump" }, trump ? SUITS[trump.suit] : "—"),
        called ? el("dt", {}, "called") : null, called ? el("dd", { id: "called" }, cardText(called.card)) : null,
        state.nest.length ? el("dt", {}, "the nest") : null,
        state.nest.length ? el("dd", { id: "nest" }, state.nest.map(cardText)) : null,
        state.buried.length ? el("dt", {}, "you buried") : null,
        state.buried.length ? el("dd", { id: "buried" }, state.buried.map(cardText)) : null,
        el("dt", {}, "clock"), el("dd", { class: "clock", id: "clock" }, clockText() || `${state.clock.action_ms / 1000 || "?"} s an action, ${state.clock.late_policy || ""}`))),
      el("h2", {}, "The trick"),
      el("div", { class: "trick", id: "trick" }, trick.map((p) => el("span", {}, el("span", { class: "who" }, seatName(p.seat)), cardText(p.card)))),
      el("h2", {}, "Your hand"),
      handPanel(),
      actionsPanel(),
      el("p", { class: "error", id: "notice" }, state.rejected || ""),
      el("p", { class: "muted" }, "Keys: ", el("span", { class: "kbd" }, "←"), el("span", { class: "kbd" }, "→"), " choose a card, ",
        el("span", { class: "kbd" }, "Enter"), " play it (or, burying, pick it; Enter again with all picked confirms), ",
        el("span", { class: "kbd" }, "p"), " pass, ", el("span", { class: "kbd" }, "b"), " bid, ",
        el("span", { class: "kbd" }, "b r y g"), " trump (when naming it), ", el("span", { class: "kbd" }, "c"), " call."),
      el("h2", {}, "This hand"),
      el("div", { class: "log panel", id: "log" }, state.steps.map((s) => el("div", { "data-seq": s.seq }, describe(s)))),
    ];
    if (state.previous && state.previous.result) {
      const r = state.previous.result;
      children.push(el("div", { class: "panel reveal", id: "previous" },
        el("strong", {}, `Hand ${state.previous.number + 1}: `, `${r.score_deltas.join(" / ")} → ${r.scores_after.join(" / ")}`),
        r.reveal.hands.map((hand, seat) => el("div", { class: "row" }, `${seatName(seat)}: `, hand.map(cardText))),
        el("div", { class: "row" }, "nest: ", r.reveal.nest.map(cardText))));
    }
    if (state.result) {
      const r = state.result;
      const mine = state.ruleset ? state.ruleset.sides[state.seat] : -1;
      children.splice(1, 0, el("div", { class: "panel", id: "result", "data-reason": r.reason_name },
        el("strong", {}, r.winners.includes(mine) ? "You win! " : "Game over. "),
        `${r.reason_name.toLowerCase().replace(/_/g, " ")}; scores ${r.scores.join(" / ")}. `,
        r.detail ? `${r.detail}. ` : "",
        el("a", { href: state.replay, id: "replay-link" }, "the replay"), " · ", el("a", { href: "/play" }, "play again"),
        comparePanel()));
    }
    root.replaceChildren(...children.filter(Boolean));
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
      root.replaceChildren(el("p", { class: "error" }, "This seat is not yours (its key is kept in the tab that opened it)."));
      return;
    }
    document.addEventListener("keydown", keys);
    update(await api(`/api/play/${seatId}`, { headers: { "X-Rookery-Seat": secret } }));
    const stream = new EventSource(`/api/play/${seatId}/events?key=${encodeURIComponent(secret)}`);
    stream.addEventListener("state", (event) => update(JSON.parse(event.data)));
    stream.addEventListener("end", () => stream.close());
    setInterval(() => { const clock = document.getElementById("clock"); if (clock && state && state.request) clock.textContent = clockText(); }, 500);
  }

  (boot.view === "setup" ? setup() : seat()).catch((failure) => {
    root.replaceChildren(el("p", { class: "error" }, failure.message));
  });
})();
