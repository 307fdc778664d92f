// The API tokens page: the new token's copy button (the token is shown once).
(function () {
  "use strict";
  var button = document.getElementById("copy-token");
  var field = document.getElementById("new-token");
  if (!button || !field) return;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();
