/* The item form: conditional questions, keyboard shortcuts, drafts kept on the server, zoom. */
(function () {
  "use strict";
  var evaluate = window.TesseraConditions.evaluate;
  var draftTimer = null;
  var dirty = false;

  function form() { return document.getElementById("item-form"); }
  function panel() { return document.getElementById("item-panel"); }

  function fieldValue(fs) {
    var type = fs.dataset.type;
    if (type === "text") {
      var text = fs.querySelector("textarea").value.trim();
      return text === "" ? undefined : text;
    }
    var values = Array.prototype.filter.call(fs.querySelectorAll("input[data-v]"), function (i) { return i.checked; })
      .map(function (i) { return JSON.parse(i.dataset.v); });
    if (type === "scale" || type === "choice") return values.length ? values[0] : undefined;
    return values.length ? values : undefined;
  }

  /* Show or hide each question in spec order, as the server's protocol.walk does. */
  function refresh(f) {
    var values = {};
    f.querySelectorAll("fieldset[data-field]").forEach(function (fs) {
      var show = !fs.dataset.showIf || evaluate(JSON.parse(fs.dataset.showIf), values);
      fs.hidden = !show;
      if (!show) return;
      var required = fs.dataset.required === "true" ||
        (fs.dataset.requiredIf && evaluate(JSON.parse(fs.dataset.requiredIf), values));
      fs.classList.toggle("is-required", !!required);
      var value = fieldValue(fs);
      if (value !== undefined) values[fs.dataset.field] = value;
    });
    f.querySelectorAll("textarea[data-min-chars]").forEach(function (t) {
      var counter = t.parentElement.querySelector(".counter");
      var need = +t.dataset.minChars, have = t.value.trim().length;
      if (counter) counter.textContent = have >= need ? have + " characters" : have + " of at least " + need + " characters";
    });
  }

  function visibleFieldsets(f) {
    return Array.prototype.filter.call(f.querySelectorAll("fieldset[data-field]"), function (fs) { return !fs.hidden; });
  }

  function focusFieldset(fs) {
    var target = fs.querySelector("input:checked") || fs.querySelector("input, textarea");
    if (target) target.focus();
  }

  /* The question number keys act on: the one holding the focus, else the first unanswered one. */
  function currentChoiceFieldset(f, target) {
    var own = target && target.closest ? target.closest("fieldset[data-field]") : null;
    if (own && !own.hidden && own.querySelector("input[type=radio]")) return own;
    return visibleFieldsets(f).find(function (fs) {
      return fs.querySelector("input[type=radio]") && !fs.querySelector("input[type=radio]:checked");
    });
  }

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

  function openZoom() {
    var d = document.getElementById("zoom-dialog");
    if (d && !d.open) d.showModal();
  }

  function init() {
    var f = form();
    if (!f) return;
    refresh(f);
    f.addEventListener("change", function () { refresh(f); scheduleDraft(); });
    f.addEventListener("input", function () { refresh(f); scheduleDraft(); });
    var zoom = document.querySelector("[data-zoom]");
    if (zoom) zoom.addEventListener("click", openZoom);
    var dialog = document.getElementById("zoom-dialog");
    if (dialog) dialog.addEventListener("click", function (e) { if (e.target === dialog || e.target.tagName === "IMG") dialog.close(); });
    panel().dataset.ready = "true";  // the form answers keys from here on
    var firstError = f.querySelector("fieldset.has-error:not([hidden])");
    if (firstError) focusFieldset(firstError);
    else document.getElementById("item-heading").focus({ preventScroll: true });
  }

  document.addEventListener("keydown", function (e) {
    var f = form();
    if (!f) return;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      f.requestSubmit();
      return;
    }
    var tag = e.target.tagName;
    if (tag === "TEXTAREA" || (tag === "INPUT" && /^(text|search|email|url)$/.test(e.target.type))) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "z" || e.key === "Z") { e.preventDefault(); openZoom(); return; }
    if (!/^[1-9]$/.test(e.key)) return;
    var fs = currentChoiceFieldset(f, e.target);
    if (!fs) return;
    var radio = fs.querySelectorAll("input[type=radio]")[+e.key - 1];
    if (!radio) return;
    e.preventDefault();
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    var visible = visibleFieldsets(f);
    var next = visible[visible.indexOf(fs) + 1];
    if (next) focusFieldset(next); else f.querySelector("button[type=submit]").focus();
  });

  document.addEventListener("DOMContentLoaded", init);
  document.body && document.body.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "item-panel" || document.getElementById("item-form")) init();
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (e.detail.elt === form()) { clearTimeout(draftTimer); dirty = false; }
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
