/* The completion page: a visible countdown before going back to Prolific with the code, stopped by
 * "Stay on this page" or by copying the code; a button copies it. Without JavaScript nothing moves:
 * the code and the "Return to Prolific now" (a URL panel's "Continue to …") button are on the page. */
(function () {
  "use strict";
  /* The page's words (annotation/page_messages.py, the JSON of id "ui-messages"); English without them. */
  var MESSAGES = (function () {
    var el = document.getElementById("ui-messages");
    try { return (el && JSON.parse(el.textContent)) || {}; } catch (e) { return {}; }
  })();
  function text(key, english, values) {
    var message = typeof MESSAGES[key] === "string" ? MESSAGES[key] : english;
    return message.replace(/\{(\w+)\}/g, function (whole, name) { return values && name in values ? values[name] : whole; });
  }
  /* The form of a counted message for n (its plural category in the page's language), "{n}" unfilled. */
  function countedForm(key, n, one, other) {
    var forms = MESSAGES[key], category = "other";
    try { category = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (e) { /* old browser */ }
    return (forms && typeof forms === "object" && (forms[category] || forms.other)) || (n === 1 ? one : other);
  }
  /* "Taking you back to Prolific in <strong data-seconds>n</strong> seconds.", the sentence in n's form. */
  function showSeconds(sentence, n, panel) {
    var form = panel
      ? countedForm("countdown_panel", n, "Taking you on to {panel} in {n} second.",
        "Taking you on to {panel} in {n} seconds.").replace("{panel}", panel)
      : countedForm("countdown", n, "Taking you back to Prolific in {n} second.", "Taking you back to Prolific in {n} seconds.");
    var parts = form.split("{n}");
    var seconds = document.createElement("strong");
    seconds.dataset.seconds = "";
    seconds.textContent = n;
    sentence.replaceChildren(document.createTextNode(parts[0]), seconds, document.createTextNode(parts.slice(1).join(n)));
  }
  function start() {
    var box = document.getElementById("countdown");
    var copy = document.getElementById("copy-code");
    if (!box) return;
    var left = +box.dataset.countdown, sentence = box.querySelector("[data-countdown-text]"), timer = null;
    var panel = box.dataset.panel || "";
    function stop(why) {
      clearInterval(timer);
      box.textContent = panel
        ? text("end_stopped_panel", "{why} Use “Continue to {panel}” when you are ready.", { why: why, panel: panel })
        : text("end_stopped", "{why} Use “Return to Prolific now” when you are ready.", { why: why });
    }
    box.hidden = false;
    timer = setInterval(function () {
      left -= 1;
      showSeconds(sentence, left, panel);
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
