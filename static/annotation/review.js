/* The review form: marks the answers the checker changed, keeps "Accept" for unchanged annotations,
 * keyboard shortcuts (1–9, A, F, N, Z) and the zoom dialog. The form works without it. */
(function () {
  "use strict";
  function form() { return document.getElementById("review-form"); }
  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function chosen(fs) { return all(fs, "input:checked").map(function (i) { return i.value; }).sort(); }

  function refresh() {
    var f = form();
    if (!f) return;
    var changed = 0;
    all(f, "[data-question]").forEach(function (fs) {
      var given = JSON.parse(fs.dataset.given).slice().sort();
      var differs = JSON.stringify(given) !== JSON.stringify(chosen(fs));
      fs.classList.toggle("is-changed", differs);
      fs.querySelector("[data-changed-badge]").hidden = !differs;
      if (differs) changed += 1;
    });
    var accept = f.querySelector("[data-accept]");
    accept.disabled = changed > 0;
    f.querySelector("[data-changes]").textContent = changed
      ? changed + " answer" + (changed === 1 ? "" : "s") + " changed: flag the annotation, or undo your changes to accept it."
      : "";
  }

  function init() {
    var f = form();
    var heading = document.getElementById("review-heading");
    if (f && !f.dataset.ready) {
      f.dataset.ready = "true";
      f.addEventListener("change", refresh);
      f.addEventListener("reset", function () { setTimeout(refresh, 0); });
      var zoom = document.querySelector("[data-zoom]");
      var dialog = document.getElementById("zoom-dialog");
      if (zoom && dialog) {
        zoom.addEventListener("click", function () { dialog.showModal(); });
        dialog.addEventListener("click", function (e) { if (e.target === dialog || e.target.tagName === "IMG") dialog.close(); });
      }
      refresh();
    }
    var error = f && f.querySelector(".has-error input, .has-error textarea");
    if (error) error.focus();
    else if (heading) heading.focus({ preventScroll: true });
    var panel = document.getElementById("review-panel");
    if (panel) panel.dataset.ready = "true";
  }

  function press(button) {
    if (button && !button.disabled) button.click();
  }

  document.addEventListener("keydown", function (e) {
    var f = form();
    if (!f || e.defaultPrevented || document.querySelector("dialog[open]")) return;
    var tag = e.target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && /^(text|search|email|url|password)$/.test(e.target.type))) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var key = e.key.toLowerCase();
    if (/^[1-9]$/.test(key)) {
      var fs = e.target.closest && e.target.closest("[data-question]");
      var input = fs && fs.querySelectorAll("input")[+key - 1];
      if (!input) return;
      e.preventDefault();
      input.checked = input.type === "checkbox" ? !input.checked : true;
      input.focus();
      input.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (key === "a") {
      e.preventDefault();
      press(f.querySelector("[data-accept]"));
    } else if (key === "f") {
      e.preventDefault();
      press(f.querySelector("[data-flag]"));
    } else if (key === "n") {
      e.preventDefault();
      document.getElementById("review-note").focus();
    } else if (key === "z" && document.getElementById("zoom-dialog")) {
      e.preventDefault();
      document.getElementById("zoom-dialog").showModal();
    }
  });

  init();
  document.body.addEventListener("htmx:afterSwap", init);
  document.addEventListener("htmx:sendError", function () { document.getElementById("net-error").hidden = false; });
  document.addEventListener("htmx:responseError", function () {
    var box = document.getElementById("net-error");
    box.textContent = "Something went wrong on our side. Your review is kept on this page; press the button again in a moment.";
    box.hidden = false;
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.successful) document.getElementById("net-error").hidden = true;
  });
})();
