// Zoom and pan for the server-drawn research graph in the explorer.
//
// Only the SVG's viewBox changes (the Content-Security-Policy allows no inline
// style), and state shows through classes on the viewport: "is-zoomed" lets a
// finger drag the picture instead of the page, "is-close" brings back the
// smaller labels that a narrow picture hides, once zoomed in so far that they
// read as large as when the picture is drawn data-wide-from pixels wide. The explorer is swapped in place
// by htmx when a visitor centres it on someone else, so every new picture is
// set up again when it arrives.
(function () {
  "use strict";

  var MAX_SCALE = 8;
  var STEP = 1.5;
  var DRAG_START = 5; // pixels a pointer moves before a press becomes a drag
  var ready = new WeakSet();

  function setUp(viewport) {
    var svg = viewport.querySelector("svg.graph-svg");
    if (!svg || ready.has(svg)) return;
    ready.add(svg);
    // The drawn view box is kept aside: htmx's history snapshots keep a zoomed one.
    if (!svg.hasAttribute("data-home")) svg.setAttribute("data-home", svg.getAttribute("viewBox"));
    var drawn = svg.getAttribute("data-home").split(/[\s,]+/).map(Number);
    var home = { x: drawn[0], y: drawn[1], w: drawn[2], h: drawn[3] };
    var view = { x: home.x, y: home.y, w: home.w, h: home.h };
    var figure = viewport.closest("figure");
    var toolbar = figure && figure.querySelector(".graph-zoom");
    var level = toolbar && toolbar.querySelector(".graph-zoom-level");
    var hint = figure && figure.querySelector(".graph-hint");
    var wideFrom = Number(svg.getAttribute("data-wide-from")) || Infinity;

    function scale() {
      return home.w / view.w;
    }

    function apply() {
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].map(function (v) {
        return Math.round(v * 100) / 100;
      }).join(" "));
      var s = scale();
      viewport.classList.toggle("is-zoomed", s > 1.001);
      viewport.classList.toggle("is-close", s * svg.getBoundingClientRect().width >= wideFrom);
      if (level) level.textContent = Math.round(s * 100) + "%";
      if (toolbar) {
        toolbar.querySelector('[data-zoom="in"]').disabled = s >= MAX_SCALE - 0.001;
        toolbar.querySelector('[data-zoom="out"]').disabled = s <= 1.001;
        toolbar.querySelector('[data-zoom="reset"]').disabled = s <= 1.001 && view.x === home.x && view.y === home.y;
      }
    }

    // Keep the middle of the view over the picture, so it cannot be lost off-screen.
    function clamp() {
      var cx = Math.min(Math.max(view.x + view.w / 2, home.x), home.x + home.w);
      var cy = Math.min(Math.max(view.y + view.h / 2, home.y), home.y + home.h);
      view.x = cx - view.w / 2;
      view.y = cy - view.h / 2;
    }

    function zoomAt(factor, cx, cy) {
      var w = Math.min(Math.max(view.w / factor, home.w / MAX_SCALE), home.w);
      var ratio = w / view.w;
      view.x = cx - (cx - view.x) * ratio;
      view.y = cy - (cy - view.y) * ratio;
      view.w = w;
      view.h = home.h * (w / home.w);
      if (w >= home.w) {
        view.x = home.x;
        view.y = home.y;
      }
      clamp();
      apply();
    }

    function zoomMiddle(factor) {
      zoomAt(factor, view.x + view.w / 2, view.y + view.h / 2);
    }

    function panBy(dx, dy) {
      view.x += dx;
      view.y += dy;
      clamp();
      apply();
    }

    function reset() {
      view = { x: home.x, y: home.y, w: home.w, h: home.h };
      apply();
    }

    // Screen pixels to picture units, through the SVG's own transform.
    function toPicture(clientX, clientY) {
      var matrix = svg.getScreenCTM();
      if (!matrix) return { x: view.x + view.w / 2, y: view.y + view.h / 2 };
      var point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
      return { x: point.x, y: point.y };
    }

    function unitsPerPixel() {
      var box = svg.getBoundingClientRect();
      return box.width ? view.w / box.width : 1;
    }

    if (toolbar) {
      toolbar.hidden = false;
      toolbar.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-zoom]");
        if (!button) return;
        var action = button.getAttribute("data-zoom");
        if (action === "in") zoomMiddle(STEP);
        else if (action === "out") zoomMiddle(1 / STEP);
        else reset();
      });
    }
    if (hint) hint.hidden = false;
    viewport.tabIndex = 0;
    viewport.setAttribute("role", "group");
    viewport.setAttribute("aria-label", "Graph picture: arrow keys move it, plus and minus zoom, 0 resets");

    // The wheel zooms; at full size a downward scroll is left to the page.
    svg.addEventListener("wheel", function (event) {
      var factor = Math.pow(1.0015, -event.deltaY * (event.deltaMode === 1 ? 16 : 1));
      if (factor < 1 && scale() <= 1.001) return;
      event.preventDefault();
      var at = toPicture(event.clientX, event.clientY);
      zoomAt(factor, at.x, at.y);
    }, { passive: false });

    // One pointer drags the picture, two pinch it.
    var pointers = new Map();
    var dragged = false;
    var pinch = null;

    svg.addEventListener("pointerdown", function (event) {
      if (event.pointerType === "mouse" && event.button !== 0) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY });
      dragged = false;
      if (pointers.size === 2) {
        var both = Array.from(pointers.values());
        pinch = { distance: Math.hypot(both[0].x - both[1].x, both[0].y - both[1].y) };
      }
    });

    svg.addEventListener("pointermove", function (event) {
      var last = pointers.get(event.pointerId);
      if (!last) return;
      if (pointers.size === 2 && pinch) {
        last.x = event.clientX;
        last.y = event.clientY;
        var both = Array.from(pointers.values());
        var distance = Math.hypot(both[0].x - both[1].x, both[0].y - both[1].y);
        if (pinch.distance > 0 && distance > 0) {
          var middle = toPicture((both[0].x + both[1].x) / 2, (both[0].y + both[1].y) / 2);
          zoomAt(distance / pinch.distance, middle.x, middle.y);
        }
        pinch.distance = distance;
        dragged = true;
        return;
      }
      var moved = Math.hypot(event.clientX - last.startX, event.clientY - last.startY);
      if (!dragged && moved < DRAG_START) return;
      if (!dragged) {
        dragged = true;
        svg.setPointerCapture(event.pointerId);
        viewport.classList.add("is-dragging");
      }
      var k = unitsPerPixel();
      panBy(-(event.clientX - last.x) * k, -(event.clientY - last.y) * k);
      last.x = event.clientX;
      last.y = event.clientY;
    });

    function release(event) {
      pointers.delete(event.pointerId);
      if (pointers.size < 2) pinch = null;
      if (!pointers.size) viewport.classList.remove("is-dragging");
    }
    svg.addEventListener("pointerup", release);
    svg.addEventListener("pointercancel", release);

    // A drag ends with a click on whatever lay under it: that click is not a choice.
    // Clicks with a modifier open the link the browser's way, not through htmx.
    svg.addEventListener("click", function (event) {
      if (dragged) {
        event.preventDefault();
        event.stopPropagation();
        dragged = false;
        return;
      }
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
        event.stopPropagation();
      }
    }, true);

    viewport.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var step = view.w / 8;
      var moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      if (moves[event.key] && scale() > 1.001) {
        panBy(moves[event.key][0], moves[event.key][1]);
      } else if (event.key === "+" || event.key === "=") {
        zoomMiddle(STEP);
      } else if (event.key === "-" || event.key === "_") {
        zoomMiddle(1 / STEP);
      } else if (event.key === "0") {
        reset();
      } else {
        return;
      }
      event.preventDefault();
    });

    // A node reached with Tab is brought into view when it lies outside it.
    svg.addEventListener("focusin", function (event) {
      var node = event.target.closest("a.node");
      if (!node || scale() <= 1.001) return;
      var box = node.getBBox();
      var cx = box.x + box.width / 2;
      var cy = box.y + box.height / 2;
      if (cx < view.x || cx > view.x + view.w || cy < view.y || cy > view.y + view.h) {
        view.x = cx - view.w / 2;
        view.y = cy - view.h / 2;
        clamp();
        apply();
      }
    });

    // The picture's width changes with the window: so does the zoom that shows the wide set.
    if (window.ResizeObserver) new ResizeObserver(function () { apply(); }).observe(svg);
    apply();
  }

  function setUpWithin(root) {
    if (!root || !root.querySelectorAll) return;
    if (root.matches && root.matches(".graph-viewport")) setUp(root);
    root.querySelectorAll(".graph-viewport").forEach(setUp);
  }

  // After the explorer is centred on someone else, focus follows to the new
  // centre, so a keyboard or screen reader user hears where they are.
  function focusCentre(event) {
    var target = event.target;
    if (!target || target.id !== "graph-explorer" || !target.isConnected) return;
    var centre = target.querySelector("svg.graph-svg a.node-centre") || target.querySelector("h1");
    if (!centre) return;
    if (centre.tagName.toLowerCase() === "h1") centre.tabIndex = -1;
    centre.focus({ preventScroll: true });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpWithin(document);
  });
  document.addEventListener("htmx:load", function (event) {
    setUpWithin(event.detail && event.detail.elt);
  });
  document.addEventListener("htmx:historyRestore", function () {
    setUpWithin(document);
  });
  document.addEventListener("htmx:afterSettle", focusCentre);
})();
