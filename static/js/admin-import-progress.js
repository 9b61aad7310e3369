/* Import run page: keep the progress line up to date while the run goes on. */
(function () {
  "use strict";
  var box = document.querySelector("[data-progress-url]");
  if (!box || box.dataset.finished === "true") { return; }
  var parts = {};
  ["status", "bar", "text"].forEach(function (name) {
    parts[name] = box.querySelector('[data-progress="' + name + '"]');
  });
  var every = 1500;
  function show(state) {
    parts.status.textContent = state.status_label;
    parts.status.className = "curation-status curation-status--" + state.status;
    if (state.percent === null) {
      parts.bar.removeAttribute("value");
    } else {
      parts.bar.value = state.percent;
      parts.bar.textContent = state.percent + "%";
    }
    parts.text.textContent = state.text;
  }
  function poll() {
    fetch(box.dataset.progressUrl, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.json();
      })
      .then(function (state) {
        show(state);
        if (state.finished) {
          window.location.reload();  // counters, error and buttons of the finished run
        } else {
          window.setTimeout(poll, every);
        }
      })
      .catch(function () { window.setTimeout(poll, every * 4); });
  }
  window.setTimeout(poll, every);
})();
