"""The book's helpers, used by every chapter: not taught, but what the chapters use to show what they teach.

- :mod:`.plotting`: the book's figure style and the plot helpers;
- :mod:`.listing`: the source of a taught function, shown in a notebook;
- :mod:`.report`: printing numbers that mean the same on every reader's machine;
- :mod:`.exercises`: the check behind the exercise cells;
- :mod:`.exercise_checks`: one check per exercise, one module per chapter.
"""
