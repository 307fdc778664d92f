/* The upload field: an image chosen or dropped is sent to the item's upload endpoint at once; the
 * server checks it (Pillow, size limits) and answers with a token, kept in the hidden input (and so
 * in the draft). A "tessera:upload" event tells a bbox field drawn over this image. */
(function () {
  "use strict";
  var types = window.TesseraFields = window.TesseraFields || {};

  function csrfToken() {
    var input = document.querySelector("#item-form input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function megabytes(bytes) { return (bytes / 1e6).toFixed(1) + " MB"; }
  var T = window.TesseraText;  // the page's words (page.js)

  function showImage(fs, url, width, height, name) {
    var figure = fs.querySelector(".upload-figure");
    figure.innerHTML = "";
    var img = document.createElement("img");
    img.className = "upload-preview";
    img.alt = T.text("upload_alt", "Your uploaded image");
    img.src = url;
    img.dataset.width = width;
    img.dataset.height = height;
    var caption = document.createElement("figcaption");
    caption.className = "muted";
    caption.textContent = name + " · " + width + "×" + height + " px";
    figure.appendChild(img);
    figure.appendChild(caption);
  }

  /* XMLHttpRequest rather than fetch: fetch cannot report the progress of an upload. */
  function send(fs, file) {
    var progress = fs.querySelector(".upload-progress");
    var status = fs.querySelector(".upload-status");
    var error = fs.querySelector(".upload-error");
    var data = new FormData();
    data.append("file", file, file.name);
    data.append("field", fs.dataset.field || "");
    var xhr = new XMLHttpRequest();
    xhr.open("POST", document.getElementById("item-panel").dataset.uploadUrl);
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.responseType = "json";
    error.hidden = true;
    progress.hidden = false;
    progress.removeAttribute("value");
    status.textContent = T.text("uploading", "Uploading {name} ({size})…", { name: file.name, size: megabytes(file.size) });
    fs.classList.add("is-uploading");
    xhr.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) progress.value = Math.round(100 * e.loaded / e.total);
    });
    xhr.addEventListener("loadend", function () {
      fs.classList.remove("is-uploading");
      progress.hidden = true;
      var body = xhr.response || {};
      if (xhr.status === 200 && body.token) {
        var token = fs.querySelector("[data-upload-token]");
        token.value = body.token;
        showImage(fs, body.url, body.width, body.height, file.name);
        status.textContent = T.text("uploaded", "Uploaded.");
        fs.dispatchEvent(new CustomEvent("tessera:upload", { bubbles: false, detail: body }));
        token.dispatchEvent(new Event("input", { bubbles: true }));
        return;
      }
      status.textContent = "";
      error.textContent = body.error || (xhr.status === 0
        ? T.text("upload_offline", "The upload failed: check your connection and try again.")
        : T.text("upload_failed", "The upload failed (error {status}). Try again, or choose another image.", { status: xhr.status }));
      error.hidden = false;
    });
    xhr.send(data);
  }

  types.upload = {
    init: function (fs) {
      var input = fs.querySelector("input[type=file]");
      var zone = fs.querySelector("[data-dropzone]");
      input.addEventListener("change", function (e) {
        e.stopPropagation();  // the file input itself is not part of the answer
        if (input.files.length) send(fs, input.files[0]);
        input.value = "";
      });
      ["dragenter", "dragover"].forEach(function (name) {
        zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("is-over"); });
      });
      ["dragleave", "drop"].forEach(function (name) {
        zone.addEventListener(name, function () { zone.classList.remove("is-over"); });
      });
      zone.addEventListener("drop", function (e) {
        e.preventDefault();
        if (e.dataTransfer.files.length) send(fs, e.dataTransfer.files[0]);
      });
    },
    value: function (fs) {
      var token = fs.querySelector("[data-upload-token]").value;
      var img = fs.querySelector(".upload-preview");
      if (!token) return undefined;
      return { upload: token, width: img ? +img.dataset.width : undefined, height: img ? +img.dataset.height : undefined };
    }
  };
})();
