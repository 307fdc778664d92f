/* The review page's own part (page.js does what it shares with the item page): marks the answers the
 * checker changed, keeps "Accept" for unchanged annotations, the keys A (accept), F (flag) and N (note),
 * and the number keys' rule (the question with the focus only; the focus stays). The form works
 * without it. */
(function () {
  "use strict";
  var all = TesseraPage.all;

  function chosen(fs) { return all(fs, "input:checked").map(function (i) { return i.value; }).sort(); }

  function refresh(f) {
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

  function press(button) {
    if (button && !button.disabled) button.click();
  }

  TesseraPage.register({
    panel: "review-panel",
    form: "review-form",
    heading: "review-heading",
    init: refresh,
    change: refresh,
    question: function (f, target) { return target.closest ? target.closest("[data-question]") : null; },
    chosen: function (f, fs, input) { input.focus(); },
    keys: {
      a: function (f) { press(f.querySelector("[data-accept]")); },
      f: function (f) { press(f.querySelector("[data-flag]")); },
      n: function () { document.getElementById("review-note").focus(); },
    },
  });
})();
