"""The book's helpers, used by every chapter: not taught, but what the chapters use to show what they teach.

- :mod:`.style`: the book's figure style, and how a notebook lays out and displays each figure;
- :mod:`.plotting`: the plot helpers, each drawing on the ``ax`` it is given;
- :mod:`.listing`: the source of a taught function, shown in a notebook;
- :mod:`.report`: printing numbers that mean the same on every reader's machine;
- :mod:`.exercises`: the check behind the exercise cells;
- :mod:`.exercise_checks`: one check per exercise, one module per chapter.
"""
