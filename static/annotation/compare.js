/* The comparison fields (pairwise, best_worst, rank: studies/protocol/types/compare.py) on the item
 * page, registered in window.TesseraFields as item.js asks. The forms work without it; with it, each
 * field's value is the one the server's engine reads (for conditions on it), a pairwise strength is
 * asked only once an image is chosen (a tie or "both fail" posts none), an image is never both the
 * best and the worst (choosing one clears the other), and a rank goes to one image only (choosing a
 * rank another image has gives that image this one's old rank). */
(function () {
  "use strict";
  var types = window.TesseraFields = window.TesseraFields || {};

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function order(fs) { return all(fs, "[data-image]").map(function (card) { return card.dataset.image; }); }
  function checked(fs, name) {
    var input = all(fs, "input[type=radio]:checked").filter(function (i) { return i.name === name; })[0];
    return input ? input.value : "";
  }

  types.pairwise = {
    init: function (fs) {
      var strength = fs.querySelector("[data-strength]");
      if (!strength) return;
      function ask() {
        var asked = order(fs).indexOf(checked(fs, fs.dataset.name)) >= 0;
        strength.hidden = !asked;
        all(strength, "input").forEach(function (input) { input.disabled = !asked; });
      }
      fs.addEventListener("change", ask);
      ask();
    },
    value: function (fs) {
      var choice = checked(fs, fs.dataset.name);
      if (!choice) return undefined;
      var value = { choice: choice, order: order(fs) };
      var strength = checked(fs, fs.dataset.name + ".strength");
      if (strength && fs.querySelector("[data-strength]") && value.order.indexOf(choice) >= 0) value.strength = +strength;
      return value;
    },
  };

  types.best_worst = {
    init: function (fs) {
      var best = fs.dataset.name, worst = best + ".worst";
      fs.addEventListener("change", function (e) {
        var input = e.target;
        if (input.type !== "radio" || !input.checked || (input.name !== best && input.name !== worst)) return;
        var other = input.name === best ? worst : best;
        all(fs, "input[type=radio]").forEach(function (twin) {
          if (twin.name === other && twin.value === input.value) twin.checked = false;
        });
      });
    },
    value: function (fs) {
      var best = checked(fs, fs.dataset.name), worst = checked(fs, fs.dataset.name + ".worst");
      return best && worst ? { best: best, worst: worst, order: order(fs) } : undefined;
    },
  };

  types.rank = {
    init: function (fs) {
      var selects = all(fs, "select[data-rank]");
      selects.forEach(function (s) { s.dataset.was = s.value; });
      fs.addEventListener("change", function (e) {
        var select = e.target;
        if (selects.indexOf(select) < 0) return;
        selects.forEach(function (other) {
          if (other !== select && select.value && other.value === select.value) {
            other.value = select.dataset.was;
            other.dataset.was = other.value;
          }
        });
        select.dataset.was = select.value;
      });
    },
    value: function (fs) {
      var ranks = {};
      all(fs, "[data-image]").forEach(function (card) {
        var select = card.querySelector("select[data-rank]");
        if (select && select.value) ranks[card.dataset.image] = +select.value;
      });
      var ids = order(fs);
      var given = ids.map(function (id) { return ranks[id]; });
      var whole = given.every(function (r, i) { return r && given.indexOf(r) === i; });
      if (!ids.length || !whole) return undefined;
      return { ranking: ids.slice().sort(function (a, b) { return ranks[a] - ranks[b]; }), order: ids };
    },
  };
})();
