# The constants of the Make example's model (tests/integration/make): a module that model.py
# imports, so that editing it must regenerate the project.
ROWS = 32
COLS = 64
SCALE = 2.0
