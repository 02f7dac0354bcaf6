"""The ``smt`` command's subcommands, one module (or package) per command group.

Each group module has ``add_commands(commands, common)``: it adds its parsers to
``commands`` (an argparse sub-parsers object), giving each the ``common``
parent parser (``--debug``, ``-q``, ``-v``), and sets ``handler(args) -> exit
code`` on each.  :mod:`smt.cli` assembles them and turns failures into one
line and a hint (:mod:`smt.commands.output`).
"""
