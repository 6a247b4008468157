"""memagent.evals: evaluation harnesses and their datasets (``data/``).

The top layer, outside the agent's import graph: the CLI loads the ``eval``
sub-app by module name, only when it is run.
"""
