/* The item page's own part (page.js does what it shares with the review page): conditional questions
 * in nested scopes, word and character counters, drafts kept on the server, the skip dialog, and the
 * number keys' rule (the question with the focus, else the first unanswered one; the focus moves on).
 * Field types with their own behaviour (upload.js, bbox.js, url_list.js, compare.js) register in
 * window.TesseraFields as {init(fieldset), value(fieldset)}. */
(function () {
  "use strict";
  // conditions.js is loaded only where a field has a condition (Protocol.scripts)
  function evaluate(condition, values) { return window.TesseraConditions.evaluate(condition, values); }
  var types = window.TesseraFields = window.TesseraFields || {};
  var all = TesseraPage.all, isShown = TesseraPage.isShown;
  var draftTimer = null;
  var dirty = false;

  function form() { return document.getElementById("item-form"); }
  function panel() { return document.getElementById("item-panel"); }

  /* --- scopes: the form, and one per document of a per_document field ---------------------- */

  function scopeOf(el) { return el.parentElement.closest("[data-scope]"); }
  function fieldsOf(scope) { return all(scope, "[data-field]").filter(function (fs) { return scopeOf(fs) === scope; }); }
  window.TesseraScope = { scopeOf: scopeOf, fieldsOf: fieldsOf };

  function checkedValues(fs) {
    return all(fs, "input[data-v]:checked").map(function (i) { return JSON.parse(i.dataset.v); });
  }

  /* A field's value as the server's protocol engine would read it (undefined: no answer). */
  function fieldValue(fs) {
    var type = fs.dataset.type;
    if (types[type] && types[type].value) return types[type].value(fs);
    if (type === "text") {
      var text = fs.querySelector("textarea, input").value.trim();  // a short answer is one line
      return text === "" ? undefined : text;
    }
    var values = checkedValues(fs);
    if (type === "scale" || type === "choice") return values.length ? values[0] : undefined;
    if (type === "pick_one") {
      var order = all(fs, "input[data-v]").map(function (i) { return JSON.parse(i.dataset.v); });
      return values.length ? { choice: values[0], order: order } : undefined;
    }
    return values.length ? values : undefined;
  }

  /* Show or hide each question of a scope in spec order, as the server's protocol.walk does;
   * a per_document field's sub-questions see only the answers of their own document. */
  function refreshScope(scope) {
    var values = {};
    fieldsOf(scope).forEach(function (fs) {
      var show = !fs.dataset.showIf || evaluate(JSON.parse(fs.dataset.showIf), values);
      fs.hidden = !show;
      if (!show) return;
      var required = fs.dataset.required === "true" ||
        (fs.dataset.requiredIf && evaluate(JSON.parse(fs.dataset.requiredIf), values));
      fs.classList.toggle("is-required", !!required && fs.dataset.type !== "per_document");
      var value = fs.dataset.type === "per_document"
        ? all(fs, "[data-scope]").map(function (group) {
          return Object.assign({ document: +group.dataset.document }, refreshScope(group));
        })
        : fieldValue(fs);
      if (value !== undefined) values[fs.dataset.field] = value;
    });
    return values;
  }

  var T = window.TesseraText;  // the page's words (page.js)

  function refreshCounters(f) {
    all(f, "[data-type=text] [data-min-chars]").forEach(function (t) {
      var counter = t.parentElement.querySelector(".counter");
      var need = +t.dataset.minChars, have = t.value.trim().length;
      if (counter) counter.textContent = have >= need
        ? T.counted("chars", have, "{n} character", "{n} characters")
        : T.counted("chars_of", need, "{have} of at least {n} character", "{have} of at least {n} characters", { have: have });
    });
    all(f, "[data-type=text] [data-min-words], [data-type=text] [data-max-words]").forEach(function (t) {
      var counter = t.parentElement.querySelector(".counter");
      var words = t.value.trim() === "" ? 0 : t.value.trim().split(/\s+/).length;
      var min = +(t.dataset.minWords || 0), max = +(t.dataset.maxWords || 0);
      var values = { min: min, max: max };
      var rule = min && max ? T.text("write_between", "write {min} to {max}", values)
        : max ? T.text("write_at_most", "write at most {max}", values) : T.text("write_at_least", "write at least {min}", values);
      counter.textContent = T.text("words_rule", "{words}; {rule}.", {
        words: T.counted("words", words, "{n} word", "{n} words"), rule: rule,
      });
      counter.classList.toggle("over", (max && words > max) || (words > 0 && words < min));
    });
  }

  function refresh(f) {
    refreshScope(f);
    refreshCounters(f);
  }

  /* --- number keys ------------------------------------------------------------------------- */

  function visibleQuestions(f) {
    return all(f, "[data-field]:not([data-type=per_document])").filter(isShown);
  }

  /* A question the number keys choose in: one with radio buttons, unless it says otherwise
   * (data-no-number-keys: a best_worst's two radios per image would make 2 the first image's "worst"). */
  function hasRadios(fs) { return !!fs.querySelector("input[type=radio]") && !fs.hasAttribute("data-no-number-keys"); }

  /* The question number keys act on: the one holding the focus, else the first unanswered one. */
  function currentChoiceFieldset(f, target) {
    var own = target && target.closest ? target.closest("[data-field]") : null;
    if (own && own.dataset.type !== "per_document" && isShown(own) && hasRadios(own)) return own;
    return visibleQuestions(f).find(function (fs) {
      return hasRadios(fs) && !fs.querySelector("input[type=radio]:checked");
    });
  }

  /* After a choice the focus moves on to the next question, or to "Submit" after the last one. */
  function moveOn(f, fs) {
    var visible = visibleQuestions(f);
    var next = visible[visible.indexOf(fs) + 1];
    if (next) TesseraPage.focusIn(next); else f.querySelector("button[type=submit]").focus();
  }

  /* On arrival the focus goes into the form's only text answer when no question comes before it;
   * not on a touch screen, whose keyboard would open over the image before it is seen. */
  function arrival(f) {
    if (window.matchMedia && window.matchMedia("(pointer: coarse)").matches) return null;
    var visible = visibleQuestions(f);
    var texts = visible.filter(function (fs) { return fs.dataset.type === "text"; });
    return texts.length === 1 && visible[0] === texts[0] ? texts[0].querySelector("textarea, input") : null;
  }

  /* --- drafts -------------------------------------------------------------------------------- */

  /* What the page leaves with is also kept in the tab (sessionStorage) until the next page has seen
   * it: the beacon sent as the page goes may reach the server after a reload was answered, or never. */
  var PENDING = "tessera-draft:";

  function formEntries(f) {
    var entries = [];
    new FormData(f).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken" && typeof value === "string") entries.push([name, value]);
    });
    return entries;
  }

  function keepPending(url, f) {
    try { sessionStorage.setItem(PENDING + url, JSON.stringify(formEntries(f))); } catch (e) { /* storage off */ }
  }

  /* On arrival: a draft the previous page left that this page does not show is sent again, then the
   * panel is read anew (the server renders every field type from its draft) unless the annotator
   * has begun to answer meanwhile. */
  function restorePending(f, p) {
    var key = PENDING + p.dataset.draftUrl, pending = null;
    try {
      pending = sessionStorage.getItem(key);
      Object.keys(sessionStorage).forEach(function (k) { if (k.indexOf(PENDING) === 0) sessionStorage.removeItem(k); });
    } catch (e) { return; }
    if (!pending || pending === JSON.stringify(formEntries(f))) return;
    var data = new FormData();
    data.append("csrfmiddlewaretoken", f.elements.csrfmiddlewaretoken.value);
    JSON.parse(pending).forEach(function (entry) { data.append(entry[0], entry[1]); });
    fetch(p.dataset.draftUrl, { method: "POST", body: data, credentials: "same-origin" }).then(function (r) {
      if (r.ok && !dirty && panel() === p) htmx.ajax("GET", window.location.href, { target: "#item-panel", swap: "outerHTML" });
    }).catch(function () {  // offline: kept for the next page
      try { sessionStorage.setItem(key, pending); } catch (e) { /* storage off */ }
    });
  }

  function saveDraft(useBeacon) {
    var f = form(), p = panel();
    if (!f || !p || !dirty) return;
    dirty = false;
    var data = new FormData(f);
    if (useBeacon) keepPending(p.dataset.draftUrl, f);
    if (useBeacon && navigator.sendBeacon) { navigator.sendBeacon(p.dataset.draftUrl, data); return; }
    var status = p.querySelector(".draft-status");
    fetch(p.dataset.draftUrl, { method: "POST", body: data, credentials: "same-origin" })
      .then(function (r) {
        // refused (the session continues in another browser, or was stopped): the page says why
        if (r.status === 403) { window.location.reload(); return; }
        if (!status) return;
        if (r.ok) { status.textContent = T.text("draft_saved", "Draft saved"); return; }
        r.json().then(function (body) {
          status.textContent = T.text("draft_not_saved_because", "Draft not saved: {error}", { error: body.error || r.status });
        }).catch(function () { status.textContent = T.text("draft_not_saved", "Draft not saved"); });
      })
      .catch(function () {
        dirty = true;
        if (status) status.textContent = T.text("draft_offline", "Draft not saved (offline?)");
      });
  }

  function scheduleDraft() {
    dirty = true;
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, 600);
  }

  document.addEventListener("htmx:beforeRequest", function (e) {
    var f = form();
    if (f && (e.detail.elt === f || e.detail.elt.closest("#skip-dialog"))) { clearTimeout(draftTimer); dirty = false; }
  });
  window.addEventListener("pagehide", function () { saveDraft(true); });

  /* --- the skip dialog: its number keys pick a reason, Ctrl+Enter sends it ------------------- */

  function initSkip() {
    var dialog = document.getElementById("skip-dialog");
    var opener = document.querySelector("[data-skip-open]");
    if (!dialog || !opener) return;
    opener.addEventListener("click", function () {
      TesseraPage.openDialog("skip-dialog");
      var first = dialog.querySelector("input:checked") || dialog.querySelector("input[type=radio]");
      if (first) first.focus();
    });
    dialog.querySelector("[data-skip-cancel]").addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("close", function () { opener.focus(); });
    if (dialog.hasAttribute("data-open")) TesseraPage.openDialog("skip-dialog");
  }

  function skipKey(e) {
    var skip = document.getElementById("skip-dialog");
    if (!skip || !skip.open) return false;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); skip.querySelector("form").requestSubmit(); }
    var reason = /^[1-9]$/.test(e.key) && skip.querySelectorAll("input[type=radio]")[+e.key - 1];
    if (reason) { e.preventDefault(); TesseraPage.choose(reason); reason.focus(); }
    return true;
  }

  TesseraPage.register({
    panel: "item-panel",
    form: "item-form",
    heading: "item-heading",
    init: function (f) {
      all(f, "[data-type]").forEach(function (fs) {
        var type = types[fs.dataset.type];
        if (type && type.init) type.init(fs);
      });
      refresh(f);
      initSkip();
      restorePending(f, panel());
    },
    change: function (f) { refresh(f); scheduleDraft(); },
    question: currentChoiceFieldset,
    chosen: moveOn,
    arrival: arrival,
    submitKey: true,
    dialogKey: skipKey,
  });
})();
