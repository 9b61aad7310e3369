// A page that needs htmx only for parts further down or for a click (the researcher page)
// starts without it: htmx (the scripts named in data-scripts, run in that order) loads when
// first needed, so nothing runs while the page opens. It is needed when
// - a part htmx fills in as soon as it is set up (hx-trigger "load": the research graph)
//   comes near the screen;
// - the visitor reaches for an htmx form (pointer, touch, key or focus inside it). A form
//   sent before htmx is ready waits for it and is then sent again, through htmx.
// Without JavaScript, or if htmx fails to load, the forms post as plain forms.
(function () {
  "use strict";

  var me = document.currentScript;
  var HTMX = "[data-hx-get], [data-hx-post], [hx-get], [hx-post]";
  var loading = null;

  function load() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var sources = me.dataset.scripts.split(/\s+/).filter(Boolean);
        sources.forEach(function (src, index) {
          var script = document.createElement("script");
          script.src = src;
          script.async = false; // run in the order given: htmx first
          if (index === sources.length - 1) {
            script.onload = resolve;
          }
          script.onerror = reject;
          document.head.appendChild(script);
        });
      });
    }
    return loading;
  }

  function watchParts() {
    var parts = document.querySelectorAll('[data-hx-trigger="load"], [hx-trigger="load"]');
    if (!parts.length) {
      return;
    }
    if (!("IntersectionObserver" in window)) {
      load();
      return;
    }
    var observer = new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; })) {
        observer.disconnect();
        load();
      }
    }, { rootMargin: "400px 0px" });
    parts.forEach(function (part) { observer.observe(part); });
  }

  function reachedFor(event) {
    if (!window.htmx && event.target.closest && event.target.closest(HTMX)) {
      load();
    }
  }

  ["pointerdown", "touchstart", "keydown", "focusin"].forEach(function (type) {
    document.addEventListener(type, reachedFor, { capture: true, passive: true });
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (window.htmx || !form.matches(HTMX)) {
      return;
    }
    event.preventDefault();
    var submitter = event.submitter;
    load().then(
      function () { form.requestSubmit(submitter); },
      function () { HTMLFormElement.prototype.submit.call(form); }
    );
  }, true);

  watchParts();
})();
