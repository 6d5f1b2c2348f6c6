/* Accessibility fixes for what the theme and its extensions render in JavaScript, where no build-time fix
   reaches (book/_ext/accessibility.py adds this file to every page, after togglebutton.js). Each fix only sets
   ARIA attributes or a button's hint; nothing is moved, loaded or restyled.

   1. Search buttons: their visible text is "Search" and a keyboard hint "Ctrl + K" (the theme shows "⌘ + K" on a
      Mac), but the theme names them "Search" (aria-label). The name must contain all the visible label (WCAG 2.5.3,
      axe's label-content-name-mismatch), so the aria-label goes and the name is what the button shows, hint
      included, whichever keys it shows; the shortcut is also announced as the button's aria-keyshortcuts.
   2. Colour-mode button: named "Color mode", while its visible icon carries a title ("Light", "Dark", "System
      Settings") that is part of its visible label. The name says both, "Color mode: Light", and follows the mode
      when the button changes it; the icons themselves are decorative (aria-hidden), their tooltips stay.
   3. Solution dropdowns (sphinx-togglebutton): every button is named "Toggle hidden content" and hinted
      "Click to show". Each says what it does instead, "Show solution" / "Hide solution" (the kind of box it
      opens: solution, proof, ...), as name and as hint, and follows the box's state.
   4. Sphinx's index tables (module index, proof index) lay out a list in table cells: marked as layout
      tables, they are not announced as data tables whose cells lack headers (axe's td-has-header).
*/
(() => {
  "use strict";

  function nameSearchButtons() {
    for (const hint of document.querySelectorAll(".search-button__button .search-button__kbd-shortcut")) {
      const button = hint.closest("button");
      button.removeAttribute("aria-label");  // the name comes from the content: "Search Ctrl + K"
      button.setAttribute("aria-keyshortcuts", "Control+K Meta+K");
    }
  }

  // The title of the icon the colour-mode button shows: the <i>'s title, or the <title> of the SVG that Font
  // Awesome puts in its place.
  function iconTitle(icon) {
    const title = icon.querySelector("title");
    return ((title && title.textContent) || icon.getAttribute("title") || "").trim();
  }

  function nameColourModeButtons() {
    for (const button of document.querySelectorAll(".theme-switch-button")) {
      const sync = () => {
        for (const icon of button.querySelectorAll(".theme-switch:not([aria-hidden='true'])")) {
          icon.setAttribute("aria-hidden", "true");
        }
        const mode = document.documentElement.dataset.mode;
        const shown = mode && button.querySelector(`.theme-switch[data-mode="${mode}"]`);
        const name = shown && iconTitle(shown) ? `Color mode: ${iconTitle(shown)}` : "Color mode";
        if (button.getAttribute("aria-label") !== name) button.setAttribute("aria-label", name);
      };
      sync();
      if (!button.dataset.a11yNamed) {  // Font Awesome replaces each <i> by an <svg> whenever it gets to it
        button.dataset.a11yNamed = "true";
        new MutationObserver(sync).observe(button, {childList: true, subtree: true});
        new MutationObserver(sync).observe(document.documentElement, {attributes: true, attributeFilter: ["data-mode"]});
      }
    }
  }

  // The kind of box a toggle opens, from the box's classes ("solution dropdown admonition" -> "solution").
  const KINDS = ["solution", "exercise", "proof", "hint", "note", "tip", "warning", "example"];

  function nameToggleButtons() {
    for (const button of document.querySelectorAll("button.toggle-button")) {
      const box = document.getElementById(button.dataset.target);
      if (!box || button.dataset.a11yNamed) continue;
      button.dataset.a11yNamed = "true";
      const kind = KINDS.find((k) => box.classList.contains(k)) || "content";
      const sync = () => {
        const text = (box.classList.contains("toggle-hidden") ? "Show " : "Hide ") + kind;
        if (button.dataset.toggleHint !== text) button.dataset.toggleHint = text;
        if (button.getAttribute("aria-label") !== text) button.setAttribute("aria-label", text);
      };
      sync();
      // togglebutton.js rewrites the hint on every click; put ours back (the guard above ends the loop).
      new MutationObserver(sync).observe(button, {attributes: true, attributeFilter: ["data-toggle-hint"]});
      new MutationObserver(sync).observe(box, {attributes: true, attributeFilter: ["class"]});
    }
  }

  function markLayoutTables() {
    for (const table of document.querySelectorAll("table.indextable")) {
      table.setAttribute("role", "presentation");
    }
  }

  function fixAll() {
    nameSearchButtons();
    nameColourModeButtons();
    nameToggleButtons();
    markLayoutTables();
  }

  // Once the page is parsed (togglebutton.js has added its buttons), and again once everything has loaded
  // (Font Awesome may replace the icons by SVGs in between); each fix can run twice.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fixAll);
  } else {
    fixAll();
  }
  window.addEventListener("load", fixAll);
})();
