/* The item form: conditional questions in nested scopes, keyboard shortcuts, drafts kept on the
 * server, zoom and skip. Field types with their own behaviour (upload.js, bbox.js, url_list.js)
 * register in window.TesseraFields as {init(fieldset), value(fieldset)}. */
(function () {
  "use strict";
  var evaluate = window.TesseraConditions.evaluate;
  var types = window.TesseraFields = window.TesseraFields || {};
  var draftTimer = null;
  var dirty = false;

  function form() { return document.getElementById("item-form"); }
  function panel() { return document.getElementById("item-panel"); }
  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }

  /* --- scopes: the form, and one per document of a per_document field ---------------------- */

  function scopeOf(el) { return el.parentElement.closest("[data-scope]"); }
  function fieldsOf(scope) { return all(scope, "[data-field]").filter(function (fs) { return scopeOf(fs) === scope; }); }
  function isShown(el) { return !el.closest("[hidden]"); }
  window.TesseraScope = { scopeOf: scopeOf, fieldsOf: fieldsOf };

  function checkedValues(fs) {
    return all(fs, "input[data-v]:checked").map(function (i) { return JSON.parse(i.dataset.v); });
  }

  /* A field's value as the server's protocol engine would read it (undefined: no answer). */
  function fieldValue(fs) {
    var type = fs.dataset.type;
    if (types[type] && types[type].value) return types[type].value(fs);
    if (type === "text") {
      var text = fs.querySelector("textarea").value.trim();
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

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function refreshCounters(f) {
    all(f, "textarea[data-min-chars]").forEach(function (t) {
      var counter = t.parentElement.querySelector(".counter");
      var need = +t.dataset.minChars, have = t.value.trim().length;
      if (counter) counter.textContent = have >= need ? have + " characters" : have + " of at least " + need + " characters";
    });
    all(f, "textarea[data-min-words], textarea[data-max-words]").forEach(function (t) {
      var counter = t.parentElement.querySelector(".counter");
      var words = t.value.trim() === "" ? 0 : t.value.trim().split(/\s+/).length;
      var min = +(t.dataset.minWords || 0), max = +(t.dataset.maxWords || 0);
      var rule = min && max ? "write " + min + " to " + max : max ? "write at most " + max : "write at least " + min;
      counter.textContent = plural(words, "word") + "; " + rule + ".";
      counter.classList.toggle("over", (max && words > max) || (words > 0 && words < min));
    });
  }

  function refresh(f) {
    refreshScope(f);
    refreshCounters(f);
  }

  /* --- focus and number keys --------------------------------------------------------------- */

  function visibleQuestions(f) {
    return all(f, "[data-field]:not([data-type=per_document])").filter(isShown);
  }

  var FOCUSABLE = "input:not([type=hidden]), textarea, [tabindex='0'], button:not(.info)";

  function focusFieldset(fs) {
    var target = fs.querySelector("input:checked") || all(fs, FOCUSABLE).filter(isShown)[0];
    if (target) target.focus();
  }

  function hasRadios(fs) { return !!fs.querySelector("input[type=radio]"); }

  /* The question number keys act on: the one holding the focus, else the first unanswered one. */
  function currentChoiceFieldset(f, target) {
    var own = target && target.closest ? target.closest("[data-field]") : null;
    if (own && own.dataset.type !== "per_document" && isShown(own) && hasRadios(own)) return own;
    return visibleQuestions(f).find(function (fs) {
      return hasRadios(fs) && !fs.querySelector("input[type=radio]:checked");
    });
  }

  function choose(radio) {
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function numberKey(f, e) {
    var fs = currentChoiceFieldset(f, e.target);
    var radio = fs && fs.querySelectorAll("input[type=radio]")[+e.key - 1];
    if (!radio) return;
    e.preventDefault();
    choose(radio);
    var visible = visibleQuestions(f);
    var next = visible[visible.indexOf(fs) + 1];
    if (next) focusFieldset(next); else f.querySelector("button[type=submit]").focus();
  }

  /* --- drafts -------------------------------------------------------------------------------- */

  function saveDraft(useBeacon) {
    var f = form(), p = panel();
    if (!f || !p || !dirty) return;
    dirty = false;
    var data = new FormData(f);
    if (useBeacon && navigator.sendBeacon) { navigator.sendBeacon(p.dataset.draftUrl, data); return; }
    var status = p.querySelector(".draft-status");
    fetch(p.dataset.draftUrl, { method: "POST", body: data, credentials: "same-origin" })
      .then(function (r) { if (status && r.ok) status.textContent = "Draft saved"; })
      .catch(function () { dirty = true; if (status) status.textContent = "Draft not saved (offline?)"; });
  }

  function scheduleDraft() {
    dirty = true;
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, 600);
  }

  /* --- zoom and skip dialogs ------------------------------------------------------------------ */

  function openDialog(id) {
    var d = document.getElementById(id);
    if (d && !d.open) d.showModal();
    return d;
  }

  function initSkip() {
    var dialog = document.getElementById("skip-dialog");
    var opener = document.querySelector("[data-skip-open]");
    if (!dialog || !opener) return;
    opener.addEventListener("click", function () {
      openDialog("skip-dialog");
      var first = dialog.querySelector("input:checked") || dialog.querySelector("input[type=radio]");
      if (first) first.focus();
    });
    dialog.querySelector("[data-skip-cancel]").addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("close", function () { opener.focus(); });
    if (dialog.hasAttribute("data-open")) openDialog("skip-dialog");
  }

  function init() {
    var f = form();
    if (!f || f.dataset.ready) return;
    f.dataset.ready = "true";
    all(f, "[data-type]").forEach(function (fs) {
      var type = types[fs.dataset.type];
      if (type && type.init) type.init(fs);
    });
    refresh(f);
    f.addEventListener("change", function () { refresh(f); scheduleDraft(); });
    f.addEventListener("input", function () { refresh(f); scheduleDraft(); });
    var zoom = document.querySelector("[data-zoom]");
    if (zoom) zoom.addEventListener("click", function () { openDialog("zoom-dialog"); });
    var dialog = document.getElementById("zoom-dialog");
    if (dialog) dialog.addEventListener("click", function (e) { if (e.target === dialog || e.target.tagName === "IMG") dialog.close(); });
    initSkip();
    panel().dataset.ready = "true";  // the form answers keys from here on
    var firstError = f.querySelector("fieldset.has-error:not([data-type=per_document])");
    if (firstError && isShown(firstError)) focusFieldset(firstError);
    else if (!document.querySelector("dialog[open]")) document.getElementById("item-heading").focus({ preventScroll: true });
  }

  document.addEventListener("keydown", function (e) {
    var f = form();
    if (!f || e.defaultPrevented) return;
    var skip = document.getElementById("skip-dialog");
    if (skip && skip.open) {  // keys pick a reason and submit the skip form
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); skip.querySelector("form").requestSubmit(); }
      var reason = /^[1-9]$/.test(e.key) && skip.querySelectorAll("input[type=radio]")[+e.key - 1];
      if (reason) { e.preventDefault(); choose(reason); reason.focus(); }
      return;
    }
    if (document.querySelector("dialog[open]")) return;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      f.requestSubmit();
      return;
    }
    var tag = e.target.tagName;
    if (tag === "TEXTAREA" || (tag === "INPUT" && /^(text|search|email|url)$/.test(e.target.type))) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if ((e.key === "z" || e.key === "Z") && document.getElementById("zoom-dialog")) {
      e.preventDefault();
      openDialog("zoom-dialog");
      return;
    }
    if (/^[1-9]$/.test(e.key)) numberKey(f, e);
  });

  document.addEventListener("DOMContentLoaded", init);
  document.body && document.body.addEventListener("htmx:afterSwap", function () {
    if (document.getElementById("item-form")) init();
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    var f = form();
    if (f && (e.detail.elt === f || e.detail.elt.closest("#skip-dialog"))) { clearTimeout(draftTimer); dirty = false; }
  });
  document.addEventListener("htmx:sendError", function () {
    document.getElementById("net-error").hidden = false;
  });
  document.addEventListener("htmx:responseError", function () {
    var box = document.getElementById("net-error");
    box.textContent = "Something went wrong on our side. Your answers are kept on this page; press “Submit” again in a moment.";
    box.hidden = false;
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.successful) document.getElementById("net-error").hidden = true;
  });
  window.addEventListener("pagehide", function () { saveDraft(true); });
})();
