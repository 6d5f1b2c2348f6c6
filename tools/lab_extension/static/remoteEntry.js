// mlfs-lab: the book's notebooks in JupyterLab as in the book.
//
// 1. Figures. The book numbers and captions a figure from its code cell's metadata (mystnb.figure: name,
//    caption); JupyterLab shows neither. Below each such cell's output this adds "Fig. 8.2 <caption>", as the book does, its
//    element carrying the figure's name as id, so "[Figure 8.2](#fig-...)" links have a target. The caption is MyST,
//    rendered by the notebook's own Markdown renderer (jupyterlab-myst) after its {eq} roles are replaced by the
//    equation numbers, which the chapter's labelled equations give in order.
// 2. Links that land on their target. A link to an anchor in the same notebook scrolls there; a link to another
//    chapter's equation or section (07_transformers.ipynb#eq-sinusoidal) opens the chapter and, once its cells
//    are rendered, scrolls to the anchor (JupyterLab looks for it once, before jupyterlab-myst has rendered it).
//
// Plain JavaScript written as a module-federation container, the form in which JupyterLab loads a prebuilt
// extension: no build step and no package from the npm registry. `make install` copies this folder into the
// venv's share/jupyter/labextensions/; tests/lab/test_lab.py checks both behaviours in a running JupyterLab.
var _JUPYTERLAB;
(function () {
  "use strict";

  const FIGURE_CLASS = "mlfs-figure-caption";
  const LABELLED_EQUATION = /\$\$[\s\S]*?\$\$[ \t]*\((eq-[\w-]+)\)/g;

  function metadata(model, key) {
    return model.getMetadata ? model.getMetadata(key) : model.metadata && model.metadata.get(key);
  }

  function chapterOf(path) {
    const match = /(?:^|\/)(\d+|[A-Z])_[^/]*\.ipynb$/.exec(path);
    return match ? String(/^\d+$/.test(match[1]) ? parseInt(match[1], 10) : match[1]) : null;
  }

  function source(cell) {
    return cell.model.sharedModel ? cell.model.sharedModel.getSource() : cell.model.value.text;
  }

  // {label: "(8.2)"}: the chapter's labelled display equations, numbered in order as the book numbers them.
  function equationNumbers(panel, chapter) {
    const numbers = {};
    let k = 0;
    for (const cell of panel.content.widgets) {
      if (cell.model.type !== "markdown") continue;
      for (const match of source(cell).matchAll(LABELLED_EQUATION)) numbers[match[1]] = `(${chapter}.${++k})`;
    }
    return numbers;
  }

  function renderCaption(panel, element, text) {
    const rendermime = panel.content.rendermime;
    const model = {
      data: { "text/markdown": text }, metadata: {}, trusted: true, setData() {},
    };
    try {
      const renderer = rendermime.createRenderer("text/markdown");
      // The plain text put there at once stays if rendering fails.
      renderer.renderModel(model).then(() => element.replaceChildren(renderer.node)).catch(() => {});
    } catch (error) { /* keep the plain text */ }
  }

  function captionFigures(panel) {
    const chapter = chapterOf(panel.context.path);
    if (chapter === null) return;
    const equations = equationNumbers(panel, chapter);
    let k = 0;
    for (const cell of panel.content.widgets) {
      if (cell.model.type !== "code") continue;
      const figure = (metadata(cell.model, "mystnb") || {}).figure;
      if (!figure || !figure.name) continue;
      const number = `${chapter}.${++k}`;
      const text = (figure.caption || "").replace(/\{eq\}`(eq-[\w-]+)`/g, (all, label) => equations[label] || all);
      const key = `${number}\u0000${text}`;
      let element = cell.node.querySelector(`:scope > .${FIGURE_CLASS}`);
      if (element && element.dataset.key === key) continue;
      if (element) element.remove();
      element = document.createElement("figcaption");
      element.className = FIGURE_CLASS;
      element.id = figure.name;
      element.dataset.key = key;
      element.style.cssText = "padding: 0.25em 1em 0.75em calc(var(--jp-cell-prompt-width, 64px) + 1em);";
      // The number at once, in plain text: the rendered caption, which replaces it, comes when the Markdown
      // renderer is free, which on a loaded machine can be seconds later.
      element.textContent = `Fig. ${number} ${text}`;
      cell.node.appendChild(element);
      renderCaption(panel, element, `**Fig. ${number}** ${text}`);  // as the book labels it
    }
  }

  function allRendered(panel) {
    if (!isNotebookPanel(panel)) return true;  // a Markdown page is rendered once its target is there
    const cells = panel.node.querySelectorAll(".jp-MarkdownCell");
    return cells.length > 0 && panel.node.querySelectorAll(".jp-MarkdownCell .myst").length === cells.length;
  }

  // The element of an anchor: by its id, or by the id jupyterlab-myst makes of a label with dots
  // (implementations.linear.regression.fit becomes implementations-linear-regression-fit).
  function target(panel, id) {
    const made = id.toLowerCase().replace(/[^a-z0-9-]+/g, "-");
    for (const key of [id, made]) {
      const element = panel.node.querySelector(`[id="${CSS.escape(key)}"], [data-jupyter-id="${CSS.escape(key)}"]`);
      if (element) return element;
    }
    return null;
  }

  // Scroll to the anchor once the notebook is rendered, and again while the layout above it settles.
  function landOn(panel, id, patience = 240) {
    const element = target(panel, id);
    if (!element || !allRendered(panel)) {
      if (patience > 0) setTimeout(() => landOn(panel, id, patience - 1), 250);
      return;
    }
    // A figure's caption is below its figure: show the cell, figure and caption together.
    const shown = element.classList.contains(FIGURE_CLASS) ? element.parentElement : element;
    shown.scrollIntoView({ block: "start" });
    let settle = 4;
    const again = () => {
      shown.scrollIntoView({ block: "start" });
      if (--settle > 0) setTimeout(again, 300);
    };
    setTimeout(again, 300);
  }

  function followLinksInPlace(panel) {
    panel.node.addEventListener("click", (event) => {
      const link = event.target.closest && event.target.closest("a[href^='#']");
      if (!link || !panel.node.contains(link)) return;
      const id = decodeURIComponent(link.getAttribute("href").slice(1));
      if (!id || !target(panel, id)) return;
      event.preventDefault();
      event.stopPropagation();
      landOn(panel, id);
    }, true);
  }

  function isNotebookPanel(widget) {
    return isDocument(widget) && widget.context.path.endsWith(".ipynb") && !!widget.content.widgets;
  }

  function isDocument(widget) {
    return !!(widget && widget.context && typeof widget.context.path === "string" && widget.setFragment);
  }

  const decorated = new WeakSet();
  function decorate(panel) {
    if (decorated.has(panel)) return;
    decorated.add(panel);
    if (!isNotebookPanel(panel)) return;
    followLinksInPlace(panel);
    panel.context.ready.then(() => {
      let pending = null;
      const refresh = () => {
        if (pending) return;
        pending = setTimeout(() => { pending = null; captionFigures(panel); }, 200);
      };
      new MutationObserver(refresh).observe(panel.content.node, { childList: true, subtree: true });
      refresh();
    });
  }

  function activate(app) {
    const visit = () => {
      for (const widget of app.shell.widgets("main")) if (isDocument(widget)) decorate(widget);
    };
    app.restored.then(visit);
    // A link to another document: JupyterLab runs this command with the path and the anchor; once the document is
    // open, land on the anchor (JupyterLab's own attempt comes before jupyterlab-myst has rendered the target).
    app.commands.commandExecuted.connect((_, { id, args, result }) => {
      if (id !== "rendermime:handle-local-link" || !args || !args.id) return;
      Promise.resolve(result).then(() => {
        visit();
        const opened = Array.from(app.shell.widgets("main")).find((w) => isDocument(w) && w.context.path === args.path);
        if (opened) landOn(opened, decodeURIComponent(String(args.id).replace(/^#/, "")));
      });
    });
    if (app.shell.layoutModified) app.shell.layoutModified.connect(visit);
    if (app.shell.currentChanged) app.shell.currentChanged.connect(visit);
  }

  const plugin = { id: "mlfs-lab:plugin", autoStart: true, activate };

  _JUPYTERLAB = window._JUPYTERLAB = window._JUPYTERLAB || {};
  _JUPYTERLAB["mlfs-lab"] = {
    init() {},
    get(module) {
      if (module !== "./extension") return Promise.reject(new Error(`mlfs-lab has no module ${module}`));
      return Promise.resolve(() => ({ __esModule: true, default: [plugin] }));
    },
  };
})();
