/* The item page's honest-effort signals and its offline submit (annotation/effort.py reads what it sends).
 *
 * Signals, for review only: per free-text answer the characters pasted (paste and drop events' length),
 * the characters typed (input events' inserted text; an input method's once committed), the keystrokes that followed another one in the
 * same answer (keys: the number of keystroke intervals) and the characters that came in bursts (a paste,
 * or one input event inserting more than BURST characters); per item, the times the page lost the focus
 * or was hidden (blurs) and the milliseconds it stayed hidden. Counts only, never the text. They go with
 * the submit as one parameter (_effort, JSON, at most MAX characters: else none).
 *
 * Offline: a submit that cannot reach the server (htmx:sendError, not an error answer) keeps the answer
 * on the page, says so, and is sent again when the browser is back online and every RETRY ms meanwhile;
 * the server stores a repeated submit once. */
(function () {
  "use strict";
  var BURST = 20, MAX = 4000, MAX_NAME = 120, RETRY = 5000;
  var T = window.TesseraText;
  var state = null, itemKey = null, retryTimer = null;

  function form() { return document.getElementById("item-form"); }

  function begin() {
    var p = document.getElementById("item-panel");
    var key = p ? p.dataset.draftUrl || "" : "";
    if (state && key === itemKey) return;  // the same item again (a refused submit): keep counting
    itemKey = key;
    state = { fields: {}, blurs: 0, hidden_ms: 0, away: false, hiddenSince: document.hidden ? Date.now() : null,
              lastKey: {} };
  }

  function textTarget(el) {
    return el && el.name && el.closest && el.closest("#item-form [data-type=text]") &&
      (el.tagName === "TEXTAREA" || el.tagName === "INPUT") ? el : null;
  }

  function counts(el) {
    var name = el.name.slice(0, MAX_NAME);
    if (!state.fields[name]) state.fields[name] = { pasted: 0, typed: 0, keys: 0, burst: 0 };
    return state.fields[name];
  }

  function pasted(e, text) {
    var el = textTarget(e.target);
    if (!el || !state) return;
    var c = counts(el);
    c.pasted += text.length;
    c.burst += text.length;
  }

  document.addEventListener("paste", function (e) {
    pasted(e, (e.clipboardData && e.clipboardData.getData("text")) || "");
  }, true);
  document.addEventListener("drop", function (e) {
    pasted(e, (e.dataTransfer && e.dataTransfer.getData("text")) || "");
  }, true);

  /* An input method (Japanese, Hindi…) inserts its text as it composes it: counted once, when committed. */
  document.addEventListener("compositionend", function (e) {
    var el = textTarget(e.target);
    if (el && state && typeof e.data === "string") counts(el).typed += e.data.length;
  }, true);

  document.addEventListener("input", function (e) {
    var el = textTarget(e.target);
    var type = e.inputType || "";
    if (!el || !state || type === "insertFromPaste" || type === "insertFromDrop" || type === "insertCompositionText" ||
        e.isComposing || type.indexOf("insert") !== 0) return;
    var n = typeof e.data === "string" ? e.data.length : type === "insertLineBreak" ? 1 : 0;
    var c = counts(el);
    c.typed += n;
    if (n > BURST) c.burst += n;
  }, true);

  document.addEventListener("keydown", function (e) {
    var el = textTarget(e.target);
    if (!el || !state || e.ctrlKey || e.metaKey || e.altKey) return;
    if (state.lastKey[el.name]) counts(el).keys += 1;
    state.lastKey[el.name] = true;
  }, true);

  /* Leaving the page: a blur or its hiding, counted once until the page has the focus and is shown again. */
  function leave() {
    if (!state) return;
    if (!state.away) state.blurs += 1;
    state.away = true;
  }
  function back() { if (state && !document.hidden) state.away = false; }

  window.addEventListener("blur", leave);
  window.addEventListener("focus", back);
  document.addEventListener("visibilitychange", function () {
    if (!state) return;
    if (document.hidden) {
      leave();
      state.hiddenSince = Date.now();
    } else {
      if (state.hiddenSince !== null) state.hidden_ms += Math.max(0, Date.now() - state.hiddenSince);
      state.hiddenSince = null;
      back();
    }
  });

  function snapshot() {
    var hidden = state.hidden_ms + (state.hiddenSince !== null ? Math.max(0, Date.now() - state.hiddenSince) : 0);
    var text = JSON.stringify({ fields: state.fields, blurs: state.blurs, hidden_ms: Math.round(hidden) });
    return text.length <= MAX ? text : null;
  }

  document.addEventListener("htmx:configRequest", function (e) {
    var f = form();
    if (!f || e.detail.elt !== f || !state) return;
    var text = snapshot();
    if (text !== null) e.detail.parameters._effort = text;
  });

  /* --- offline: keep the answer, say so, send it again --------------------------------------------- */

  function box() { return document.getElementById("net-error"); }

  function resend() {
    var f = form();
    if (!retryTimer || !f || navigator.onLine === false) return;
    var b = box();
    if (b) b.textContent = T.text("submit_resending", "The connection is back: sending your answer…");
    f.requestSubmit();
  }

  function stopRetrying() {
    clearInterval(retryTimer);
    retryTimer = null;
  }

  document.addEventListener("htmx:sendError", function (e) {
    var f = form();
    if (!f || e.detail.elt !== f) return;
    var b = box();
    if (b) {
      b.textContent = T.text("submit_offline",
        "You are offline. Your answer is kept and will be sent when the connection returns.");
      b.hidden = false;
    }
    if (!retryTimer) retryTimer = setInterval(resend, RETRY);
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.xhr && e.detail.xhr.status) stopRetrying();  // the server answered: sent
  });
  window.addEventListener("online", resend);

  document.addEventListener("htmx:afterSwap", begin);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
