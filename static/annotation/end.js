/* The completion page: a visible countdown before going back to Prolific with the code, stopped by
 * "Stay on this page" or by copying the code; a button copies it. Without JavaScript nothing moves:
 * the code and the "Return to Prolific now" button are on the page. */
(function () {
  "use strict";
  /* The page's words (annotation/page_messages.py, the JSON of id "ui-messages"); English without them. */
  function text(key, english, values) {
    var el = document.getElementById("ui-messages"), messages = {};
    try { messages = (el && JSON.parse(el.textContent)) || {}; } catch (e) { /* English */ }
    var message = typeof messages[key] === "string" ? messages[key] : english;
    return message.replace(/\{(\w+)\}/g, function (whole, name) { return values && name in values ? values[name] : whole; });
  }
  function start() {
    var box = document.getElementById("countdown");
    var copy = document.getElementById("copy-code");
    if (!box) return;
    var left = +box.dataset.countdown, shown = box.querySelector("[data-seconds]"), timer = null;
    function stop(why) {
      clearInterval(timer);
      box.textContent = text("end_stopped", "{why} Use “Return to Prolific now” when you are ready.", { why: why });
    }
    box.hidden = false;
    timer = setInterval(function () {
      left -= 1;
      shown.textContent = left;
      if (left <= 0) { clearInterval(timer); window.location.assign(box.dataset.url); }
    }, 1000);
    box.querySelector("[data-stop]").addEventListener("click", function () { stop(text("end_stay", "You stay on this page.")); });
    document.addEventListener("copy", function () { stop(text("end_copied", "Code copied; you stay on this page.")); });
    if (copy && navigator.clipboard) {
      copy.hidden = false;
      copy.addEventListener("click", function () {
        navigator.clipboard.writeText(copy.dataset.code).then(function () {
          copy.textContent = text("copied", "Copied");
          stop(text("end_copied", "Code copied; you stay on this page."));
        });
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
