/* What the two working pages share, the annotator's item page and the checker's review page: a panel
 * swapped in by htmx, its keyboard shortcuts and their guard, the focus, the zoom dialog and the network
 * error box. The page's own script (item.js, review.js) registers what differs with
 * TesseraPage.register({...}) (see `register` below). Both pages work without JavaScript. */
(function () {
  "use strict";
  var page = null;  // the registered page

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function isShown(el) { return !el.closest("[hidden]"); }
  function byId(id) { return document.getElementById(id); }

  /* The scripts' words in the page's language: the JSON of id "ui-messages" (annotation/page_messages.py),
   * English (the caller's) when a message is missing. text(key, english, {name: value}) fills the
   * {name} placeholders; counted(key, n, englishOne, englishOther, values) picks the form of n's
   * plural category (Intl.PluralRules of the page's language); {n} is n. */
  var MESSAGES = (function () {
    var el = document.getElementById("ui-messages");
    try { return (el && JSON.parse(el.textContent)) || {}; } catch (e) { return {}; }
  })();
  function fill(message, values) {
    return message.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  function text(key, english, values) {
    return fill(typeof MESSAGES[key] === "string" ? MESSAGES[key] : english, values);
  }
  function counted(key, n, one, other, values) {
    var forms = MESSAGES[key], category = "other";
    try { category = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (e) { /* old browser */ }
    var form = forms && typeof forms === "object" ? forms[category] || forms.other : null;
    var all = Object.assign({ n: n }, values || {});
    return fill(form || (n === 1 ? one : other), all);
  }

  /* A key typed into something that takes typing is never a shortcut: a text-like input (any input
   * but buttons, check boxes, radios, files, ranges and colours: text, search, email, url, password,
   * number, dates…), a textarea, a select or an editable element. Chords with Ctrl or ⌘ are not typing
   * (Ctrl+Enter submits the item even from a text box). */
  var NOT_TYPED = /^(button|checkbox|color|file|hidden|image|radio|range|reset|submit)$/;

  function isTyping(el) {
    if (!el || !el.tagName) return false;
    var tag = el.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable ||
      (tag === "INPUT" && !NOT_TYPED.test(el.type));
  }

  var FOCUSABLE = "input:not([type=hidden]), textarea, [tabindex='0'], button:not(.info)";

  /* Put the focus in a question: on its chosen answer, else on the first thing that takes it. */
  function focusIn(el) {
    var target = el.querySelector("input:checked") || all(el, FOCUSABLE).filter(isShown)[0];
    if (target) target.focus();
  }

  /* Choose an option as a click would: a radio is set, a check box toggled; the form hears a change. */
  function choose(input) {
    input.checked = input.type === "checkbox" ? !input.checked : true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function openDialog(id) {
    var d = byId(id);
    if (d && !d.open) d.showModal();
    return d;
  }

  /* --- the panel: set up once each time htmx swaps one in --------------------------------------- */

  /* An image shown at its full size already (its natural size fits where it is shown) has nothing to
   * zoom: its button is disabled, its caption and the Z shortcut's line say no word of zooming. Asked
   * again when the image loads and when the window changes size (a phone turned). */
  function zoomable() {
    var zoom = document.querySelector("[data-zoom]");
    return !!zoom && !zoom.disabled && !!byId("zoom-dialog");
  }

  function fitZoom() {
    var zoom = document.querySelector("[data-zoom]");
    var img = zoom && zoom.querySelector("img");
    // its size: the original's as the page gives it (width, height: the file shown may be a lighter
    // copy, srcset), else once loaded its own
    var loaded = img && img.complete && img.naturalWidth > 0;
    var width = img && (+img.getAttribute("width") || (loaded ? img.naturalWidth : 0));
    var height = img && (+img.getAttribute("height") || (loaded ? img.naturalHeight : 0));
    var full = !!width && width <= img.clientWidth + 1 && height <= img.clientHeight + 1;
    if (zoom) {
      zoom.disabled = full;
      zoom.closest(".item-media").classList.toggle("at-full-size", full);
    }
    all(document, "[data-zoom-key]").forEach(function (el) { el.hidden = !zoom || full; });
  }

  function initZoom(panel) {
    var zoom = panel.querySelector("[data-zoom]");
    var dialog = byId("zoom-dialog");
    fitZoom();
    if (!zoom || !dialog) return;
    zoom.querySelector("img").addEventListener("load", fitZoom);
    zoom.addEventListener("click", function () { if (zoomable()) openDialog("zoom-dialog"); });
    dialog.addEventListener("click", function (e) { if (e.target === dialog || e.target.tagName === "IMG") dialog.close(); });
  }

  window.addEventListener("resize", fitZoom);

  /* Bring a question marked in red into view, its question and answers together, with the focus in it. */
  function showError(fs) {
    var target = fs.querySelector("input:checked") || all(fs, FOCUSABLE).filter(isShown)[0];
    if (target) target.focus({ preventScroll: true, focusVisible: true });
    fs.scrollIntoView({ block: "center" });
    if (target && !isInView(target)) target.scrollIntoView({ block: "nearest" });
  }

  function isInView(el) {
    var r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }

  /* After a refused submit the focus goes to the first answer marked in red (the error banner links
   * to each one); else to where the page asks (page.arrival), else to the heading. */
  function focusFirst(panel) {
    // (by aria-invalid: htmx settles a swapped element's class, of a question with an id, a moment later)
    var error = all(panel, "fieldset[aria-invalid=true]:not(.per_document):not([data-type=per_document])")
      .filter(isShown)[0];
    if (error) showError(error);
    else if (!document.querySelector("dialog[open]")) arrival().focus({ preventScroll: true });
  }

  function arrival() {
    var f = byId(page.form);
    return (f && page.arrival && page.arrival(f)) || byId(page.heading);
  }

  function initErrorLinks(panel) {
    all(panel, "a[data-error-link]").forEach(function (link) {
      link.addEventListener("click", function (e) {
        var legend = byId(decodeURIComponent(link.hash.slice(1)));  // the question's legend
        var fs = legend && legend.closest("fieldset");
        if (!fs || !isShown(fs)) return;  // the browser's own jump
        e.preventDefault();
        showError(fs);
      });
    });
  }

  /* A panel names the scripts its fields need, in order (data-scripts: Protocol.scripts). One swapped
   * in under a protocol version published since the page loaded may need a script the page has not:
   * each missing one is loaded once, then the panel is set up. */
  var loading = 0;

  function loadMissing(panel) {
    var have = all(document, "script[src]").map(function (s) { return s.getAttribute("src"); });
    var missing = (panel.dataset.scripts || "").split(" ").filter(function (src) {
      return src && have.indexOf(src) < 0;
    });
    missing.forEach(function (src) {
      var script = document.createElement("script");
      script.src = src;
      script.async = false;  // run in the order named
      script.onload = script.onerror = function () { loading -= 1; if (!loading) init(); };
      loading += 1;
      document.head.appendChild(script);
    });
    return missing.length > 0;
  }

  function init() {
    var panel = page && byId(page.panel);
    if (!panel || panel.dataset.ready || loading || loadMissing(panel)) return;
    var f = byId(page.form);
    if (f) {
      if (page.init) page.init(f);
      var changed = function () { if (page.change) page.change(f); };
      f.addEventListener("change", changed);
      f.addEventListener("input", changed);
      f.addEventListener("reset", function () { setTimeout(changed, 0); });  // once the form is reset
    }
    initZoom(panel);
    initErrorLinks(panel);
    panel.dataset.ready = "true";  // the page answers keys from here on
    focusFirst(panel);
  }

  /* --- keys ---------------------------------------------------------------------------------------- */

  /* 1–9 choose an option of the question the page names (page.question), then page.chosen moves on. */
  function numberKey(f, e) {
    var fs = page.question(f, e.target);
    var input = fs && fs.querySelectorAll("input[type=radio], input[type=checkbox]")[+e.key - 1];
    if (!input) return;
    e.preventDefault();
    choose(input);
    page.chosen(f, fs, input);
  }

  document.addEventListener("keydown", function (e) {
    var f = page && byId(page.form);
    if (!f || e.defaultPrevented) return;
    if (page.dialogKey && page.dialogKey(e, f)) return;
    if (document.querySelector("dialog[open]")) return;
    if (page.submitKey && e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      f.requestSubmit();
      return;
    }
    if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    var key = (e.key || "").toLowerCase();  // some keydowns (Chrome's autofill) carry no key
    if (key === "z" && zoomable()) {
      e.preventDefault();
      openDialog("zoom-dialog");
    } else if (/^[1-9]$/.test(key)) {
      numberKey(f, e);
    } else if (page.keys && Object.prototype.hasOwnProperty.call(page.keys, key)) {
      e.preventDefault();
      page.keys[key](f);
    }
  });

  /* --- htmx: a new panel, and the network error box ---------------------------------------------- */

  document.addEventListener("htmx:afterSwap", init);
  document.addEventListener("htmx:sendError", function () { byId("net-error").hidden = false; });
  document.addEventListener("htmx:responseError", function () {
    var box = byId("net-error");
    box.textContent = box.dataset.serverError;
    box.hidden = false;
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.successful) byId("net-error").hidden = true;
  });

  /* The page's own script registers, once:
   *   panel, form, heading   the ids of the panel htmx swaps, of its form and of its heading;
   *   init(form)             set up a new form (before the panel takes keys);
   *   change(form)           an answer changed (change, input and reset events);
   *   question(form, target) the question the number keys act on (a fieldset), or nothing;
   *   chosen(form, fs, input) after a number key chose `input` of `fs`: where the focus goes;
   *   arrival(form)          where the focus goes when a form arrives (nothing: the heading);
   *   keys                   letter shortcuts, {letter: function (form)};
   *   submitKey              true: Ctrl+Enter submits the form;
   *   dialogKey(e, form)     keys for the page's own dialog: true when it took the key. */
  function register(spec) {
    page = spec;
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
    else init();
  }

  window.TesseraText = { text: text, counted: counted };

  window.TesseraPage = {
    register: register, all: all, isShown: isShown, focusIn: focusIn, choose: choose, openDialog: openDialog,
  };
})();
