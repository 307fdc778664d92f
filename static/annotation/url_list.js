/* The url_list field: rows of title + URL, posted as parallel `<name>.title` / `<name>.url` lists.
 * "Add another article" appends a row and focuses its title; Enter in a title moves to its URL,
 * Enter in a URL adds the next row (it never submits the form); "Remove" drops a row. */
(function () {
  "use strict";
  var types = window.TesseraFields = window.TesseraFields || {};

  var T = window.TesseraText;  // the page's words (page.js)

  function rows(fs) { return Array.prototype.slice.call(fs.querySelectorAll(".url-rows > .url-row")); }

  /* Number the rows' accessible names, and say when there is none. */
  function renumber(fs) {
    var list = rows(fs);
    list.forEach(function (row, i) {
      var n = i + 1;
      row.querySelector("input[name$='.title']").setAttribute("aria-label", T.text("article_title", "Title of article {n}", { n: n }));
      row.querySelector("input[name$='.url']").setAttribute("aria-label", T.text("article_url", "URL of article {n}", { n: n }));
      row.querySelector("[data-url-remove]").setAttribute("aria-label", T.text("article_remove", "Remove article {n}", { n: n }));
    });
    fs.querySelector(".url-empty").hidden = list.length > 0;
    var max = +(fs.dataset.max || 0);
    fs.querySelector("[data-url-add]").disabled = !!max && list.length >= max;
  }

  function changed(fs) {
    renumber(fs);
    fs.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function addRow(fs) {
    var max = +(fs.dataset.max || 0);
    if (max && rows(fs).length >= max) return;
    var row = fs.querySelector("template.url-row-template").content.firstElementChild.cloneNode(true);
    fs.querySelector(".url-rows").appendChild(row);
    changed(fs);
    row.querySelector("input").focus();
  }

  function removeRow(fs, row) {
    var list = rows(fs), i = list.indexOf(row);
    row.remove();
    changed(fs);
    var rest = rows(fs);
    var next = rest[Math.min(i, rest.length - 1)];
    (next ? next.querySelector("[data-url-remove]") : fs.querySelector("[data-url-add]")).focus();
  }

  types.url_list = {
    init: function (fs) {
      fs.addEventListener("click", function (e) {
        if (e.target.closest("[data-url-add]")) addRow(fs);
        var remove = e.target.closest("[data-url-remove]");
        if (remove) removeRow(fs, remove.closest(".url-row"));
      });
      fs.addEventListener("keydown", function (e) {
        if (e.key !== "Enter" || e.ctrlKey || e.metaKey || e.target.tagName !== "INPUT") return;
        e.preventDefault();
        if (/\.title$/.test(e.target.name)) e.target.closest(".url-row").querySelector("input[name$='.url']").focus();
        else addRow(fs);
      });
      renumber(fs);
    },
    value: function (fs) {
      var out = rows(fs).map(function (row) {
        return {
          title: row.querySelector("input[name$='.title']").value.trim(),
          url: row.querySelector("input[name$='.url']").value.trim()
        };
      }).filter(function (r) { return r.title && r.url; });
      return out.length ? out : undefined;
    }
  };
})();
