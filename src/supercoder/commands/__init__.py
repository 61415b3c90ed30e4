"""The CLI's commands: one file per command, named for it (``bench list`` ->
``bench_list.py``), each a plain function that ``cli.py`` registers (and imports only
when that command runs); ``options.py`` and ``display.py`` are what several commands
share. The shared options are declared in ``options.py`` (``optionset.declare``), which
``optionset.declared`` imports before its first lookup."""
