"""The CLI's commands: one file per command, named for it (``bench list`` ->
``bench_list.py``), each a plain function that ``cli.py`` registers; ``options.py`` and
``display.py`` are what several commands share."""

# The shared options are declared (``optionset.declare``) before any command's options
# are made, whichever command is imported first.
from supercoder.commands import options as options
