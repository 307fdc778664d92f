/* The next item's image, fetched ahead: the item panel names the image of the item the next lease
 * will most likely give (data-prefetch-src/-srcset/-sizes, annotation/views/items.py), and once the
 * current image has loaded (never competing with it) this asks the browser for it as the real image
 * would (the same srcset and sizes, so the same copy), detached. The submit's panel then shows an
 * image already in the browser's cache. Nothing is leased by it: it only reads a signed address. */
(function () {
  "use strict";

  function fetchAhead(hint) {
    var img = new Image();
    img.decoding = "async";
    if (hint.dataset.prefetchSizes) img.sizes = hint.dataset.prefetchSizes;
    if (hint.dataset.prefetchSrcset) img.srcset = hint.dataset.prefetchSrcset;
    img.src = hint.dataset.prefetchSrc;
  }

  function init() {
    var hint = document.querySelector("[data-prefetch-src]:not([data-prefetched])");
    if (!hint) return;
    hint.setAttribute("data-prefetched", "");
    var current = document.querySelector(".item-media img");
    if (!current || current.complete) return fetchAhead(hint);
    var go = function () { fetchAhead(hint); };
    current.addEventListener("load", go, { once: true });
    current.addEventListener("error", go, { once: true });
  }

  document.addEventListener("htmx:afterSwap", init);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
