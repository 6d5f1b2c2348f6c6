"""The PDF edition (``make pdf``): turn the pages of the HTML book into a printed book.

Sphinx's LaTeX builder joins every page of ``_toc.yml`` into one document and makes each page a chapter, so the
introduction's sections, the set-up page and the notation page would print as chapters 1 to 7 and chapter 1 as
"Chapter 8". Only for the LaTeX builder (the HTML book is untouched), this extension gives that document the
shape of a book, from ``_toc.yml`` alone:

* **Front matter.** The introduction becomes an unnumbered preface; the pages of the unnumbered parts before the
  first numbered part ("Getting started") follow as unnumbered chapters. Chapter numbers, and with them the
  numbers of sections, equations and figures, then start at 1 as in the HTML book.
* **Parts.** Each numbered part of ``_toc.yml`` starts with a part page carrying its caption. The part that holds
  the pages of ``appendix_letters`` (``book/_ext/appendix_numbering.py``) starts the appendices, lettered A, B, ...;
  their figures and equations are numbered (A.1), as in the HTML book.
* **Solutions.** Every exercise's solution is moved out of its chapter into an appendix of solutions after the
  last lettered appendix, one section per chapter, each under a heading that links back to its exercise, and the
  exercise gets a line with a link to the solution's page. The HTML book folds each solution under its exercise
  instead.
* **Back matter.** The unnumbered parts after the appendices ("Reference") print as unnumbered chapters. The
  bibliography page is left out: Sphinx gathers its entries into LaTeX's bibliography, the book's last chapter.
* **Code.** The code of cells tagged ``hide-input`` (the plotting code that the HTML book folds away under its
  figure) is left out; the figure, its caption and every other cell print as in the HTML book. An exercise's check
  cell prints without its output, which before the reader's attempt only says that the stub is not implemented.
* **Figures** stay where the text puts them (``H``) instead of floating to pages of their own.
* **Labels of sphinx-proof directives.** sphinx-proof 0.4 finds the page of an algorithm, definition or remark by
  its page title, which fails in the joined document: it writes ``\\label{None:...}`` and an empty number, so
  every ``{prf:ref}`` prints "??". The visitors below find the page from the document structure instead.
* **Page width.** A table whose text is longer than a line gets columns of fixed widths in which the text wraps,
  inline code may break after an underscore, and a figure prints at the resolution of its PNG (the book's builds
  store twice the screen pixels: 200 pixels per inch or more on paper), shrunk to the line if wider.
* **Fonts.** FreeSerif and FreeSans (wide Unicode coverage: Greek, arrows, mathematical operators) with DejaVu
  Sans Mono for code and outputs; the few characters those fonts lack (subscript letters, bold mathematical
  letters, an emoji in chapter 7's tokenizer) are drawn from the fonts that have them (``FALLBACK_GLYPHS``).

The Debian packages the build needs are listed in ``tools/tex-packages.txt``. Registered in ``_config.yml`` under
``sphinx.local_extensions``.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

SOLUTIONS_TITLE = "Solutions to the exercises"

# Characters of the book's text, code and outputs that the main fonts lack, and the font that draws each group.
# tests/pdf/test_pdf.py fails on any "Missing character" of the LaTeX log, so a new character shows up there.
FALLBACK_GLYPHS = {
    "DejaVu Serif": "ₖₗₘₙ⌊⌋",  # subscript k, l, m and n, and the floor brackets that FreeSerif's italic lacks
    "FreeSerif": "ᵀᵃᵏᵗᵢᶻⱼℓ𝐈𝐊𝐚𝐤𝐮𝐲𝒩𝛀",  # in code: modifier letters, script l, bold and script mathematical letters
    "Symbola": "🙂",  # chapter 7 tokenizes an emoji
}

PREAMBLE = r"""
% --- book/_ext/pdf_edition.py -------------------------------------------------------------------------
\usepackage{newunicodechar}
@FALLBACK_FONTS@
\setcounter{tocdepth}{1}          % contents: parts, chapters and sections
% Sphinx names the contents after the first part of _toc.yml ("Getting started").
\addto\captionsenglish{\renewcommand{\contentsname}{Contents}}
% Inline code may break after an underscore (long function and test names), as it may after . , ; / by default.
\makeatletter
\protected\def\mlfs@breakableunderscore{\discretionary{\char`\_}{}{\char`\_}}
\let\mlfs@sphinxupquote\sphinxupquote
\protected\def\sphinxupquote#1{{\let\_\mlfs@breakableunderscore\mlfs@sphinxupquote{#1}}}
% The same in the index, whose narrow columns list the package's long module names (…exercise_checks.ch1).
\protected\def\sphinxstyleindexentry#1{{\let\_\mlfs@breakableunderscore\texttt{#1}}}
\makeatother
% Numbers of figures, tables, listings and equations follow the chapter's own number, so an appendix's read (A.1);
% Sphinx's sphinxlatexnumfig.sty writes \arabic{chapter}, which would print (1.1) there.
\makeatletter
\AtBeginDocument{%
  \def\thefigure{\ifnum\c@chapter>\z@\thechapter.\fi\arabic{figure}}%
  \def\thetable{\ifnum\c@chapter>\z@\thechapter.\fi\arabic{table}}%
  \def\theliteralblock{\ifnum\c@chapter>\z@\thechapter.\fi\arabic{literalblock}}%
  \def\theequation{\ifnum\c@chapter>\z@\thechapter.\fi\arabic{equation}}%
}
\makeatother
% Chapter titles as written ("GANs"), not upper-cased by fncychap; blank left-hand pages without running heads.
\ChTitleAsIs
\usepackage{emptypage}
% The appendix of solutions links each exercise to its solution's page.
\newcommand{\mlfssolutionlink}[1]{\par\noindent{\small\itshape
  \hyperref[#1]{Solution on page~\pageref*{#1}.}}\par}
"""


def _fallback_preamble() -> str:
    lines = []
    for index, (font, characters) in enumerate(FALLBACK_GLYPHS.items()):
        command = "\\mlfsfallback" + "abcdefgh"[index]
        lines.append(f"\\newfontfamily{command}{{{font}}}")
        # \symbol, not the character itself, which newunicodechar has made a command that would call itself.
        lines += [f"\\newunicodechar{{{character}}}{{{{{command}\\upshape\\symbol{{\"{ord(character):X}}}}}}}"
                  for character in characters]
    return "\n".join(lines)


def configure_latex(app: Sphinx, config) -> None:
    """Fonts and the preamble; Sphinx's other LaTeX settings are kept."""
    elements = dict(config.latex_elements or {})
    elements["fontpkg"] = r"""
\setmainfont{FreeSerif}[Extension=.otf, UprightFont=*, ItalicFont=*Italic, BoldFont=*Bold,
  BoldItalicFont=*BoldItalic]
\setsansfont{FreeSans}[Extension=.otf, UprightFont=*, ItalicFont=*Oblique, BoldFont=*Bold,
  BoldItalicFont=*BoldOblique]
\setmonofont{DejaVu Sans Mono}[Scale=0.88]
"""
    elements["preamble"] = elements.get("preamble", "") + PREAMBLE.replace("@FALLBACK_FONTS@", _fallback_preamble())
    # A figure stays where the text puts it, before the paragraphs that discuss it, instead of floating to a page
    # of its own or past the next heading.
    elements["figure_align"] = "H"
    config.latex_elements = elements
    config.latex_use_xindy = False  # makeindex, from texlive-binaries; xindy would be one more package
    # The module index of the API reference; sphinx-proof's index would list internal labels (alg-lms, ...).
    config.latex_domain_indices = ["py-modindex"]


# --- the structure of the book ---------------------------------------------------------------------------------


def _raw(latex: str) -> nodes.raw:
    return nodes.raw("", latex + "\n", format="latex")


def _label(name: str) -> nodes.raw:
    """A LaTeX label (and hyperlink anchor) called ``name`` where the node is inserted."""
    return _raw(rf"\phantomsection\label{{\detokenize{{{name}}}}}")


def _docnames(part: nodes.Element) -> list[str]:
    return [node["docname"] for node in part.findall(addnodes.start_of_file)]


def _mark_pages(root: nodes.Element) -> None:
    """Store in every element of the joined document the page it comes from, as ``pdf_page``.

    Sphinx joins the pages by handing each page's children to a ``start_of_file`` node without re-parenting them,
    so walking up from a node does not reach its page; walking down from each ``start_of_file`` does.
    """
    for start in root.findall(addnodes.start_of_file):
        for node in start.findall(nodes.Element):
            node["pdf_page"] = start["docname"]


def shape_book(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give the joined LaTeX document its front matter, parts, appendices, solutions and back matter."""
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    root = doctree.next_node(nodes.section)
    if root is None:
        return
    toctrees = list(app.env.get_doctree(app.config.root_doc).findall(addnodes.toctree))
    parts = [child for child in root.children if isinstance(child, nodes.compound)
             and "toctree-wrapper" in child["classes"]]
    if len(parts) != len(toctrees):
        logger.warning(f"pdf_edition: {len(toctrees)} parts in _toc.yml but {len(parts)} in the LaTeX document; "
                       "the PDF keeps Sphinx's default structure", type="pdf_edition")
        return
    appendix_pages = set(app.config.appendix_letters)
    kinds = []
    for part, toctree in zip(parts, toctrees, strict=True):
        if appendix_pages & set(_docnames(part)):
            kinds.append("appendix")
        elif toctree.get("numbered"):
            kinds.append("main")
        else:
            kinds.append("back" if "main" in kinds or "appendix" in kinds else "front")

    _mark_pages(root)
    _label_link_targets(doctree)
    _drop_folded_code(root)
    _fit_tables(root)
    _images_at_their_resolution(root)
    front = _make_preface(root, parts[0]) or parts[0]
    # Unnumbered chapters (front matter) until the first numbered part.
    root.insert(root.index(front), _raw(r"\setcounter{secnumdepth}{-1}"))
    appendices_started = False
    last_appendix = None
    for part, toctree, kind in zip(parts, toctrees, kinds, strict=True):
        caption = toctree.get("caption") or ""
        if kind == "main":
            part.insert(0, _raw(r"\setcounter{secnumdepth}{2}" "\n" rf"\part{{{caption}}}"))
        elif kind == "appendix":
            start = r"\setcounter{secnumdepth}{2}" "\n"
            if not appendices_started:
                start += r"\appendix" "\n"
                appendices_started = True
            part.insert(0, _raw(start + rf"\part{{{caption}}}"))
            last_appendix = part
        elif kind == "back":
            # Unnumbered chapters; with secnumdepth below -1 the part is unnumbered too.
            part.insert(0, _raw(r"\setcounter{secnumdepth}{-2}" "\n" rf"\part{{{caption}}}"))
            _drop_bibliography_page(app, part)
    solutions = _collect_solutions(app, root)
    _drop_stub_outputs(root)  # after the solutions have left: theirs print "pass"
    if solutions and last_appendix is not None:
        last_appendix.append(solutions)


def _make_preface(root: nodes.section, first_part: nodes.compound) -> nodes.section | None:
    """The introduction's text and sections, which Sphinx prints as chapters, become one chapter, "Preface"."""
    start = 1 if root.children and isinstance(root[0], nodes.title) else 0
    body = root.children[start:root.index(first_part)]
    if not body:
        return None
    preface = nodes.section(ids=["pdf-preface"], names=["preface"])
    preface += nodes.title("Preface", "Preface")
    for node in body:
        root.remove(node)
        preface += node
    root.insert(start, preface)
    return preface


def _label_link_targets(doctree: nodes.document) -> None:
    """LaTeX labels for the targets of Markdown links that Sphinx's LaTeX writer does not label.

    A link ``[(1.5)](#equation-eq-gradient)``, ``[Exercise 3.2](03_kernel_methods.ipynb#ex-ridge-dual)`` or an
    author-year citation becomes ``\\hyperref[page:id]``, but the writer labels an equation
    ``equation:page:label``, an exercise ``exercise:label`` and a bibliography entry not at all: add ``page:id``.
    """
    try:
        from sphinx_exercise.nodes import exercise_enumerable_node
    except ImportError:
        exercise_enumerable_node = ()
    targets = []
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.math_block) and node.get("label"):
            targets.append((node, f"equation-{node['label']}"))
        elif exercise_enumerable_node and isinstance(node, exercise_enumerable_node) and node.get("label"):
            targets.append((node, node["label"]))
    for node, anchor in targets:
        node.parent.insert(node.parent.index(node), _label(f"{node['pdf_page']}:{anchor}"))
    # Sphinx has moved the entries into one bibliography at the end of the document, outside the root section.
    for citation in list(doctree.findall(nodes.citation)):
        if citation["ids"] and citation.children and isinstance(citation[0], nodes.label):
            citation.insert(1, _label(f"{citation['docname']}:{citation['ids'][0]}"))


def _drop_folded_code(root: nodes.Element) -> None:
    """Leave out the code of cells tagged hide-input (or hide-cell): the HTML book folds it away."""
    for cell in list(root.findall(nodes.container)):
        if "cell" not in cell["classes"] or cell.get("hide_mode") not in {"input", "input+output", "all"}:
            continue
        for child in list(cell.children):
            if child.get("nb_element") == "cell_code_source":
                cell.remove(child)


def _printed_length(node: nodes.Node) -> tuple[int, int]:
    """(length, longest unbreakable run) of a table entry as printed, in characters, roughly.

    A formula's TeX source is much longer than what it prints (``\\mathbf{x}^{(i)}`` is four characters on the
    page) and does not break: each command counts as one character, braces and scripts as none, and the result
    is widened by a quarter for the width of italic letters and the spaces after commas.
    """
    length, longest = 0, 0
    for text in node.findall(nodes.Text):
        if isinstance(text.parent, nodes.math):
            source = re.sub(r"\\(?:mathbf|boldsymbol|mathrm|mathcal|mathbb|operatorname|text|left|right|big|Big)\b",
                            "", str(text))
            symbols = re.sub(r"[{}^_ ]", "", re.sub(r"\\[A-Za-z]+|\\.", "x", source))
            printed = round(1.25 * (len(symbols) + symbols.count(",")))  # italic letters are wide; ", " in math
            length, longest = length + printed, max(longest, printed)
        elif isinstance(text.parent, nodes.literal):
            # Code is set in a monospaced font about a fifth wider than the text's, and breaks after underscores.
            pieces = re.findall(r"[^\s_]*_?", str(text))
            length += round(1.2 * len(str(text)))
            longest = max([longest, *(round(1.2 * len(piece)) for piece in pieces)])
        else:
            length += len(str(text))
            longest = max([longest, *map(len, str(text).split())])
    return length, longest


def _fit_tables(root: nodes.Element, line: int = 100, padding: float = 2.5) -> None:
    """Let tables wrap their text within the line and break across pages.

    Without widths Sphinx sets a long table's columns as ``l``, which never wraps: the notation tables ran off the
    page. A table whose columns do not fit on a line (``line`` characters, each column ``padding`` more for the
    space between columns) gets column widths: each column at least its longest word, formula or piece of code, so
    that none is hyphenated or overflows, and the rest of the line shared in proportion to how much more its
    longest entry needs. A table of more than 12 rows may break across pages (a longtable), instead of leaving the
    rest of a page empty.
    """
    for table in root.findall(nodes.table):
        tgroup = table.next_node(nodes.tgroup)
        if tgroup is None:
            continue
        rows = list(tgroup.findall(nodes.row))
        if len(rows) > 12 and "longtable" not in table["classes"]:
            table["classes"].append("longtable")
        if "colwidths-given" in table["classes"]:
            continue
        colspecs = [child for child in tgroup.children if isinstance(child, nodes.colspec)]
        needed, unbreakable = [1] * len(colspecs), [1] * len(colspecs)
        for row in rows:
            column = 0
            for entry in row.children:
                if column < len(colspecs) and not entry.get("morecols"):
                    length, longest = _printed_length(entry)
                    needed[column] = max(needed[column], length)
                    unbreakable[column] = max(unbreakable[column], longest)
                column += 1 + entry.get("morecols", 0)
        if sum(needed) + padding * len(colspecs) <= line:
            continue  # fits as it is
        # Sphinx gives a column the fraction colwidth / sum(colwidths) of the line, padding included.
        widths = [min(word, 40) + padding for word in unbreakable]
        extra = [max(min(need, 60) + padding - width, 0) for need, width in zip(needed, widths, strict=True)]
        room = max(line - sum(widths), 0)
        if sum(extra):
            widths = [width + room * more / sum(extra) for width, more in zip(widths, extra, strict=True)]
        for colspec, width in zip(colspecs, widths, strict=True):
            colspec["colwidth"] = max(round(4 * width), 1)  # quarter characters: Sphinx wants integers
        table["classes"].append("colwidths-given")


def _images_at_their_resolution(root: nodes.Element) -> None:
    """Print a figure at the size its PNG declares (pixels per inch), not at the width given for screens.

    The book's builds store figures with twice their screen pixels and the screen width in the output's metadata
    (implementations/notebook/plotting.py); that width in pixels would print the figure at 0.75 bp per pixel, 1.5
    times too wide. Without it, LaTeX uses the PNG's own resolution and shrinks a figure wider than the line to the
    line.
    """
    for image in root.findall(nodes.image):
        if str(image.get("uri", "")).endswith(".png"):
            image.attributes.pop("width", None)
            image.attributes.pop("height", None)


def _drop_bibliography_page(app: Sphinx, part: nodes.compound) -> None:
    """Drop the page of the bibliography directive: LaTeX prints the entries as the book's last chapter."""
    try:
        from sphinxcontrib.bibtex.nodes import bibliography
    except ImportError:
        return
    for start in list(part.findall(addnodes.start_of_file)):
        if any(True for _ in app.env.get_doctree(start["docname"]).findall(bibliography)):
            start.parent.remove(start)


def _unboxed(solution: nodes.Element) -> list[nodes.Node]:
    """A solution's title as a heading and its content, without the box: a boxed solution that breaks across pages
    loses the frames of the code inside it, and in an appendix of solutions the box separates nothing."""
    title = next((child for child in solution.children if isinstance(child, nodes.title)), None)
    content = []
    for child in solution.children:
        if child is title:
            continue
        if isinstance(child, nodes.section) and not any(isinstance(c, nodes.title) for c in child.children):
            content += list(child.children)  # sphinx-exercise's untitled "solution-content" section
        else:
            content.append(child)
    heading = nodes.rubric("", "", *(title.children if title is not None else [nodes.Text(solution["title"])]))
    return [heading, *content]


def _drop_stub_outputs(root: nodes.Element) -> None:
    """Leave out what an exercise's check cell prints before the reader has written anything ("... is not
    implemented yet: replace raise NotImplementedError with your code"): the check cell itself stays."""
    for cell in list(root.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code_output":
            continue
        if "is not implemented yet" in cell.astext() and "raise NotImplementedError" in cell.astext():
            cell.parent.remove(cell)


def _collect_solutions(app: Sphinx, root: nodes.section) -> nodes.section | None:
    """Move every solution into an appendix chapter, a section per chapter; link each exercise to its solution."""
    try:
        from sphinx_exercise.nodes import exercise_enumerable_node, solution_node
    except ImportError:  # the extension is not loaded: nothing to move
        return None
    exercises = {node.get("label"): node for node in root.findall(exercise_enumerable_node)}
    by_page: dict[str, list[nodes.Element]] = {}
    for solution in list(root.findall(solution_node)):
        page = solution["pdf_page"]
        exercise_label = solution.get("target_label")
        anchor = f"pdf-solution:{exercise_label}"
        exercise = exercises.get(exercise_label)
        if exercise is not None:
            exercise.parent.insert(exercise.parent.index(exercise) + 1, _raw(rf"\mlfssolutionlink{{{anchor}}}"))
        solution.parent.remove(solution)
        by_page.setdefault(page, []).append(_label(anchor))
        by_page[page] += _unboxed(solution)
    if not by_page:
        return None
    chapter = nodes.section(ids=["pdf-solutions"], names=["solutions to the exercises"])
    chapter += nodes.title(SOLUTIONS_TITLE, SOLUTIONS_TITLE)
    chapter += nodes.paragraph("", "The solutions of every chapter's exercises, in the order of the exercises. "
                                   "Each exercise links to its solution, and each solution back to its exercise.")
    for page, content in by_page.items():
        title = app.env.titles[page].astext() if page in app.env.titles else page
        number = app.env.toc_secnumbers.get(page, {}).get("", ())
        heading = f"{'Appendix' if number and isinstance(number[0], str) else 'Chapter'} " \
                  f"{'.'.join(map(str, number))}: {title}" if number else title
        section = nodes.section(ids=[f"pdf-solutions-{page.replace('/', '-')}"], names=[heading.lower()])
        section += nodes.title(heading, heading)
        section.extend(content)
        # Within the page's scope, so that the solution's own links (#fig-ridge) resolve as on its page.
        chapter += addnodes.start_of_file("", section, docname=page)
    return chapter


# --- sphinx-proof's labels -------------------------------------------------------------------------------------


def _proof_visitors():
    from sphinx.writers.latex import LaTeXTranslator
    from sphinx_proof import nodes as proof_nodes

    start, end = proof_nodes.latex_admonition_start, proof_nodes.latex_admonition_end

    def number_of(translator, node, countertype):
        page = node.get("pdf_page")
        numbers = translator.builder.env.toc_fignumbers.get(page, {}).get(countertype, {})
        return ".".join(map(str, numbers.get(node["ids"][0], ())))

    def visit(translator: LaTeXTranslator, node) -> None:
        translator.body.append("\\label{" + f"{node.get('pdf_page')}:{node['label']}" + "}")
        translator.body.append(start)

    def depart_enumerable(translator: LaTeXTranslator, node) -> None:
        number = number_of(translator, node, node.get("countertype", ""))
        index = proof_nodes.list_rindex(translator.body, start) + 2
        translator.body.insert(index, f"{node.get('realtype', '').title()} {number}")
        translator.body.append(end)

    def depart_unenumerable(translator: LaTeXTranslator, node) -> None:
        index = proof_nodes.list_rindex(translator.body, start) + 2
        translator.body.insert(index, node.get("realtype", "").title())
        translator.body.append(end)

    return visit, depart_enumerable, depart_unenumerable


def fix_proof_labels(app: Sphinx) -> None:
    """Replace sphinx-proof's LaTeX visitors by ones that know each node's page (see the module docstring)."""
    try:
        from sphinx_proof import nodes as proof_nodes
    except ImportError:
        return
    visit, depart_enumerable, depart_unenumerable = _proof_visitors()
    for node_class in proof_nodes.NODE_TYPES.values():
        app.add_node(node_class, override=True, latex=(visit, depart_enumerable))
    app.add_node(proof_nodes.unenumerable_node, override=True, latex=(visit, depart_unenumerable))


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", configure_latex)
    app.connect("builder-inited", fix_proof_labels)
    app.connect("doctree-resolved", shape_book)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
